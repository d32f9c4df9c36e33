// Ray caster and terrain pipeline kernels on one core, over the shipped terrain along the
// default flight (the source paper's case: 300 m above ground, 30 deg down, 26.8 m/s):
//   BM_CastFrame/W/H/fine:1  Mpixels/s with every tile the views want resident (1 m detail)
//   BM_CastFrame/W/H/fine:0  the same views from the pinned coarse levels only (the fallback)
//                            aniso:4 exact:0 is the renderer's default; every other choice of
//                            anisotropy and intersection also prints its difference to the
//                            finest one (aniso:1 exact:1): mean/max per channel, PSNR
//   BM_CastFrameOn/TARGET    1280x720 fine and coarse on each SIMD instruction set the CPU runs
//   BM_ServeTiles            terrain server: tiles/s read, checked, refined and encoded
//   BM_InsertTile            ray tracer: tiles/s decoded, shaded and shadowed into the cache
//   BM_ImportShippedDem      bfv import of the shipped DEM: read, build the pyramid
//   build/bench/bfv_ray_caster_bench

#include <benchmark/benchmark.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/flight.h"
#include "common/palette.h"
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
        // Isotropic: the tiles of every level of detail the bench compares.
        terrain_server::LocalTileServer server(file, {1 << 20, screen, 1.0, 2.0, 1.0}, 0.0);
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

// Casts every column of the view at `camera` into `frame` (column-major, heightPx a column).
void CastFrame(const raytracer::TileCache& cache, const common::CameraPose& camera,
               const common::ScreenSpec& screen, const raytracer::CastSettings& settings,
               raytracer::ColumnScratch& scratch, std::vector<common::Pixel>& frame) {
    frame.resize(static_cast<std::size_t>(screen.widthPx) * screen.heightPx);
    for (int x = 0; x < screen.widthPx; ++x) {
        raytracer::CastColumn(cache, camera, screen, settings, x, scratch,
                              frame.data() + static_cast<std::size_t>(x) * screen.heightPx);
    }
}

// Difference of a frame to the finest one (isotropic, exact intersection), in RGB levels (0-255)
// after the palette.
struct FrameDifference {
    double sumLevels = 0.0, sumSquaredLevels = 0.0, maxLevels = 0.0;
    long long channels = 0;

    void Add(const std::vector<common::Pixel>& frame, const std::vector<common::Pixel>& exact) {
        for (std::size_t i = 0; i < frame.size(); ++i) {
            common::Rgb a = common::ToRgb(frame[i]), b = common::ToRgb(exact[i]);
            for (auto [u, v] : {std::pair{a.r, b.r}, std::pair{a.g, b.g}, std::pair{a.b, b.b}}) {
                double levels = std::abs(static_cast<double>(u) - static_cast<double>(v));
                sumLevels += levels;
                sumSquaredLevels += levels * levels;
                maxLevels = std::max(maxLevels, levels);
                ++channels;
            }
        }
    }

    /// Peak signal-to-noise ratio in dB; infinite for identical frames.
    double PsnrDb() const {
        double mse = sumSquaredLevels / static_cast<double>(channels);
        return mse == 0.0 ? std::numeric_limits<double>::infinity()
                          : 10.0 * std::log10(255.0 * 255.0 / mse);
    }
};

// Renders whole frames, one pose per second of flight, on the instruction set `target` (a
// Highway target; 0: the best this CPU runs), with the maximum anisotropy range(3) of the level
// of detail and, if range(4) is 1, the exact intersection in every cell. Every run renders the
// flight's kPoses views once, so that its rate covers the same views at every size and on every
// machine (views differ by up to 3x in cost). Unless it is the finest choice (isotropic, exact)
// every frame is also cast that way outside the timing, and the counters give the difference:
// mean and max per RGB channel, and PSNR.
void CastFrames(benchmark::State& state, std::int64_t target) {
    const Scene& scene = LoadScene();
    hwy::SetSupportedTargetsForTest(target);
    common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    bool fine = state.range(2) != 0;
    auto cache = scene.CacheFor(screen);
    raytracer::CastSettings settings;
    if (!fine) settings.finestLevel = terrain::PinnedLevels(scene.file.Info()) - 1;
    settings.maxAnisotropy = static_cast<double>(state.range(3));
    if (state.range(4) != 0) settings.secantMaxCellPixels = 0.0;
    raytracer::CastSettings finest = settings;
    finest.maxAnisotropy = 1.0;
    finest.secantMaxCellPixels = 0.0;
    bool compare = settings.maxAnisotropy != 1.0 || settings.secantMaxCellPixels != 0.0;
    raytracer::ColumnScratch scratch;
    std::vector<common::Pixel> frame, exact;
    FrameDifference difference;
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = scene.flight->PoseAt(pose++ % kPoses);
        CastFrame(*cache, camera, screen, settings, scratch, frame);
        benchmark::DoNotOptimize(frame.data());
        if (compare) {
            state.PauseTiming();
            CastFrame(*cache, camera, screen, finest, scratch, exact);
            difference.Add(frame, exact);
            state.ResumeTiming();
        }
    }
    double pixels = static_cast<double>(state.iterations()) * screen.widthPx * screen.heightPx;
    state.counters["Mpixels/s"] = benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsRate);
    state.counters["frames/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["resident_MiB"] = static_cast<double>(cache->ResidentBytes()) / (1 << 20);
    if (compare) {
        state.counters["diff_mean"] =
            difference.sumLevels / static_cast<double>(std::max(difference.channels, 1LL));
        state.counters["diff_max"] = difference.maxLevels;
        state.counters["PSNR_dB"] = difference.PsnrDb();
    }
    state.SetLabel(std::string(fine ? "fine" : "coarse") +
                   (compare ? ", vs isotropic exact" : ", isotropic exact"));
    hwy::SetSupportedTargetsForTest(0);
}

// BM_CastFrame/W/H/FINE/ANISOTROPY/EXACT: the renderer's default (anisotropy 4, the secant in
// cells no larger than a pixel) and the finest choice it approximates (isotropic, exact).
void BM_CastFrame(benchmark::State& state) { CastFrames(state, 0); }
BENCHMARK(BM_CastFrame)
    ->ArgNames({"w", "h", "fine", "aniso", "exact"})
    ->Args({640, 360, 1, 4, 0})
    ->Args({640, 360, 1, 4, 1})
    ->Args({640, 360, 1, 1, 1})
    ->Args({640, 360, 1, 1, 0})
    ->Args({640, 360, 0, 4, 0})
    ->Args({1280, 720, 1, 4, 0})
    ->Args({1280, 720, 1, 4, 1})
    ->Args({1280, 720, 1, 1, 1})
    ->Args({1280, 720, 1, 1, 0})
    ->Args({1280, 720, 0, 4, 0})
    ->Iterations(kPoses)
    ->Unit(benchmark::kMillisecond);

// BM_CastFrameOn/TARGET/1280/720/fine|coarse: the same at 1280x720 on each instruction set the
// caster was compiled for and this CPU runs (AVX3 is AVX-512), for machines without the best.
void RegisterCastFrameOnEveryTarget() {
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        for (int fine : {1, 0}) {
            std::string name = std::string("BM_CastFrameOn/") + hwy::TargetName(target);
            benchmark::RegisterBenchmark(
                name.c_str(), [target](benchmark::State& state) { CastFrames(state, target); })
                ->Args({1280, 720, fine, 4, 0})
                ->Iterations(kPoses)
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
                                                {1 << 20, screen, 1.0, 2.0, 4.0});
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

// A ray tracer taking one streamed tile: decode, shade, and blend set-up. Arguments: blend
// frames, and the tile's level: 3 (the finest stored level: materials of its own) or 6 (a
// fractal tile, refined from it: the source's materials and the softened detail).
void BM_InsertTile(benchmark::State& state) {
    const Scene& scene = LoadScene();
    const terrain::PyramidInfo& info = scene.file.Info();
    terrain::TilePosts tile = OrExit(scene.file.ReadTile({3, 3, 3}));
    raytracer::TileCache cache(info);
    cache.Insert(OrExit(scene.file.ReadTile({0, 0, 0})), true, 0);
    cache.CastShadows(0);  // as a tracer's cache does: every insert casts the terrain's shadows
    if (state.range(1) > 3) {
        cache.Insert(tile, true, 0);
        for (int level = 4; level <= state.range(1); ++level) {
            tile = terrain::RefineTile(info, tile, {level, tile.key.tx * 2, tile.key.ty * 2});
        }
    }
    for (auto _ : state) cache.Insert(tile, false, static_cast<int>(state.range(0)));
    state.counters["tiles/s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.SetLabel(std::string(state.range(0) > 0 ? "blended" : "at once") + ", level " +
                   std::to_string(state.range(1)));
}
BENCHMARK(BM_InsertTile)
    ->ArgsProduct({{0, 8}, {3, 6}})
    ->ArgNames({"blend", "level"})
    ->Unit(benchmark::kMicrosecond);

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
