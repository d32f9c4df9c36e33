// Ray caster kernel: Mpixels/s on one core along the default flight (the source paper's case:
// 300 m above ground, 30 deg down, 26.8 m/s) over the shipped terrain.
//   build/bench/bfv_ray_caster_bench

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "common/flight.h"
#include "common/terrain_file.h"
#include "display/display_rank.h"
#include "raytracer/ray_caster.h"

namespace {

using namespace bfv;

// The shipped terrain, its pyramid and the default flight, loaded once.
struct Scene {
    common::Terrain terrain;
    std::unique_ptr<raytracer::TerrainPyramid> pyramid;
    std::unique_ptr<common::Flight> flight;
};

const Scene& LoadScene() {
    static const Scene scene = [] {
        auto terrain = common::ReadTerrainFile(BFV_DEFAULT_TERRAIN);
        if (!terrain) {
            std::fprintf(stderr, "%s\n", terrain.error().message.c_str());
            std::exit(1);
        }
        Scene s{std::move(*terrain), nullptr, nullptr};
        s.pyramid = std::make_unique<raytracer::TerrainPyramid>(s.terrain);
        common::RenderOptions defaults;
        auto flight = display::MakeFlight(defaults, s.terrain);
        s.flight = std::make_unique<common::Flight>(std::move(*flight));
        return s;
    }();
    return scene;
}

// Renders whole frames, one pose per second of flight, cycling through 60 s.
void BM_CastFrame(benchmark::State& state) {
    const Scene& scene = LoadScene();
    common::ScreenSpec screen;
    screen.widthPx = static_cast<int>(state.range(0));
    screen.heightPx = static_cast<int>(state.range(1));
    raytracer::CastSettings settings;
    raytracer::ColumnScratch scratch;
    std::vector<common::Pixel> column(screen.heightPx);
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = scene.flight->PoseAt(pose++ % 60);
        for (int x = 0; x < screen.widthPx; ++x) {
            raytracer::CastColumn(*scene.pyramid, camera, screen, settings, x, scratch,
                                  column.data());
        }
        benchmark::DoNotOptimize(column.data());
    }
    double pixels = static_cast<double>(state.iterations()) * screen.widthPx * screen.heightPx;
    state.counters["Mpixels/s"] = benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsRate);
    state.counters["frames/s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CastFrame)->Args({640, 360})->Args({1280, 720})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
