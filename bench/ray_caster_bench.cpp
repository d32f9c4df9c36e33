// Ray caster and terrain pipeline kernels on one core, over the shipped terrain along the
// default flight (the source paper's case: 300 m above ground, 30 deg down, 26.8 m/s):
//   BM_CastFrame/W/H/fine:1  Mpixels/s with every tile the views want resident (1 m detail)
//   BM_CastFrame/W/H/fine:0  the same views from the pinned coarse levels only (the fallback)
//                            aniso:4 exact:0 is the renderer's default; every other choice of
//                            anisotropy and intersection also prints its difference to the
//                            finest one (aniso:1 exact:1): mean/max per channel, PSNR
//   BM_CastFrameOn/TARGET    1280x720 fine and coarse on each SIMD instruction set the CPU runs
//   BM_Embree/W/H/VIEW       Mpixels/s of Intel Embree 3 (a general BVH ray tracer, 16-ray
//                            packets) on the finest stored level's posts (64 m) as triangles
//   BM_TraceGrid/W/H/VIEW/EXACT  bfv's caster on the same posts, hit distances only. VIEW 0:
//                            the flight's 60 views; 1: the same places 1500 m up, looking level
//   BM_PinholeAgreement/PITCH/W/H/AGL  sky/terrain mask of bfv's camera against Embree's
//                            pinhole camera on the same posts: agreement, silhouette offset
//   BM_Antialias/W/H/VIEW    anti-aliasing against the --supersample 4 reference: PSNR of
//                            silhouette, shoreline and other boundary pixels without and with
//                            it, its cost (ms_on: the cast with hit distances, the edge finder
//                            ms_find and the edge pixels' rays ms_samples)
//   BM_BuildFanLayout/W/H/PITCH  the fan rebuilt, as every caster does each frame the pitch changes
//   BM_ServeTiles            terrain server: tiles/s read, checked, refined and encoded
//   BM_InsertTile            ray tracer: tiles/s decoded, shaded and shadowed into the cache
//   BM_ImportShippedDem      bfv import of the shipped DEM: read, build the pyramid
//   build/bench/bfv_ray_caster_bench

#include <benchmark/benchmark.h>
#include <embree3/rtcore.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <glm/geometric.hpp>
#include <limits>
#include <memory>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/fan.h"
#include "common/flight.h"
#include "common/instrument.h"
#include "common/pixel.h"
#include "display/display_rank.h"
#include "raytracer/antialias.h"
#include "raytracer/ray_caster.h"
#include "terrain-server/local_tile_server.h"
#include "terrain-server/tile_scheduler.h"
#include "terrain/npz_import.h"
#include "terrain/pinned_ground.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_stream.h"
#include "terrain/water.h"

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

// Sets the Mpixels/s counter of a run that rendered `screen` once an iteration; returns the
// pixels rendered.
double CountPixels(benchmark::State& state, const common::ScreenSpec& screen) {
    double pixels = static_cast<double>(state.iterations()) * screen.widthPx * screen.heightPx;
    state.counters["Mpixels/s"] = benchmark::Counter(pixels / 1e6, benchmark::Counter::kIsRate);
    return pixels;
}

// The shipped pyramid, its pinned levels, the default flight, and per screen size a cache with
// every tile of the flight's 60 views.
struct Scene {
    terrain::PyramidFile file;
    std::unique_ptr<terrain::TerrainStartup> startup;
    std::unique_ptr<terrain::PinnedGround> ground;
    std::unique_ptr<common::Flight> flight;

    // With `waterLevelM`, the water surface over the terrain below it (--sea-level).
    std::unique_ptr<raytracer::TileCache> CacheFor(const common::ScreenSpec& screen,
                                                   double waterLevelM = terrain::kNoWaterM) const {
        auto cache =
            std::make_unique<raytracer::TileCache>(raytracer::PinnedCache(*startup, waterLevelM));
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

// Casts every pixel of the view at `camera` into `frame` (column-major, heightPx a column): the
// planes of `fan`, the fan of the camera's pitch.
void CastFrame(const raytracer::TileCache& cache, const common::CameraPose& camera,
               const common::FanLayout& fan, const raytracer::CastSettings& settings,
               raytracer::ColumnScratch& scratch, std::vector<common::Pixel>& frame) {
    const common::ScreenSpec& screen = fan.screen;
    frame.resize(static_cast<std::size_t>(screen.widthPx) * screen.heightPx);
    raytracer::FrameRays rays = raytracer::FrameRaysOf(cache, camera, fan, settings);
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        raytracer::CastPlane(cache, rays, p, settings, {0, 1, screen.widthPx}, scratch,
                             frame.data());
    }
}

// Difference of a frame to the finest one (isotropic, exact intersection), in RGB levels (0-255).
struct FrameDifference {
    double sumLevels = 0.0, sumSquaredLevels = 0.0, maxLevels = 0.0;
    long long channels = 0;

    void Add(const std::vector<common::Pixel>& frame, const std::vector<common::Pixel>& exact) {
        for (std::size_t i = 0; i < frame.size(); ++i) {
            const common::Rgb &a = frame[i], &b = exact[i];
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
    // The flight's pitch is the same in every pose: the fan is built once.
    const common::FanLayout fan = common::BuildFanLayout(screen, scene.flight->PoseAt(0).pitchRad);
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = scene.flight->PoseAt(pose++ % kPoses);
        CastFrame(*cache, camera, fan, settings, scratch, frame);
        benchmark::DoNotOptimize(frame.data());
        if (compare) {
            state.PauseTiming();
            CastFrame(*cache, camera, fan, finest, scratch, exact);
            difference.Add(frame, exact);
            state.ResumeTiming();
        }
    }
    CountPixels(state, screen);
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

// A conventional pinhole camera at a pose: forward along the heading pitched by the pose's
// pitch, right, and up, the image plane at the focal length in pixels. Written from the pose
// alone, apart from bfv's fan, as the reference its geometry is checked against.
struct PinholeCamera {
    glm::dvec3 forward, right, up;
    double focalPx, centreXPx, centreYPx;  // the screen centre, pixels from the top-left corner

    PinholeCamera(const common::CameraPose& pose, const common::ScreenSpec& screen) {
        double sinH = std::sin(pose.headingRad), cosH = std::cos(pose.headingRad);
        double c = std::cos(pose.pitchRad), s = std::sin(pose.pitchRad);
        forward = {c * sinH, c * cosH, s};
        right = {cosH, -sinH, 0.0};
        up = {-s * sinH, -s * cosH, c};
        focalPx = 0.5 * screen.widthPx / std::tan(0.5 * screen.hFovRad);
        centreXPx = 0.5 * screen.widthPx;
        centreYPx = 0.5 * screen.heightPx;
    }

    // The ray through the centre of pixel (x, y) (y = 0 at the top), unit length.
    glm::dvec3 Ray(int x, int y) const {
        return glm::normalize(focalPx * forward + (x + 0.5 - centreXPx) * right +
                              (centreYPx - y - 0.5) * up);
    }

    // Where direction `ray` (ahead of the camera) meets the screen, in pixels from the top-left
    // corner: pixel (x, y)'s centre is (x + 0.5, y + 0.5).
    glm::dvec2 Project(const glm::dvec3& ray) const {
        double ahead = glm::dot(ray, forward);
        return {centreXPx + focalPx * glm::dot(ray, right) / ahead,
                centreYPx - focalPx * glm::dot(ray, up) / ahead};
    }
};

// The general ray tracer's side of the comparison: Embree 3 on the posts of the finest stored
// level as two triangles a cell, over the data area, in metres from its south-west corner.
class EmbreeGrid {
  public:
    EmbreeGrid(const raytracer::TileCache& cache, int level) : device_(rtcNewDevice(nullptr)) {
        const terrain::PyramidInfo& info = cache.Info();
        double spacingM = info.geometry.SpacingM(level);
        int columns = static_cast<int>(std::ceil(info.dataWidthM / spacingM)) + 1;
        int rows = static_cast<int>(std::ceil(info.dataDepthM / spacingM)) + 1;
        scene_ = rtcNewScene(device_);
        RTCGeometry grid = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
        auto* vertices = static_cast<float*>(
            rtcSetNewGeometryBuffer(grid, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                    3 * sizeof(float), static_cast<std::size_t>(columns) * rows));
        for (int j = 0; j < rows; ++j) {
            for (int i = 0; i < columns; ++i) {
                float* v = vertices + 3 * (static_cast<std::size_t>(j) * columns + i);
                v[0] = static_cast<float>(i * spacingM);
                v[1] = static_cast<float>(j * spacingM);
                v[2] = static_cast<float>(cache.HeightAtM(level, i * spacingM, j * spacingM));
            }
        }
        auto* triangles = static_cast<unsigned*>(rtcSetNewGeometryBuffer(
            grid, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned),
            2 * static_cast<std::size_t>(columns - 1) * (rows - 1)));
        for (int j = 0; j + 1 < rows; ++j) {
            for (int i = 0; i + 1 < columns; ++i) {
                auto post = [&](int a, int b) { return static_cast<unsigned>(b * columns + a); };
                unsigned* t = triangles + 6 * (static_cast<std::size_t>(j) * (columns - 1) + i);
                unsigned quad[6] = {post(i, j), post(i + 1, j),     post(i + 1, j + 1),
                                    post(i, j), post(i + 1, j + 1), post(i, j + 1)};
                std::copy(quad, quad + 6, t);
            }
        }
        rtcCommitGeometry(grid);
        rtcAttachGeometry(scene_, grid);
        rtcReleaseGeometry(grid);
        rtcCommitScene(scene_);
    }
    EmbreeGrid(const EmbreeGrid&) = delete;
    EmbreeGrid& operator=(const EmbreeGrid&) = delete;
    ~EmbreeGrid() {
        rtcReleaseScene(scene_);
        rtcReleaseDevice(device_);
    }

    // Casts the view's rays, in 4 x 4 pixel packets, and returns how many hit; `hit` (if given)
    // gets 1 for each pixel that hit, column-major. The rays are a conventional pinhole
    // camera's, built from the pose alone (PinholeCamera): the reference bfv's fan is checked
    // against. They are worked out for the whole view first: the timing is Embree's.
    long long Cast(const common::CameraPose& pose, const common::ScreenSpec& screen,
                   std::vector<glm::dvec3>& rays, std::vector<std::uint8_t>* hit = nullptr) const {
        constexpr int kSide = 4;  // a packet: 4 x 4 pixels
        RTCIntersectContext context;
        rtcInitIntersectContext(&context);
        context.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
        long long hits = 0;
        const std::size_t h = screen.heightPx;
        rays.resize(h * screen.widthPx);
        const PinholeCamera camera(pose, screen);
        for (int x = 0; x < screen.widthPx; ++x) {
            for (int y = 0; y < screen.heightPx; ++y) rays[x * h + y] = camera.Ray(x, y);
        }
        if (hit) hit->assign(rays.size(), 0);
        for (int x0 = 0; x0 < screen.widthPx; x0 += kSide) {
            for (int y0 = 0; y0 < screen.heightPx; y0 += kSide) {
                alignas(64) RTCRayHit16 packet;
                alignas(64) int valid[16];
                for (int k = 0; k < 16; ++k) {
                    int x = std::min(x0 + k % kSide, screen.widthPx - 1);
                    int y = std::min(y0 + k / kSide, screen.heightPx - 1);
                    const glm::dvec3& dir = rays[x * h + y];
                    valid[k] = x0 + k % kSide < screen.widthPx && y0 + k / kSide < screen.heightPx
                                   ? -1
                                   : 0;
                    packet.ray.org_x[k] = static_cast<float>(pose.eyeM.x);
                    packet.ray.org_y[k] = static_cast<float>(pose.eyeM.y);
                    packet.ray.org_z[k] = static_cast<float>(pose.eyeM.z);
                    packet.ray.dir_x[k] = static_cast<float>(dir.x);
                    packet.ray.dir_y[k] = static_cast<float>(dir.y);
                    packet.ray.dir_z[k] = static_cast<float>(dir.z);
                    packet.ray.tnear[k] = 0.0f;
                    packet.ray.tfar[k] = std::numeric_limits<float>::infinity();
                    packet.ray.mask[k] = ~0u;
                    packet.ray.time[k] = 0.0f;
                    packet.ray.flags[k] = 0;
                    packet.hit.geomID[k] = RTC_INVALID_GEOMETRY_ID;
                }
                rtcIntersect16(valid, scene_, &context, &packet);
                for (int k = 0; k < 16; ++k) {
                    if (valid[k] == 0 || packet.hit.geomID[k] == RTC_INVALID_GEOMETRY_ID) continue;
                    ++hits;
                    if (hit) (*hit)[(x0 + k % kSide) * h + y0 + k / kSide] = 1;
                }
            }
        }
        return hits;
    }

  private:
    RTCDevice device_;
    RTCScene scene_ = nullptr;
};

// The views of the comparison: the flight's (300 m above the ground, 30 deg down) or, VIEW 1,
// the same places 1500 m above the ground looking level at the horizon.
common::CameraPose ComparisonView(const Scene& scene, int pose, bool horizon) {
    common::CameraPose camera = scene.flight->PoseAt(pose);
    if (horizon) {
        camera.eyeM.z += 1200.0;
        camera.pitchRad = 0.0;
    }
    return camera;
}

// The comparison's label for its views.
std::string ComparisonLabel(bool horizon) {
    return horizon ? "64 m grid, horizon" : "64 m grid, flight";
}

// The finest stored level (the shipped terrain's 64 m), where the comparison runs.
int GridLevel(const Scene& scene) { return scene.file.Info().storedLevels - 1; }

// BM_Embree/W/H/VIEW: Mpixels/s of Embree's packets over the 60 views, one core (the BVH is built
// before the timing, on as many threads as Embree likes); hit_fraction: rays that hit.
void BM_Embree(benchmark::State& state) {
    const Scene& scene = LoadScene();
    common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    auto cache = std::make_unique<raytracer::TileCache>(raytracer::PinnedCache(*scene.startup));
    EmbreeGrid grid(*cache, GridLevel(scene));
    std::vector<glm::dvec3> rays;
    long long hits = 0;
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = ComparisonView(scene, pose++ % kPoses, state.range(2) != 0);
        hits += grid.Cast(camera, screen, rays);
    }
    state.counters["hit_fraction"] = static_cast<double>(hits) / CountPixels(state, screen);
    state.SetLabel(ComparisonLabel(state.range(2) != 0));
}
BENCHMARK(BM_Embree)
    ->ArgNames({"w", "h", "view"})
    ->ArgsProduct({{1280}, {720}, {0, 1}})
    ->Iterations(kPoses)
    ->Unit(benchmark::kMillisecond);

// BM_TraceGrid/W/H/VIEW/EXACT: bfv's caster on the same views and the same 64 m posts (the level
// of detail capped there and isotropic), hit distances only, as Embree's side; EXACT 1: the
// exact intersection in every cell, 0: the secant where a cell spans at most 4 pixels.
void BM_TraceGrid(benchmark::State& state) {
    const Scene& scene = LoadScene();
    common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    auto cache = std::make_unique<raytracer::TileCache>(raytracer::PinnedCache(*scene.startup));
    raytracer::CastSettings settings;
    settings.finestLevel = GridLevel(scene);
    settings.maxAnisotropy = 1.0;
    if (state.range(3) != 0) settings.secantMaxCellPixels = 0.0;
    raytracer::ColumnScratch scratch;
    common::FanLayout fan =
        common::BuildFanLayout(screen, ComparisonView(scene, 0, state.range(2) != 0).pitchRad);
    long long hits = 0;
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = ComparisonView(scene, pose++ % kPoses, state.range(2) != 0);
        scratch.hits = 0;
        common::UpdateFanLayout(screen, camera.pitchRad, fan);
        raytracer::FrameRays rays = raytracer::FrameRaysOf(*cache, camera, fan, settings);
        for (int p = 0; p < fan.PlaneCount(); ++p) {
            std::span<const double> slopes(fan.pixelSlope.data() + fan.planeStart[p],
                                           fan.planeStart[p + 1] - fan.planeStart[p]);
            raytracer::TracePlane(*cache, rays, p, slopes, settings, scratch);
        }
        hits += scratch.hits;
    }
    state.counters["hit_fraction"] = static_cast<double>(hits) / CountPixels(state, screen);
    state.SetLabel(ComparisonLabel(state.range(2) != 0) +
                   (state.range(3) != 0 ? ", exact" : ", secant"));
}
BENCHMARK(BM_TraceGrid)
    ->ArgNames({"w", "h", "view", "exact"})
    ->ArgsProduct({{1280}, {720}, {0, 1}, {1, 0}})
    ->Iterations(kPoses)
    ->Unit(benchmark::kMillisecond);

// Sky/terrain masks of bfv's fan against a conventional pinhole camera, added up over views:
// pixels compared and mismatched, and per screen column where both masks hold sky above
// terrain (the horizon in view), the offset of the silhouette (the topmost terrain row).
struct MaskAgreement {
    long long pixels = 0, mismatchedPx = 0;
    long long silhouetteColumns = 0;
    double silhouetteSumPx = 0.0, silhouetteMaxPx = 0.0;

    /// Adds one view's masks, column-major, heightPx rows a column; 1: the pixel hits terrain.
    void Add(const std::vector<std::uint8_t>& bfvHit, const std::vector<std::uint8_t>& pinholeHit,
             int heightPx) {
        for (std::size_t i = 0; i < bfvHit.size(); ++i) mismatchedPx += bfvHit[i] != pinholeHit[i];
        pixels += static_cast<long long>(bfvHit.size());
        for (std::size_t top = 0; top < bfvHit.size(); top += heightPx) {
            int a = SilhouetteRow(&bfvHit[top], heightPx);
            int b = SilhouetteRow(&pinholeHit[top], heightPx);
            // Columns of terrain up to the top or of sky alone hold no silhouette.
            if (std::min(a, b) == 0 || std::max(a, b) == heightPx) continue;
            double offsetPx = std::abs(a - b);
            ++silhouetteColumns;
            silhouetteSumPx += offsetPx;
            silhouetteMaxPx = std::max(silhouetteMaxPx, offsetPx);
        }
    }

    /// The topmost terrain row of a column (heightPx when it is all sky).
    static int SilhouetteRow(const std::uint8_t* column, int heightPx) {
        return static_cast<int>(std::find(column, column + heightPx, 1) - column);
    }
};

// How far bfv's rays are from a pinhole camera's pixel centres, in pixels on its screen, added up
// over views: each pixel of the fan is cast in its plane's direction at its own slope.
struct RayOffsets {
    long long pixels = 0, beyondHalfPx = 0;
    double sumPx = 0.0, maxPx = 0.0;

    /// Adds every pixel of `fan` at `pose`, against PinholeCamera at the same pose.
    void Add(const common::FanLayout& fan, const common::CameraPose& pose) {
        const PinholeCamera camera(pose, fan.screen);
        const int h = fan.screen.heightPx;
        for (int p = 0; p < fan.PlaneCount(); ++p) {
            common::HorizontalDirection along = common::PlaneDirection(fan, p, pose.headingRad);
            for (int k = fan.planeStart[p]; k < fan.planeStart[p + 1]; ++k) {
                glm::dvec2 onScreen = camera.Project({along.dirX, along.dirY, fan.pixelSlope[k]});
                int x = static_cast<int>(fan.pixelIndex[k]) / h;
                int y = static_cast<int>(fan.pixelIndex[k]) % h;
                double offsetPx = glm::length(onScreen - glm::dvec2(x + 0.5, y + 0.5));
                sumPx += offsetPx;
                maxPx = std::max(maxPx, offsetPx);
                beyondHalfPx += offsetPx > 0.5;
                ++pixels;
            }
        }
    }
};

// bfv's sky/terrain mask of the view at `camera` (column-major, 1 where a pixel hits terrain):
// TracePlane over every plane of `fan`, each pixel at its own slope. A hit on the level ground
// bfv draws beyond the data counts as sky, as Embree's grid ends at the data's edge.
void TraceMask(const raytracer::TileCache& cache, const common::CameraPose& camera,
               const common::FanLayout& fan, const raytracer::CastSettings& settings,
               raytracer::ColumnScratch& scratch, std::vector<std::uint8_t>& hit) {
    hit.assign(fan.pixelIndex.size(), 0);
    raytracer::FrameRays rays = raytracer::FrameRaysOf(cache, camera, fan, settings);
    const terrain::PyramidInfo& info = cache.Info();
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        int start = fan.planeStart[p], rows = fan.planeStart[p + 1] - start;
        raytracer::TracePlane(cache, rays, p, {fan.pixelSlope.data() + start, std::size_t(rows)},
                              settings, scratch);
        common::HorizontalDirection dir = common::PlaneDirection(fan, p, camera.headingRad);
        for (int r = 0; r < rows; ++r) {
            double s = scratch.hitS[r];
            double xM = camera.eyeM.x + s * dir.dirX, yM = camera.eyeM.y + s * dir.dirY;
            hit[fan.pixelIndex[start + r]] = s >= 0.0 && xM >= 0.0 && xM <= info.dataWidthM &&
                                             yM >= 0.0 && yM <= info.dataDepthM;
        }
    }
}

// BM_PinholeAgreement/PITCH/W/H/AGL: the geometry figure of bfv's pinhole camera. At PITCH
// degrees, AGL metres above the flight's ground (the default flight's eye raised by AGL - 300 m),
// at 10 of the flight's poses, bfv's sky/terrain mask (the level of detail capped at the 64 m
// posts as in BM_TraceGrid, isotropic, exact intersection) against Embree's pinhole camera on
// the 64 m posts (EmbreeGrid::Cast). Counters: agreement_pct and mismatched_px (a view's mean);
// where the horizon is in view, silhouette_mean_px and silhouette_max_px, the offset of the
// topmost terrain row per column, and silhouette_columns; ray_offset_mean_px, ray_offset_max_px
// and rays_beyond_half_px (a view's mean): how far each pixel's ray in bfv's fan lands from the
// pixel's centre on the pinhole camera's screen (RayOffsets), the camera's error alone, at
// every pitch (at -45 and -89 no sky is in view and the masks agree trivially). Embree intersects
// two triangles a cell, bfv the bilinear patch: PITCH 0, where the fan's planes are the screen's
// columns and bfv's camera is exact, gives the floor that the two surfaces' difference alone
// leaves.
void BM_PinholeAgreement(benchmark::State& state) {
    constexpr int kPoseStep = 6;  // 10 of the flight's 60 poses
    const Scene& scene = LoadScene();
    common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(1)), static_cast<int>(state.range(2)));
    auto cache = std::make_unique<raytracer::TileCache>(raytracer::PinnedCache(*scene.startup));
    EmbreeGrid grid(*cache, GridLevel(scene));
    raytracer::CastSettings settings;
    settings.finestLevel = GridLevel(scene);
    settings.maxAnisotropy = 1.0;
    settings.secantMaxCellPixels = 0.0;
    double pitchRad = static_cast<double>(state.range(0)) * std::numbers::pi / 180.0;
    const common::FanLayout fan = common::BuildFanLayout(screen, pitchRad);
    raytracer::ColumnScratch scratch;
    std::vector<glm::dvec3> rays;
    std::vector<std::uint8_t> bfvHit, pinholeHit;
    MaskAgreement agreement;
    RayOffsets offsets;
    int pose = 0;
    for (auto _ : state) {
        common::CameraPose camera = scene.flight->PoseAt(pose);
        pose = (pose + kPoseStep) % kPoses;
        camera.eyeM.z += static_cast<double>(state.range(3)) - 300.0;
        camera.pitchRad = pitchRad;
        TraceMask(*cache, camera, fan, settings, scratch, bfvHit);
        grid.Cast(camera, screen, rays, &pinholeHit);
        agreement.Add(bfvHit, pinholeHit, screen.heightPx);
        offsets.Add(fan, camera);
    }
    double views = static_cast<double>(state.iterations());
    state.counters["agreement_pct"] =
        100.0 * (1.0 - static_cast<double>(agreement.mismatchedPx) / agreement.pixels);
    state.counters["mismatched_px"] = static_cast<double>(agreement.mismatchedPx) / views;
    state.counters["silhouette_columns"] = static_cast<double>(agreement.silhouetteColumns) / views;
    if (agreement.silhouetteColumns > 0) {
        state.counters["silhouette_mean_px"] =
            agreement.silhouetteSumPx / static_cast<double>(agreement.silhouetteColumns);
        state.counters["silhouette_max_px"] = agreement.silhouetteMaxPx;
    }
    state.counters["ray_offset_mean_px"] = offsets.sumPx / static_cast<double>(offsets.pixels);
    state.counters["ray_offset_max_px"] = offsets.maxPx;
    state.counters["rays_beyond_half_px"] = static_cast<double>(offsets.beyondHalfPx) / views;
    state.SetLabel("vs Embree's pinhole camera, 64 m grid");
}
// Its scenarios: pitch 0 and -8 1500 m up, the steeper pitches 300 and 1500 m up.
void PinholeAgreementViews(benchmark::internal::Benchmark* b) {
    for (std::int64_t pitch : {0, -8, -20, -45, -89}) {
        for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}}) {
            for (std::int64_t agl : {300, 1500}) {
                if (pitch > -10 && agl != 1500) continue;
                b->Args({pitch, w, h, agl});
            }
        }
    }
}
BENCHMARK(BM_PinholeAgreement)
    ->ArgNames({"pitch", "w", "h", "agl"})
    ->Apply(PinholeAgreementViews)
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

// Squared colour differences of a frame to the --supersample 4 reference over a mask of its
// pixels, in RGB levels (0-255).
struct MaskedError {
    double sumSquaredLevels = 0.0;
    long long channels = 0;

    void Add(const std::vector<common::Pixel>& frame, const std::vector<common::Pixel>& reference,
             const std::vector<std::uint8_t>& mask) {
        for (std::size_t i = 0; i < frame.size(); ++i) {
            if (!mask[i]) continue;
            const common::Rgb &a = frame[i], &b = reference[i];
            for (auto [u, v] : {std::pair{a.r, b.r}, std::pair{a.g, b.g}, std::pair{a.b, b.b}}) {
                double levels = static_cast<double>(u) - static_cast<double>(v);
                sumSquaredLevels += levels * levels;
                ++channels;
            }
        }
    }

    double PsnrDb() const {
        double mse = sumSquaredLevels / static_cast<double>(std::max(channels, 1LL));
        return mse == 0.0 ? std::numeric_limits<double>::infinity()
                          : 10.0 * std::log10(255.0 * 255.0 / mse);
    }
};

// The pixels the anti-aliasing figures are taken over, from a frame cast one ray a pixel
// (`hitS`, column-major; `water`: whether each pixel's hit is on the water's surface) and the
// reference: silhouettes (a pixel whose 3x3 neighbourhood holds both sky and ground, or hits more
// than 1.5 times apart in distance), shorelines (one that holds both water and land) and the
// other boundaries, materials (a pixel of the reference whose colour differs from a neighbour's
// by more than 48 levels summed over R, G and B).
struct EdgeMasks {
    std::vector<std::uint8_t> silhouette, shoreline, boundary;

    EdgeMasks(const std::vector<float>& hitS, const std::vector<std::uint8_t>& water,
              const std::vector<common::Pixel>& reference, const common::ScreenSpec& screen)
        : silhouette(hitS.size(), 0), shoreline(hitS.size(), 0), boundary(hitS.size(), 0) {
        const int w = screen.widthPx, h = screen.heightPx;
        auto at = [h](int x, int y) { return static_cast<std::size_t>(x) * h + y; };
        for (int x = 0; x < w; ++x) {
            for (int y = 0; y < h; ++y) {
                float nearest = std::numeric_limits<float>::infinity(), farthest = 0.0f;
                bool sky = false, ground = false, wet = false, dry = false, contrast = false;
                const common::Rgb p = reference[at(x, y)];
                for (int nx = std::max(0, x - 1); nx <= std::min(w - 1, x + 1); ++nx) {
                    for (int ny = std::max(0, y - 1); ny <= std::min(h - 1, y + 1); ++ny) {
                        float s = hitS[at(nx, ny)];
                        (s < 0.0f ? sky : ground) = true;
                        if (s >= 0.0f) {
                            nearest = std::min(nearest, s), farthest = std::max(farthest, s);
                            (water[at(nx, ny)] ? wet : dry) = true;
                        }
                        const common::Rgb q = reference[at(nx, ny)];
                        bool side = (nx == x) != (ny == y);
                        contrast |=
                            side &&
                            std::abs(p.r - q.r) + std::abs(p.g - q.g) + std::abs(p.b - q.b) > 48;
                    }
                }
                silhouette[at(x, y)] = (sky && ground) || (ground && farthest > 1.5f * nearest);
                shoreline[at(x, y)] = wet && dry && !silhouette[at(x, y)];
                boundary[at(x, y)] = contrast && !silhouette[at(x, y)] && !shoreline[at(x, y)];
            }
        }
    }
};

// Whether each pixel of a frame cast one ray a pixel (`hitS`, column-major) at `camera` through
// `fan` hits the water's surface at `waterLevelM`: its ray (fan.pixelSlope) at the hit's
// distance lies within a centimetre of it (the caster's rays lie on the posts' floats).
std::vector<std::uint8_t> WaterPixels(const std::vector<float>& hitS,
                                      const common::CameraPose& camera,
                                      const common::FanLayout& fan, double waterLevelM) {
    constexpr double kToleranceM = 0.01;
    std::vector<std::uint8_t> water(hitS.size(), 0);
    for (std::size_t k = 0; k < fan.pixelIndex.size(); ++k) {
        const std::size_t i = fan.pixelIndex[k];
        water[i] = hitS[i] >= 0.0f &&
                   camera.eyeM.z + fan.pixelSlope[k] * hitS[i] <= waterLevelM + kToleranceM;
    }
    return water;
}

// Anti-aliasing where it matters against the reference (--supersample 4), over 10 of the
// flight's poses (VIEW 0: the flight's, 300 m up, 30 deg down; 1: 1500 m up, 8 deg down, ridges
// against the sky; 2: the flight's with lakes, water at kShoreLevelM, as `--sea-level 550`
// draws them; 3: the window's opening view, 300 m up, 10 deg down, ridge behind ridge to the
// horizon), every tile resident: PSNR of silhouette, shoreline and other boundary pixels
// (EdgeMasks) and of all pixels, one ray a pixel (`off`) and anti-aliased (`on`); the time of a
// frame without and with it (one core), and the share of pixels re-sampled.
void BM_Antialias(benchmark::State& state) {
    constexpr int kPoseStep = 6;  // 10 of the flight's 60 poses
    const Scene& scene = LoadScene();
    const common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    constexpr double kShoreLevelM = 550.0;
    const bool ridges = state.range(2) == 1, shore = state.range(2) == 2,
               window = state.range(2) == 3;
    // The pitch of the views that do not look down as the flight does.
    const double pitchRad = (ridges ? -8.0 : -10.0) * std::numbers::pi / 180.0;
    const double waterLevelM = shore ? kShoreLevelM : terrain::kNoWaterM;
    auto cache = scene.CacheFor(screen, waterLevelM);
    const raytracer::CastSettings settings;
    common::CameraPose camera = scene.flight->PoseAt(0);
    if (ridges || window) camera.pitchRad = pitchRad;
    const common::FanLayout fan = common::BuildFanLayout(screen, camera.pitchRad);
    const common::FanLayout fineFan =
        common::BuildFanLayout(raytracer::SupersampledScreen(screen, 4), camera.pitchRad);
    const std::size_t pixels = static_cast<std::size_t>(screen.widthPx) * screen.heightPx;
    const common::ColumnSet everyColumn{0, 1, screen.widthPx};
    raytracer::ColumnScratch scratch;
    std::vector<common::Pixel> off(pixels), on(pixels), reference(pixels), fine;
    std::vector<float> hitS(pixels);
    raytracer::CastColumns cast;
    cast.heightPx = screen.heightPx;
    for (int x = 0; x < screen.widthPx; ++x) {
        cast.pixels.push_back(on.data() + static_cast<std::size_t>(x) * screen.heightPx);
        cast.hitS.push_back(hitS.data() + static_cast<std::size_t>(x) * screen.heightPx);
    }
    raytracer::EdgeColours edges;
    MaskedError silhouetteOff, silhouetteOn, shorelineOff, shorelineOn, boundaryOff, boundaryOn,
        allOff, allOn;
    double offS = 0.0, onS = 0.0, findS = 0.0, samplesS = 0.0, edgePixels = 0.0;
    int pose = 0;
    for (auto _ : state) {
        camera = scene.flight->PoseAt(pose);
        pose = (pose + kPoseStep) % kPoses;
        if (ridges) camera.eyeM.z += 1200.0;
        if (ridges || window) camera.pitchRad = pitchRad;
        const raytracer::FrameRays rays = raytracer::FrameRaysOf(*cache, camera, fan, settings);
        double startS = common::ThreadCpuS();
        for (int p = 0; p < fan.PlaneCount(); ++p) {
            raytracer::CastPlane(*cache, rays, p, settings, everyColumn, scratch, off.data());
        }
        double castS = common::ThreadCpuS();
        for (int p = 0; p < fan.PlaneCount(); ++p) {
            raytracer::CastPlane(*cache, rays, p, settings, everyColumn, scratch, on.data(),
                                 hitS.data());
        }
        const double findStartS = common::ThreadCpuS();
        raytracer::FindEdgePixels(cast, everyColumn, edges.edges);
        findS += common::ThreadCpuS() - findStartS;
        const double samplesStartS = common::ThreadCpuS();
        raytracer::AntialiasPixels(*cache, rays, settings, cast, edges.edges, scratch,
                                   edges.colours);
        samplesS += common::ThreadCpuS() - samplesStartS;
        for (std::size_t e = 0; e < edges.edges.size(); ++e) on[edges.edges[e]] = edges.colours[e];
        double endS = common::ThreadCpuS();
        offS += castS - startS;
        onS += endS - castS;
        edgePixels += static_cast<double>(edges.edges.size());
        raytracer::CastSupersampled(*cache, camera, settings, 4, fineFan, everyColumn, scratch,
                                    fine, reference.data());
        const EdgeMasks masks(hitS, WaterPixels(hitS, camera, fan, waterLevelM), reference, screen);
        silhouetteOff.Add(off, reference, masks.silhouette);
        silhouetteOn.Add(on, reference, masks.silhouette);
        shorelineOff.Add(off, reference, masks.shoreline);
        shorelineOn.Add(on, reference, masks.shoreline);
        boundaryOff.Add(off, reference, masks.boundary);
        boundaryOn.Add(on, reference, masks.boundary);
        const std::vector<std::uint8_t> all(pixels, 1);
        allOff.Add(off, reference, all);
        allOn.Add(on, reference, all);
    }
    const double frames = static_cast<double>(state.iterations());
    state.counters["silhouette_dB_off"] = silhouetteOff.PsnrDb();
    state.counters["silhouette_dB_on"] = silhouetteOn.PsnrDb();
    if (shore) {
        state.counters["shoreline_dB_off"] = shorelineOff.PsnrDb();
        state.counters["shoreline_dB_on"] = shorelineOn.PsnrDb();
        state.counters["shoreline_pct"] = 100.0 * static_cast<double>(shorelineOn.channels) / 3.0 /
                                          (frames * static_cast<double>(pixels));
    }
    state.counters["boundary_dB_off"] = boundaryOff.PsnrDb();
    state.counters["boundary_dB_on"] = boundaryOn.PsnrDb();
    state.counters["all_dB_off"] = allOff.PsnrDb();
    state.counters["all_dB_on"] = allOn.PsnrDb();
    state.counters["silhouette_pct"] = 100.0 * static_cast<double>(silhouetteOn.channels) / 3.0 /
                                       (frames * static_cast<double>(pixels));
    state.counters["resampled_pct"] = 100.0 * edgePixels / (frames * static_cast<double>(pixels));
    state.counters["ms_off"] = 1e3 * offS / frames;
    state.counters["ms_on"] = 1e3 * onS / frames;
    state.counters["ms_find"] = 1e3 * findS / frames;
    state.counters["ms_samples"] = 1e3 * samplesS / frames;
    state.SetLabel(ridges   ? "1500 m up, 8 deg down"
                   : shore  ? "the flight's views, lakes"
                   : window ? "300 m up, 10 deg down"
                            : "the flight's views");
}
BENCHMARK(BM_Antialias)
    ->ArgNames({"w", "h", "view"})
    ->ArgsProduct({{640}, {360}, {0, 1, 2, 3}})
    ->ArgsProduct({{1280}, {720}, {0, 1, 2, 3}})
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);

// The fan of a W x H screen rebuilt at pitch PITCH degrees (and a hundredth of a degree beside
// it, alternately, as while the pilot pitches): what every caster pays each frame the pitch
// changes.
void BM_BuildFanLayout(benchmark::State& state) {
    const common::ScreenSpec screen =
        Screen(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    const double pitchRad = static_cast<double>(state.range(2)) * common::kRadPerDeg;
    common::FanLayout fan;
    long long builds = 0;
    for (auto _ : state) {
        common::BuildFanLayout(screen, pitchRad + (builds % 2) * 0.01 * common::kRadPerDeg, fan);
        benchmark::DoNotOptimize(fan.pixelSlope.data());
        ++builds;
    }
    state.counters["planes"] = fan.PlaneCount();
}
BENCHMARK(BM_BuildFanLayout)
    ->ArgNames({"w", "h", "pitch"})
    ->ArgsProduct({{1280}, {720}, {-90, -30, -10, 0}})
    ->Unit(benchmark::kMillisecond);

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
// frames, and the tile's level: 3 (the finest stored level: materials of its own), 6 (a
// fractal tile, refined from it: the source's materials, the softened detail and field
// parcels) or 9 (the 1 m posts the demo streams most: tree crowns and their shadows too).
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
    ->ArgsProduct({{0, 8}, {3, 6, 9}})
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
