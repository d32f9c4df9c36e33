#pragma once

#include <optional>
#include <string>

#include "common/camera.h"
#include "common/column_codec.h"
#include "common/decomposition.h"
#include "common/expected.h"
#include "common/flight.h"
#include "common/ranges.h"

namespace bfv::common {

/// Terrain stream and cache: where the terrain comes from, how the terrain server streams its
/// tiles to the ray tracers and how much of it each tracer keeps.
struct TerrainOptions {
    std::string terrainPath;          // the .bfvp terrain pyramid (default: the shipped DEM)
    int terrainMessageBytes = 16384;  // = 16384 // terrain bytes per message (start-up and stream)
    double terrainBudgetBytesPerS = 4e6;  // = 4 MB/s // tile stream rate to each ray tracer
    bool terrainSync = false;  // = off // tracers wait for every tile a frame needs (deterministic)
    bool preload = true;       // = on // before frame 0, stream every tile the first view wants
    int cacheMiB = 128;        // = 128 // each ray tracer's bound on fine tiles, MiB (3477 tiles)
    int blendFrames = 8;       // = 8 // frames over which an arrived tile blends in

    /// Whether frame `frame` waits for every tile it wants: all frames with --terrain-sync,
    /// frame 0 with the preload (when tiles stream at all).
    bool WaitsForTiles(int frame) const {
        return terrainSync || (frame == 0 && preload && terrainBudgetBytesPerS > 0.0);
    }
};

/// View and flight: the screen and the path the eye flies.
struct ViewOptions {
    std::string flightPath;        // = "" // the default circuit; else a flight file (JSON)
    ScreenSpec screen;             // = 1280x720, 60 deg // pixels and horizontal field of view
    FlightStyle flightStyle;       // height above ground, pitch, speed of the default flight
    double frameDtS = 1.0 / 30.0;  // = 1/30 // flight time per frame when headless, seconds
    std::string recordPath;        // = "" // none; else write the poses flown here (a flight file)
};

/// Shading: how the ray caster picks levels of detail and lights the terrain.
struct ShadingOptions {
    double hazeHalfDistanceM = 9000.0;  // = 9000 // distance at which haze is 50%, metres
    double lodBias = 1.0;               // = 1 // footprint multiplier for the level of detail
    double maxAnisotropy = 4.0;         // = 4 // cap on the footprint's along-track stretch
    double secantMaxCellPixels = 4.0;   // = 4 // cells up to this many pixels take the secant;
                                        // 0 = exact intersection everywhere
    std::optional<double> seaLevelM;    // water surface, metres; none: 0 m if the DEM goes below
    bool water = true;                  // = on // off (--no-water): no water surface at all
    double sunAzimuthDeg = 315.0;       // = 315 // from north, clockwise (north-west sun)
    double sunElevationDeg = 45.0;      // = 45 // above the horizon, degrees
    bool shadows = true;                // = on // off (--no-shadows): Lambert shade only
    double exaggeration = 1.0;          // = 1 // vertical exaggeration: every height times this
    std::optional<double> snowLineM;    // snow line, metres (real heights); none: from latitude
    bool snow = true;                   // = on // off (--no-snow): no snow and no tree line
    bool antialias = true;              // = on // --antialias off: no extra rays on edge pixels
    int supersample = 1;  // = 1 // S: every pixel the mean of S x S rays (the reference)

    /// The water surface's height as drawn (the terrain's heights are exaggerated):
    /// seaLevelM times the exaggeration, metres; none if seaLevelM is none.
    std::optional<double> DrawnSeaLevelM() const {
        return seaLevelM ? std::optional<double>(*seaLevelM * exaggeration) : std::nullopt;
    }
};

/// Pipeline: how the work is spread over processes and threads, and how columns travel.
struct PipelineOptions {
    bool sequential = false;  // = off // one process does all three calculations
    int threads = 1;          // = 1 // ray-casting threads in --sequential mode
    Decomposition decomposition = Decomposition::Contiguous;  // = contiguous // columns per tracer
    int columnsPerMessage = 16;  // = 16 // MSGZ in columns per message to the display
    int receiveThreads = 1;      // = 1 // K: display threads receiving columns
    ColumnCodec columnCodec = ColumnCodec::None;  // = none // compression of the columns
};

/// Output and report: window or files, how many frames, and what is written where.
struct OutputOptions {
    bool headless = false;       // = off // no window: write report, checksums and PNGs to outDir
    int frames = 0;              // = 0 // frames to render; 0 = 300 headless, endless in a window
    int warmupFrames = 3;        // = 3 // first frames left out of the FPS statistics
    std::string outDir = "out";  // = "out" // where runs write their results
    int pngEvery = 100;          // = 100 // write a PNG every k frames (0 = none); last always
    std::string tracePath;       // = "" // none; else write every rank's timeline here (--trace)
    std::string serve;           // = "" // none; else [HOST:]PORT the display serves a page on

    /// Frames to render once defaults are applied (0 means "until the pilot quits": in a
    /// window, or headless when served to a browser).
    int FrameCount() const { return frames > 0 ? frames : (headless && serve.empty() ? 300 : 0); }
};

/// Prediction: the resource profile a --sequential run writes, or the profile and machine a
/// run's own prediction starts from.
struct PredictionOptions {
    std::string profilePath;  // = "" // none; --sequential: write the resource profile here
                              // (JSON); with machinePath: the profile this run's prediction uses
    std::string machinePath;  // = "" // none; else predict this run on the described cluster
};

/// Liveness: how long a silent rank is waited for.
struct LivenessOptions {
    double stallTimeoutS = 10.0;  // = 10 // a rank silent this long ends the job, s; 0 = never
};

/// Everything `bfv render` is told on its command line, by concern (the sections of
/// `bfv render --help`). Every rank parses the same command line, so every rank holds the same
/// options.
struct RenderOptions {
    TerrainOptions terrain;        // terrain stream and cache
    ViewOptions view;              // view and flight
    ShadingOptions shading;        // shading
    PipelineOptions pipeline;      // processes, threads, decomposition, columns messages
    OutputOptions output;          // output and report
    PredictionOptions prediction;  // resource profile and machine
    LivenessOptions liveness;      // stall timeout
};

/// Allowed values of the numeric options (ValidateRenderOptions checks them, --help prints
/// them). The flight's --agl, --pitch and --speed take flight.h's kAglRangeM, kPitchRangeDeg
/// and kSpeedRangeMPerS; --columns-per-message is 1..the screen width (a message never holds
/// more columns than the screen, and the display sizes each receive buffer for one message).
inline constexpr Range kFovRangeDeg = Range::Closed(1.0, 160.0, "degrees");
inline constexpr Range kReceiveThreadsRange = Range::Closed(1.0, 64.0, "threads");
inline constexpr Range kTerrainMessageRangeBytes = Range::Closed(64.0, 1 << 26, "bytes");
inline constexpr Range kTerrainBudgetRangeBytesPerS = Range::Closed(0.0, 1e12, "bytes/s");
inline constexpr Range kCacheRangeMiB = Range::Closed(0.0, 1 << 20, "MiB");
inline constexpr Range kBlendFramesRange = Range::Closed(0.0, 1000.0, "frames");
inline constexpr Range kFramesRange = Range::Closed(0.0, 1e7, "frames");  // --frames, --warmup
inline constexpr Range kPngEveryRange = Range::Closed(0.0, 1e7, "frames");
inline constexpr Range kThreadsRange = Range::Closed(1.0, 256.0, "threads");
inline constexpr Range kFrameDtRangeS = Range::AboveUpTo(0.0, 60.0, "s");
inline constexpr Range kHazeRangeM = Range::AboveUpTo(0.0, 1e7, "m");
inline constexpr Range kLodBiasRange = Range::AboveUpTo(0.0, 1000.0);
inline constexpr Range kMaxAnisotropyRange = Range::Closed(1.0, 64.0);
inline constexpr Range kSecantCellPixelsRange = Range::Closed(0.0, 64.0);
inline constexpr Range kSeaLevelRangeM = Range::Closed(-12000.0, 9000.0, "m");
inline constexpr Range kSunAzimuthRangeDeg = Range::Closed(0.0, 360.0, "degrees");
inline constexpr Range kSunElevationRangeDeg = Range::AboveUpTo(0.0, 90.0, "degrees");
inline constexpr Range kExaggerationRange = Range::AboveUpTo(0.0, 100.0);
inline constexpr Range kSnowLineRangeM = Range::Closed(-500.0, 9000.0, "m");
// --supersample: at most 4 rays per side (the fan of a 4x larger 1280x720 screen takes 200 MiB).
inline constexpr Range kSupersampleRange = Range::Closed(1.0, 4.0, "rays per side");

/// Checks the options against the job: `nRanks` is the MPI world size, or with --sequential
/// the number of processes the launcher started (0 or 1 without one: a --sequential run under
/// `mpiexec -n 4` would have four renders race on one output directory). Errors name the
/// option, its value and what is allowed ("--agl must be > 0 and <= 100000 m, got -2000").
Expected<void> ValidateRenderOptions(const RenderOptions& options, int nRanks);

/// Checks, before a run starts, that the files it writes at its end can be made: --record,
/// --trace and --profile (without --machine) in a folder that exists and may be written, and
/// --out a writable folder or one that can be made (its nearest existing ancestor writable).
/// Errors name the option and the path: "--record 'no/dir/flown.json': its folder 'no/dir'
/// does not exist", "--out 'report.json/x': 'report.json' is not a folder, so it cannot be
/// made". An MPI run's files are written by the display rank, which checks them on its host.
Expected<void> ValidateOutputFiles(const RenderOptions& options);

/// Largest --stall-timeout, seconds (a day).
inline constexpr double kMaxStallTimeoutS = 86400.0;

/// Smallest --stall-timeout but 0 (never), seconds. A healthy start-up keeps a tracer silent
/// for over a second: frame 0 waits for the first view's tiles (N = 4, 320x180 on a loaded
/// 2-core host: 1 s stalled 1 run in 2, 2 s none in 3, each run 2.6-3.2 s in all).
inline constexpr double kMinStallTimeoutS = 2.0;

/// Largest screen width or height bfv renders, pixels.
inline constexpr int kMaxScreenPx = 16384;

/// Parses a --size value "WIDTHxHEIGHT" (e.g. "1280x720") into screen.widthPx and heightPx,
/// leaving the field of view alone. Errors, each naming --size: not of that form, or a side
/// outside 1..kMaxScreenPx.
Expected<void> ParseScreenSize(const std::string& text, ScreenSpec& screen);

}  // namespace bfv::common
