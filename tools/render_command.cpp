// `bfv render`: options, their help, and the choice between MPI and --sequential.

#include <fmt/format.h>

#include <memory>
#include <string>

#include "pipeline/distributed.h"
#include "pipeline/sequential.h"
#include "tools/commands.h"

namespace bfv::tools {

namespace {

// Options CLI11 fills in before they are converted to RenderOptions.
struct RenderArgs {
    common::RenderOptions options;
    std::string size = "1280x720";
    std::string decomposition = "contiguous";
    std::string columnCodec = "none";
    double fovDeg = 60.0;
    double pitchDeg = -30.0;
    double seaLevelM = 0.0;
    CLI::Option* seaLevel = nullptr;  // given or not
    CLI::Option* warmup = nullptr;    // given or not
};

const char* kRenderHelp =
    "Fly the viewpoint over the terrain and ray-cast every frame.\n"
    "  mpiexec -n N bfv render [options]   N >= 3: rank 0 serves terrain, ranks 1..N-2 trace\n"
    "                                      rays, rank N-1 displays\n"
    "  bfv render --sequential [--threads T]   the same frames in one process\n"
    "Default flight: the source paper's case, 300 m above the ground, looking 30 deg down,\n"
    "at 26.8 m/s (60 mph), on a loop over the shipped terrain.\n"
    "Terrain: the server streams tiles (down to 1 m posts) within --terrain-budget; tracers\n"
    "render from what has arrived, falling back to coarse levels (the report's resolution\n"
    "deficit). --terrain-sync waits for every tile: identical frames for every N.\n"
    "Window keys: arrows/WASD steer; drag with the left mouse button to look (0.004 rad\n"
    "per pixel, pitch within +-75 deg); +/- speed (x1.25, from a standstill 5 m/s);\n"
    "PageUp/PageDown or R/F height above ground (x1.25); space pause; H hide or show the\n"
    "HUD (text, frame-time graph, per-tracer trace-time bars); F12 screenshot of the window\n"
    "(HUD included when shown) to --out as screenshot_NNNN.png; Esc quit.\n"
    "--record FILE saves the flight flown, --flight FILE --headless replays it.\n"
    "Every run writes DIR/report.json (FPS and the per-rank resource matrix) and\n"
    "DIR/checksums.txt to --out DIR (default out); --headless --frames 300 also writes the\n"
    "frames as DIR/frame_NNNNN.png.\n"
    "Ctrl-C (SIGINT) or SIGTERM, to mpiexec or to any rank, ends the run after the current\n"
    "frame with the report of the frames so far (\"end\": \"interrupted\", exit 130 or 143);\n"
    "a rank that stops answering ends it too (--stall-timeout, \"end\": \"stalled\").\n"
    "Profile for the predictor: bfv render --sequential --headless --profile profile.json";

// An option's help followed by the values ValidateRenderOptions allows: "Ground speed
// (>= 0 and <= 10000 m/s)".
std::string Allowed(const std::string& help, const common::Range& range) {
    return help + " (" + range.Describe() + ")";
}

void AddOptions(CLI::App& cmd, RenderArgs& a) {
    common::RenderOptions& o = a.options;
    cmd.add_option("--terrain", o.terrain.terrainPath,
                   "Terrain pyramid (.bfvp) made by `bfv import`")
        ->check(CLI::ExistingFile);
    cmd.add_option("--flight", o.view.flightPath,
                   "Flight file (JSON: waypoints or recorded poses); default: a loop")
        ->check(CLI::ExistingFile);
    cmd.add_option("--size", a.size, "Screen size WIDTHxHEIGHT in pixels")->capture_default_str();
    cmd.add_option("--fov", a.fovDeg, Allowed("Horizontal field of view", common::kFovRangeDeg))
        ->capture_default_str();
    cmd.add_option("--decomposition", a.decomposition,
                   "How tracers share the columns: contiguous (equal slices), interleaved, or "
                   "dynamic (slices whose boundaries move every frame half way toward equal "
                   "trace time, from the last frame's measured cost)")
        ->check(CLI::IsMember(NamesOf(common::kDecompositions)))
        ->capture_default_str();
    cmd.add_option("--columns-per-message", o.pipeline.columnsPerMessage,
                   "Message size (MSGZ) to the display, in screen columns (1 to the screen width)")
        ->capture_default_str();
    cmd.add_option("--column-codec", a.columnCodec,
                   "Compression of the columns to the display: none, lz4 (cheap) or zstd "
                   "(smaller); the report gives the ratio")
        ->check(CLI::IsMember(NamesOf(common::kColumnCodecs)))
        ->capture_default_str();
    cmd.add_option("-K,--receive-threads", o.pipeline.receiveThreads,
                   Allowed("Display threads receiving columns (one per NIC on a cluster)",
                           common::kReceiveThreadsRange))
        ->capture_default_str();
    cmd.add_option("--terrain-message-bytes", o.terrain.terrainMessageBytes,
                   Allowed("Terrain message size (start-up broadcast and tile stream)",
                           common::kTerrainMessageRangeBytes))
        ->capture_default_str();
    cmd.add_option("--terrain-budget", o.terrain.terrainBudgetBytesPerS,
                   Allowed("Tile stream bandwidth to each ray tracer (0: coarse levels only)",
                           common::kTerrainBudgetRangeBytesPerS))
        ->capture_default_str();
    cmd.add_flag("--terrain-sync", o.terrain.terrainSync,
                 "Tracers wait for every tile a frame needs: identical frames for every N "
                 "(the budget does not apply)");
    cmd.add_flag("!--no-preload", o.terrain.preload,
                 "Start at once from the coarse levels instead of streaming every tile of the "
                 "first view before frame 0 (the default, without the budget: no blurred "
                 "start)");
    cmd.add_option("--cache-mib", o.terrain.cacheMiB,
                   Allowed("Each ray tracer's memory bound for fine tiles", common::kCacheRangeMiB))
        ->capture_default_str();
    cmd.add_option("--blend-frames", o.terrain.blendFrames,
                   Allowed("Frames over which a newly arrived tile blends in (0: at once)",
                           common::kBlendFramesRange))
        ->capture_default_str();
    cmd.add_flag("--headless", o.output.headless,
                 "No window: write report, checksums and PNGs to --out");
    cmd.add_option("--frames", o.output.frames,
                   Allowed("Frames to render (0: 300 headless, until Esc in a window)",
                           common::kFramesRange))
        ->capture_default_str();
    a.warmup =
        cmd.add_option("--warmup", o.output.warmupFrames,
                       Allowed("First frames left out of the FPS statistics; fewer than --frames",
                               common::kFramesRange));
    a.warmup->capture_default_str();
    cmd.add_option("--out", o.output.outDir,
                   "Output directory: report.json and checksums.txt of every run, the frames' "
                   "PNGs with --headless, F12 screenshots")
        ->capture_default_str();
    cmd.add_option("--png-every", o.output.pngEvery,
                   Allowed("Write a PNG every k frames (0: only the last)", common::kPngEveryRange))
        ->capture_default_str();
    cmd.add_option("--frame-dt", o.view.frameDtS,
                   Allowed("Flight seconds per frame when headless", common::kFrameDtRangeS))
        ->capture_default_str();
    cmd.add_flag("--sequential", o.pipeline.sequential,
                 "Run all calculations in this one process (without mpiexec, or with -n 1)");
    cmd.add_option("--threads", o.pipeline.threads,
                   Allowed("Ray-casting threads for --sequential", common::kThreadsRange))
        ->capture_default_str();
    cmd.add_option("--profile", o.prediction.profilePath,
                   "With --sequential: write the resource profile (RTEX, CPU%, DVOL, MSGZ per "
                   "calculation) that `bfv predict` reads, to this JSON file. With --machine: "
                   "read it, to predict this run");
    cmd.add_option("--machine", o.prediction.machinePath,
                   "Machine description (see `bfv predict --help`): the summary and report.json "
                   "give the predicted FPS for this run's N, K, decomposition, message size and "
                   "codec, the binding term and the measured error; needs --profile")
        ->check(CLI::ExistingFile);
    cmd.add_option("--haze", o.shading.hazeHalfDistanceM,
                   Allowed("Distance at which haze is 50%", common::kHazeRangeM))
        ->capture_default_str();
    cmd.add_option("--lod-bias", o.shading.lodBias,
                   Allowed("Level-of-detail bias (>1 coarser, faster)", common::kLodBiasRange))
        ->capture_default_str();
    cmd.add_option("--max-anisotropy", o.shading.maxAnisotropy,
                   Allowed("Level of detail by a pixel's longer axis on the ground, as GPU mip "
                           "selection does: a row looking down at depression d reads posts up to "
                           "1/sin(d) times coarser than its width asks, at most this many times "
                           "(fewer cells walked near the horizon, less aliasing). 1 = isotropic, "
                           "the finest choice",
                           common::kMaxAnisotropyRange))
        ->capture_default_str();
    cmd.add_option("--secant-cell-pixels", o.shading.secantMaxCellPixels,
                   Allowed("Where a terrain cell spans at most this many pixels, a ray meets it "
                           "at the straight line between the surface's heights at the cell's "
                           "edges (one division per pixel) instead of the exact bilinear "
                           "surface (a square root and a division); the two differ by under "
                           "0.1 colour level on average (PSNR about 60 dB, bfv_ray_caster_bench). "
                           "0 = exact everywhere",
                           common::kSecantCellPixelsRange))
        ->capture_default_str();
    a.seaLevel = cmd.add_option(
        "--sea-level", a.seaLevelM,
        Allowed("Water surface drawn over the terrain below it (default: 0 m where the DEM "
                "goes below 0 m, such as bathymetry; none otherwise)",
                common::kSeaLevelRangeM));
    cmd.add_flag("!--no-water", o.shading.water, "Draw no water surface, whatever the heights");
    cmd.add_option(
           "--sun-azimuth", o.shading.sunAzimuthDeg,
           Allowed("Direction of the sun, clockwise from north", common::kSunAzimuthRangeDeg))
        ->capture_default_str();
    cmd.add_option("--sun-elevation", o.shading.sunElevationDeg,
                   Allowed("Height of the sun above the horizon; a low sun (15-30) brings out "
                           "the relief and casts long shadows",
                           common::kSunElevationRangeDeg))
        ->capture_default_str();
    cmd.add_flag("!--no-shadows", o.shading.shadows,
                 "Shade by the slope toward the sun only, without the shadows terrain casts");
    cmd.add_option("--agl", o.view.flightStyle.aglM,
                   Allowed("Eye height above ground", common::kAglRangeM))
        ->capture_default_str();
    cmd.add_option("--pitch", a.pitchDeg,
                   Allowed("View pitch (negative looks down); no steeper than 89.4 degrees less "
                           "half the vertical field of view, so that no ray passes the nadir "
                           "(71.4 at 1280x720 with --fov 60)",
                           common::kPitchRangeDeg))
        ->capture_default_str();
    cmd.add_option("--speed", o.view.flightStyle.speedMPerS,
                   Allowed("Ground speed", common::kSpeedRangeMPerS))
        ->capture_default_str();
    cmd.add_option("--record", o.view.recordPath,
                   "Write the poses flown (the pilot's in a window) to this flight file at the "
                   "end; `--flight FILE --headless` replays them, so a flight of your own "
                   "becomes a benchmark");
    cmd.add_option("--trace", o.output.tracePath,
                   "Write every rank's timeline (trace, pack, send, receive per display thread, "
                   "waits, present, the server's reads) as Chrome trace events to this JSON file: "
                   "open it in ui.perfetto.dev, beside `bfv predict --trace`'s predicted frames. "
                   "Each thread keeps its first 200000 events");
    cmd.add_option("--stall-timeout", o.liveness.stallTimeoutS,
                   "Seconds a rank may stay silent (no columns, commands or tiles) before the "
                   "job ends naming it, with the report written as \"stalled\"; 0 waits "
                   "forever. The display judges tracers after this time, tracers the terrain "
                   "server after half of it, every other wait after twice it")
        ->capture_default_str();
}

// Turns the parsed strings into RenderOptions; throws CLI::ValidationError on a bad --size.
common::RenderOptions Finish(RenderArgs a) {
    common::RenderOptions o = a.options;
    if (auto ok = common::ParseScreenSize(a.size, o.view.screen); !ok) {
        throw CLI::ValidationError(ok.error().message);
    }
    o.view.screen.hFovRad = a.fovDeg * common::kRadPerDeg;
    o.view.flightStyle.pitchRad = a.pitchDeg * common::kRadPerDeg;
    if (a.seaLevel->count() > 0) o.shading.seaLevelM = a.seaLevelM;
    // A default warm-up longer than a short run counts every frame; one asked for must leave
    // frames to count.
    if (a.warmup->count() > 0 && o.output.FrameCount() > 0 &&
        o.output.warmupFrames >= o.output.FrameCount()) {
        throw CLI::ValidationError(fmt::format(
            "--warmup {} leaves no frame of --frames {} to count: give fewer warm-up frames",
            o.output.warmupFrames, o.output.FrameCount()));
    }
    o.pipeline.columnCodec = *common::ParseColumnCodec(a.columnCodec);        // checked by IsMember
    o.pipeline.decomposition = *common::ParseDecomposition(a.decomposition);  // checked by IsMember
    return o;
}

}  // namespace

void AddRenderCommand(CLI::App& app) {
    auto args = std::make_shared<RenderArgs>();
    args->options.terrain.terrainPath = BFV_DEFAULT_TERRAIN;
    CLI::App* cmd = AddSubcommand(app, "render", kRenderHelp);
    AddOptions(*cmd, *args);
    cmd->callback([args] {
        common::RenderOptions options = Finish(*args);
        int code = options.pipeline.sequential ? pipeline::RunSequential(options)
                                               : pipeline::RunDistributed(options);
        if (code != 0) throw CLI::RuntimeError(code);
    });
}

}  // namespace bfv::tools
