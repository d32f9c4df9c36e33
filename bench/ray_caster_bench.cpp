// Ray caster and terrain pipeline kernels on one core, over the shipped terrain along the
// default flight (the source paper's case: 300 m above ground, 30 deg down, 26.8 m/s):
//   BM_CastFrame/W/H/fine    Mpixels/s with every tile the views want resident (1 m detail)
//   BM_CastFrame/W/H/coarse  the same views from the pinned coarse levels only (the fallback)
//   BM_CastFrameOn/TARGET    1280x720 fine and coarse on each SIMD instruction set the CPU runs
//   BM_ServeTiles            terrain server: tiles/s read, checked, refined and encoded
//   BM_InsertTile            ray tracer: tiles/s decoded, shaded and shadowed into the cache
//   BM_ImportShippedDem      bfv import of the shipped DEM: read, build the pyramid
//   build/bench/bfv_ray_caster_bench

#include <benchmark/benchmark.h>
#include <hwy/targets.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/flight.h"
#include "display/display_rank.h"
#include "raytracer/ray_caster.h"
#include "terrain-server/local_tile_server.h"
#include "terrain-server/tile_scheduler.h"
#include "terrain/npz_import.h"
#include "terrain/pinned_ground.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_stream.h"

namespace {

using namespace bfv;

constexpr int kPoses = 60;  // one per second of the 60 s flight
const char* const kShippedDem =
    "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz";

[[noreturn]] void Exit(const Error& error) {
    std::fprintf(stderr, "%s\n", error.message.c_str());
    std::exit(1);
}

template <typename T>
T OrExit(Expected<T> value) {
    if (!value) Exit(value.error());
    return std::move(*value);
}

void OrExit(const Expected<void>& done) {
    if (!done) Exit(done.error());
}

common::ScreenSpec Screen(int widthPx, int heightPx) {
    common::ScreenSpec screen;
    screen.widthPx = widthPx;
    screen.heightPx = heightPx;
    return screen;
}

// The shipped pyramid, its pinned levels, the default flight, and per screen size a cache with
// every tile of the flight's 60 views.
struct Scene {
    terrain::PyramidFile file;
    std::unique_ptr<terrain::TerrainStartup> startup;
    std::unique_ptr<terrain::PinnedGround> ground;
    std::unique_ptr<common::Flight> flight;

    std::unique_ptr<raytracer::TileCache> CacheFor(const common::ScreenSpec& screen) const {
        auto cache = std::make_unique<raytracer::TileCache>(raytracer::PinnedCache(*startup));
        terrain_server::LocalTileServer server(file, {1 << 20, screen, 1.0, 2.0}, 0.0);
        for (int p = 0; p < kPoses; ++p) {
            std::vector<std::byte> records;
            OrExit(server.ServeFrame(p, flight->PoseAt(p), 0.0, true, records));
            OrExit(raytracer::ApplyLocalStream(records, *cache, 0));
        }
        return cache;
    }
};

const Scene& LoadScene() {
    static const Scene scene = [] {
        Scene s{OrExit(terrain::PyramidFile::Open(BFV_DEFAULT_TERRAIN)), nullptr, nullptr, nullptr};
        s.startup =
            std::make_unique<terrain::TerrainStartup>(OrExit(terrain::ReadTerrainStartup(s.file)));
        s.ground = std::make_unique<terrain::PinnedGround>(*s.startup);
        s.flight = std::make_unique<common::Flight>(OrExit(display::MakeFlight({}, *s.ground)));
        return s;
    }();
    return scene;
}

// Renders whole frames, one pose per second of flight, cycling through the 60 s, on the
// instruction set `target` (a Highway target; 0: the best this CPU runs).
void CastFrames(benchmark::State& state, std::int64_t target) {
    const Scene& scene = LoadScene();
    hwy::SetSupportedTargetsForTest(target);
    common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    bool fine = state.range(2) != 0;
    auto cache = scene.CacheFor(screen);
    raytracer::CastSettings settings;
    if (!fine) settings.finestLevel = terrain::PinnedLevels(scene.file.Info()) - 1;
    raytracer::ColumnScratch scratch;
    std::vector<common::Pixel> column(screen.heightPx);
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = scene.flight->PoseAt(pose++ % kPoses);
        for (int x = 0; x < screen.widthPx; ++x) {
            raytracer::CastColumn(*cache, camera, screen, settings, x, scratch, column.data());
        }
        benchmark::DoNotOptimize(column.data());
    }
    double pixels = static_cast<double>(state.iterations()) * screen.widthPx * screen.heightPx;
    state.counters["Mpixels/s"] = benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsRate);
    state.counters["frames/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["resident_MiB"] = static_cast<double>(cache->ResidentBytes()) / (1 << 20);
    state.SetLabel(fine ? "fine" : "coarse");
    hwy::SetSupportedTargetsForTest(0);
}

void BM_CastFrame(benchmark::State& state) { CastFrames(state, 0); }
BENCHMARK(BM_CastFrame)
    ->Args({640, 360, 1})
    ->Args({640, 360, 0})
    ->Args({1280, 720, 1})
    ->Args({1280, 720, 0})
    ->Unit(benchmark::kMillisecond);

// BM_CastFrameOn/TARGET/1280/720/fine|coarse: the same at 1280x720 on each instruction set the
// caster was compiled for and this CPU runs (AVX3 is AVX-512), for machines without the best.
void RegisterCastFrameOnEveryTarget() {
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        for (int fine : {1, 0}) {
            std::string name = std::string("BM_CastFrameOn/") + hwy::TargetName(target);
            benchmark::RegisterBenchmark(
                name.c_str(), [target](benchmark::State& state) { CastFrames(state, target); })
                ->Args({1280, 720, fine})
                ->Unit(benchmark::kMillisecond);
        }
    }
}

// The terrain server's work for the flight's 60 views from cold: every tile read (checksum
// checked) or refined, then encoded into stream records.
void BM_ServeTiles(benchmark::State& state) {
    const Scene& scene = LoadScene();
    common::ScreenSpec screen = Screen(640, 360);
    long long tiles = 0;
    for (auto _ : state) {
        terrain_server::TileSource source(scene.file.Info(), [&](const terrain::TileKey& key) {
            return scene.file.ReadTile(key);
        });
        terrain_server::TileScheduler scheduler(scene.file.Info(), source,
                                                {1 << 20, screen, 1.0, 2.0});
        std::vector<std::byte> bytes;
        for (int p = 0; p < kPoses; ++p) {
            scheduler.SetView(scene.flight->PoseAt(p), p, false);
            bytes.clear();
            OrExit(scheduler.Produce(std::numeric_limits<std::size_t>::max(), bytes));
        }
        tiles += scheduler.TilesSent();
    }
    state.counters["tiles/s"] =
        benchmark::Counter(static_cast<double>(tiles), benchmark::Counter::kIsRate);
    state.counters["MB/s"] = benchmark::Counter(
        static_cast<double>(tiles) * terrain::kTileRecordBytes / 1e6, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ServeTiles)->Unit(benchmark::kMillisecond);

// A ray tracer taking one streamed tile: decode, shade, and blend set-up.
void BM_InsertTile(benchmark::State& state) {
    const Scene& scene = LoadScene();
    terrain::TilePosts tile = OrExit(scene.file.ReadTile({3, 3, 3}));
    raytracer::TileCache cache(scene.file.Info());
    cache.Insert(OrExit(scene.file.ReadTile({0, 0, 0})), true, 0);
    cache.CastShadows(0);  // as a tracer's cache does: every insert casts the terrain's shadows
    for (auto _ : state) cache.Insert(tile, false, static_cast<int>(state.range(0)));
    state.counters["tiles/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.SetLabel(state.range(0) > 0 ? "blended" : "at once");
}
BENCHMARK(BM_InsertTile)->Arg(0)->Arg(8)->Unit(benchmark::kMicrosecond);

// `bfv import` of the shipped DEM, without the file write: read the .npz, build the pyramid.
void BM_ImportShippedDem(benchmark::State& state) {
    for (auto _ : state) {
        terrain::Terrain terrain = OrExit(terrain::ImportNpz(kShippedDem));
        benchmark::DoNotOptimize(OrExit(terrain::BuildPyramid(terrain, {})).tiles.data());
    }
}
BENCHMARK(BM_ImportShippedDem)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    RegisterCastFrameOnEveryTarget();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
