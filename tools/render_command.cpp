// `bfv render`: options, their help, and the choice between MPI and --sequential.

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "pipeline/distributed.h"
#include "pipeline/sequential.h"
#include "tools/commands.h"

namespace bfv::tools {

namespace {

// The default pitch: headless, the source paper's benchmark view (30 degrees down from 300 m);
// in a window, a pilot's view with the horizon and the sky in it.
constexpr double kHeadlessPitchDeg = -30.0;
constexpr double kWindowPitchDeg = -10.0;

// Options CLI11 fills in before they are converted to RenderOptions.
struct RenderArgs {
    common::RenderOptions options;
    std::string size = "1280x720";
    std::string decomposition = "contiguous";
    std::string columnCodec = "none";
    std::string antialias = "on";
    double fovDeg = 60.0;
    double pitchDeg = kHeadlessPitchDeg;
    CLI::Option* pitch = nullptr;  // given or not
    double seaLevelM = 0.0;
    CLI::Option* seaLevel = nullptr;           // given or not
    CLI::Option* warmup = nullptr;             // given or not
    CLI::Option* columnsPerMessage = nullptr;  // given or not
};

// `bfv render --help`'s text before the options.
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
    "per pixel, pitch from straight down, -90 deg, to straight up, +90);\n"
    "+/- speed (x1.25, from a standstill 5 m/s); PageUp/PageDown or R/F height above ground\n"
    "(x1.25); space pause; H hide or show the HUD (text, frame-time graph, per-tracer\n"
    "trace-time bars); F12 screenshot of the window (HUD included when shown) to --out as\n"
    "screenshot_NNNN.png; Esc quit.\n"
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

// Terrain stream and cache: common::TerrainOptions.
void AddTerrainOptions(CLI::App& cmd, common::TerrainOptions& o) {
    CLI::Option_group* g = cmd.add_option_group("Terrain stream and cache");
    g->add_option("--terrain", o.terrainPath, "Terrain pyramid (.bfvp) made by `bfv import`")
        ->check(CLI::ExistingFile);
    g->add_option("--terrain-message-bytes", o.terrainMessageBytes,
                  Allowed("Terrain message size (start-up broadcast and tile stream)",
                          common::kTerrainMessageRangeBytes))
        ->capture_default_str();
    g->add_option("--terrain-budget", o.terrainBudgetBytesPerS,
                  Allowed("Tile stream bandwidth to each ray tracer (0: coarse levels only)",
                          common::kTerrainBudgetRangeBytesPerS))
        ->capture_default_str();
    g->add_flag("--terrain-sync", o.terrainSync,
                "Tracers wait for every tile a frame needs: identical frames for every N "
                "(the budget does not apply)");
    g->add_flag("!--no-preload", o.preload,
                "Start at once from the coarse levels instead of streaming every tile of the "
                "first view before frame 0 (the default, without the budget: no blurred "
                "start)");
    g->add_option("--cache-mib", o.cacheMiB,
                  Allowed("Each ray tracer's memory bound for fine tiles", common::kCacheRangeMiB))
        ->capture_default_str();
    g->add_option("--blend-frames", o.blendFrames,
                  Allowed("Frames over which a newly arrived tile blends in (0: at once)",
                          common::kBlendFramesRange))
        ->capture_default_str();
}

// View and flight: common::ViewOptions, with the screen and pitch as the user writes them.
void AddViewOptions(CLI::App& cmd, RenderArgs& a) {
    common::ViewOptions& o = a.options.view;
    CLI::Option_group* g = cmd.add_option_group("View and flight");
    g->add_option("--flight", o.flightPath,
                  "Flight file (JSON: waypoints or recorded poses); default: a loop")
        ->check(CLI::ExistingFile);
    g->add_option("--size", a.size, "Screen size WIDTHxHEIGHT in pixels")->capture_default_str();
    g->add_option("--fov", a.fovDeg, Allowed("Horizontal field of view", common::kFovRangeDeg))
        ->capture_default_str();
    g->add_option("--agl", o.flightStyle.aglM,
                  Allowed("Eye height above ground", common::kAglRangeM))
        ->capture_default_str();
    a.pitch =
        g->add_option("--pitch", a.pitchDeg,
                      Allowed(fmt::format("View pitch (negative looks down; -90 straight down); "
                                          "default {:g} headless (the source paper's view), {:g} "
                                          "in a window (horizon and sky in view)",
                                          kHeadlessPitchDeg, kWindowPitchDeg),
                              common::kPitchRangeDeg));
    g->add_option("--speed", o.flightStyle.speedMPerS,
                  Allowed("Ground speed", common::kSpeedRangeMPerS))
        ->capture_default_str();
    g->add_option("--frame-dt", o.frameDtS,
                  Allowed("Flight seconds per frame when headless", common::kFrameDtRangeS))
        ->capture_default_str();
    g->add_option("--record", o.recordPath,
                  "Write the poses flown (the pilot's in a window) to this flight file at the "
                  "end; `--flight FILE --headless` replays them, so a flight of your own "
                  "becomes a benchmark");
}

// Shading: common::ShadingOptions, with --sea-level's "given or not".
void AddShadingOptions(CLI::App& cmd, RenderArgs& a) {
    common::ShadingOptions& o = a.options.shading;
    CLI::Option_group* g = cmd.add_option_group("Shading");
    g->add_option("--haze", o.hazeHalfDistanceM,
                  Allowed("Distance at which haze is 50%", common::kHazeRangeM))
        ->capture_default_str();
    g->add_option("--lod-bias", o.lodBias,
                  Allowed("Level-of-detail bias (>1 coarser, faster)", common::kLodBiasRange))
        ->capture_default_str();
    g->add_option("--max-anisotropy", o.maxAnisotropy,
                  Allowed("Level of detail by a pixel's longer axis on the ground, as GPU mip "
                          "selection does: a row looking down at depression d reads posts up to "
                          "1/sin(d) times coarser than its width asks, at most this many times "
                          "(fewer cells walked near the horizon, less aliasing). 1 = isotropic, "
                          "the finest choice",
                          common::kMaxAnisotropyRange))
        ->capture_default_str();
    g->add_option("--secant-cell-pixels", o.secantMaxCellPixels,
                  Allowed("Where a terrain cell spans at most this many pixels, a ray meets it "
                          "at the straight line between the surface's heights at the cell's "
                          "edges (one division per pixel) instead of the exact bilinear "
                          "surface (a square root and a division); the two differ by under "
                          "0.1 colour level on average (PSNR about 60 dB, bfv_ray_caster_bench). "
                          "0 = exact everywhere",
                          common::kSecantCellPixelsRange))
        ->capture_default_str();
    a.seaLevel = g->add_option(
        "--sea-level", a.seaLevelM,
        Allowed("Water surface drawn over the terrain below it (default: 0 m where the DEM "
                "goes below 0 m, such as bathymetry; none otherwise)",
                common::kSeaLevelRangeM));
    g->add_flag("!--no-water", o.water, "Draw no water surface, whatever the heights");
    g->add_option(
         "--sun-azimuth", o.sunAzimuthDeg,
         Allowed("Direction of the sun, clockwise from north", common::kSunAzimuthRangeDeg))
        ->capture_default_str();
    g->add_option("--sun-elevation", o.sunElevationDeg,
                  Allowed("Height of the sun above the horizon; a low sun (15-30) brings out "
                          "the relief and casts long shadows",
                          common::kSunElevationRangeDeg))
        ->capture_default_str();
    g->add_option("--exaggeration", o.exaggeration,
                  Allowed("Vertical exaggeration: every height (and --sea-level, --snow-line) "
                          "times this, for low-relief terrain",
                          common::kExaggerationRange))
        ->capture_default_str();
    g->add_option("--snow-line", o.snowLineM,
                  Allowed("Height above which snow lies (less on steep slopes, none on cliffs); "
                          "forest gives way to scrub and rock from 900 m below it (default: "
                          "from the terrain's latitude, 2700 m at 45 degrees, 45 degrees if it "
                          "has no georeference)",
                          common::kSnowLineRangeM));
    g->add_flag("!--no-snow", o.snow, "No snow and no tree line, whatever the heights");
    g->add_flag("!--no-shadows", o.shadows,
                "Shade by the slope toward the sun only, without the shadows terrain casts");
    g->add_option(
         "--antialias", a.antialias,
         "on: a pixel whose colour differs from a neighbour's (a silhouette against "
         "the sky, a shoreline, a boundary between materials) is the mean of 2x4 rays "
         "through it (2 across, 4 down); off: one ray per pixel, about 1.5 times the frame "
         "rate where ridges stand against ridges to the horizon")
        ->check(CLI::IsMember({"on", "off"}))
        ->capture_default_str();
    g->add_option("--supersample", o.supersample,
                  Allowed("The reference render: every pixel the mean of S x S rays (the "
                          "S-times larger frame box filtered, at each pixel's level of detail; "
                          "S times S slower); --antialias does nothing with S > 1",
                          common::kSupersampleRange))
        ->capture_default_str();
}

// Pipeline: common::PipelineOptions, with the decomposition and codec as names.
void AddPipelineOptions(CLI::App& cmd, RenderArgs& a) {
    common::PipelineOptions& o = a.options.pipeline;
    CLI::Option_group* g = cmd.add_option_group("Pipeline");
    g->add_flag("--sequential", o.sequential,
                "Run all calculations in this one process (without mpiexec, or with -n 1)");
    g->add_option("--threads", o.threads,
                  Allowed("Ray-casting threads for --sequential", common::kThreadsRange))
        ->capture_default_str();
    g->add_option("--decomposition", a.decomposition,
                  "How tracers share the columns: contiguous (equal slices), interleaved (every "
                  "T-th column: looking down, each tracer then casts nearly every plane of the "
                  "pinhole camera, about 3x slower than contiguous at N = 4 and -30 degrees), or "
                  "dynamic (slices whose boundaries move every frame half way toward equal "
                  "work, the trace and the tiles', from the last frame's measured cost)")
        ->check(CLI::IsMember(NamesOf(common::kDecompositions)))
        ->capture_default_str();
    a.columnsPerMessage =
        g->add_option("--columns-per-message", o.columnsPerMessage,
                      "Message size (MSGZ) to the display, in screen columns (1 to the screen "
                      "width; by default 16, or the whole width of a narrower screen)")
            ->capture_default_str();
    g->add_option("-K,--receive-threads", o.receiveThreads,
                  Allowed("Display threads receiving columns (one per NIC on a cluster)",
                          common::kReceiveThreadsRange))
        ->capture_default_str();
    g->add_option("--column-codec", a.columnCodec,
                  "Compression of the columns to the display: none, lz4 (cheap) or zstd "
                  "(smaller); the report gives the ratio")
        ->check(CLI::IsMember(NamesOf(common::kColumnCodecs)))
        ->capture_default_str();
}

// Output and report: common::OutputOptions, with --warmup's "given or not".
void AddOutputOptions(CLI::App& cmd, RenderArgs& a) {
    common::OutputOptions& o = a.options.output;
    CLI::Option_group* g = cmd.add_option_group("Output and report");
    g->add_flag("--headless", o.headless, "No window: write report, checksums and PNGs to --out");
    g->add_option(
         "--frames", o.frames,
         Allowed("Frames to render (0: 300 headless, until Esc in a window)", common::kFramesRange))
        ->capture_default_str();
    a.warmup =
        g->add_option("--warmup", o.warmupFrames,
                      Allowed("First frames left out of the FPS statistics; fewer than --frames",
                              common::kFramesRange));
    a.warmup->capture_default_str();
    g->add_option("--out", o.outDir,
                  "Output directory: report.json and checksums.txt of every run, the frames' "
                  "PNGs with --headless, F12 screenshots")
        ->capture_default_str();
    g->add_option("--serve", o.serve,
                  "[HOST:]PORT: serve the run to a browser (the page's URL with its access token "
                  "is printed at start): the frames, the HUD, and the pilot's keys and mouse "
                  "back. HOST is 127.0.0.1 unless given; 0.0.0.0 lets other machines in (anyone "
                  "with the token can watch and fly). Headless with --serve runs until the "
                  "page's Esc or quit when --frames is 0. See docs/serve.md");
    g->add_option("--png-every", o.pngEvery,
                  Allowed("Write a PNG every k frames (0: only the last)", common::kPngEveryRange))
        ->capture_default_str();
    g->add_option("--trace", o.tracePath,
                  "Write every rank's timeline (trace, pack, send, receive per display thread, "
                  "waits, present, the server's reads) as Chrome trace events to this JSON file: "
                  "open it in ui.perfetto.dev, beside `bfv predict --trace`'s predicted frames. "
                  "Each thread keeps its first 200000 events");
}

// Prediction: common::PredictionOptions.
void AddPredictionOptions(CLI::App& cmd, common::PredictionOptions& o) {
    CLI::Option_group* g = cmd.add_option_group("Prediction");
    g->add_option("--profile", o.profilePath,
                  "With --sequential: write the resource profile (RTEX, CPU%, DVOL, MSGZ per "
                  "calculation) that `bfv predict` reads, to this JSON file. With --machine: "
                  "read it, to predict this run");
    g->add_option("--machine", o.machinePath,
                  "Machine description (see `bfv predict --help`): the summary and report.json "
                  "give the predicted FPS for this run's N, K, decomposition, message size and "
                  "codec, the binding term and the measured error; needs --profile")
        ->check(CLI::ExistingFile);
}

// Liveness: common::LivenessOptions.
void AddLivenessOptions(CLI::App& cmd, common::LivenessOptions& o) {
    CLI::Option_group* g = cmd.add_option_group("Liveness");
    g->add_option("--stall-timeout", o.stallTimeoutS,
                  "Seconds a rank may stay silent (no columns, commands or tiles) before the "
                  "job ends naming it, with the report written as \"stalled\"; 0 waits "
                  "forever, else at least 2 (frame 0 waits for the first view's tiles). The "
                  "display judges tracers and the terrain server after this time, the terrain "
                  "server the display after it too (the display sends heartbeats while it "
                  "waits), tracers the terrain server after half of it, every other wait "
                  "after twice it; start-up (before frame 0) after six times it")
        ->capture_default_str();
}

// Every option of `bfv render`, one CLI11 option group (a section of --help) per concern.
void AddOptions(CLI::App& cmd, RenderArgs& a) {
    AddTerrainOptions(cmd, a.options.terrain);
    AddViewOptions(cmd, a);
    AddShadingOptions(cmd, a);
    AddPipelineOptions(cmd, a);
    AddOutputOptions(cmd, a);
    AddPredictionOptions(cmd, a.options.prediction);
    AddLivenessOptions(cmd, a.options.liveness);
}

// Turns the parsed strings into RenderOptions; throws CLI::ValidationError on a bad --size.
common::RenderOptions Finish(RenderArgs a) {
    common::RenderOptions o = a.options;
    if (auto ok = common::ParseScreenSize(a.size, o.view.screen); !ok) {
        throw CLI::ValidationError(ok.error().message);
    }
    o.view.screen.hFovRad = a.fovDeg * common::kRadPerDeg;
    double pitchDeg = a.pitch->count() > 0 || o.output.headless ? a.pitchDeg : kWindowPitchDeg;
    o.view.flightStyle.pitchRad = pitchDeg * common::kRadPerDeg;
    if (a.seaLevel->count() > 0) o.shading.seaLevelM = a.seaLevelM;
    // The default message size fits any screen; one asked for must (ValidateRenderOptions).
    if (a.columnsPerMessage->count() == 0) {
        o.pipeline.columnsPerMessage =
            std::min(o.pipeline.columnsPerMessage, o.view.screen.widthPx);
    }
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
    o.shading.antialias = a.antialias == "on";                                // checked by IsMember
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
