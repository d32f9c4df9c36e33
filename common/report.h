#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cpu_quota.h"
#include "common/instrument.h"
#include "common/render_options.h"
#include "common/role.h"

namespace bfv::common {

/// The terrain server's tile stream over a run (zero on other ranks).
struct TerrainStreamStats {
    double tilesSent = 0.0;       // tiles streamed (each to every ray tracer)
    double bytesSent = 0.0;       // tile stream bytes, one copy (each tracer gets one)
    double tilesEvicted = 0.0;    // evictions the server ordered
    double tilesRead = 0.0;       // stored tiles read and checked from the file
    double tilesRefined = 0.0;    // tiles refined fractally
    double queueDepthMean = 0.0;  // wanted tiles not yet sent, mean over the server's samples
    double queueDepthMax = 0.0;
};

/// What one rank (or, in --sequential mode, one calculation) reports at the end of a run.
/// Trivially copyable, so ranks gather it as bytes.
struct RankSummary {
    int rank = 0;
    int role = 0;             // a common::Role
    double wallS = 0.0;       // wall time of the frame loop on this rank
    double peakRssMiB = 0.0;  // peak resident memory
    std::array<ActivityStats, kActivityCount> activities{};
    TerrainStreamStats terrain;
    double residentTileMiB = 0.0;  // ray tracers: terrain tiles resident at the end
    CpuQuota cpuQuota;             // its host's CPU quota (cgroup) and holds over the run
};
// GatherSummary sends it as bytes.
static_assert(std::is_trivially_copyable_v<RankSummary>);

/// Frame-rate statistics over per-frame times.
struct FpsStats {
    double mean = 0.0;    // frames / total time
    double median = 0.0;  // of per-frame FPS
    double p5 = 0.0;      // 5th percentile of per-frame FPS (a slow frame)
    double p95 = 0.0;     // 95th percentile
    int frames = 0;       // frames counted
};

/// Statistics of `frameTimesS` (seconds per frame, all positive); zeros when empty.
FpsStats ComputeFpsStats(std::span<const double> frameTimesS);

/// The predictor's frame rate for a run's own N, K, decomposition, message size and codec
/// (`bfv render --machine M.json --profile P.json`), to set beside the measured one.
struct RunPrediction {
    double fps = 0.0;                    // predicted frames per second
    std::string binding;                 // the term that binds, e.g. "ray trace"
    Role bindingRole = Role::RayTracer;  // the rank whose time per frame is the longest
    std::string machineName;             // the machine description's name
    std::string profilePath;             // the resource profile it started from
};

/// One ray tracer's slice of the screen over a run's frames after the warm-up: what a dynamic
/// split settled on, set beside the predictor's.
struct TracerSlice {
    double columnsSum = 0.0;  // its columns, summed over the frames counted
    double traceSSum = 0.0;   // its trace seconds, likewise
    int frames = 0;           // frames counted

    /// Mean columns and trace seconds per frame; 0 without frames.
    double ColumnsMean() const { return frames > 0 ? columnsSum / frames : 0.0; }
    double TraceSMean() const { return frames > 0 ? traceSSum / frames : 0.0; }
};

/// How a run was deployed.
enum class RunMode {
    Mpi,         // ranks of an MPI job (terrain server, ray tracers, display)
    Sequential,  // --sequential: one process does all three calculations
};

/// "mpi" or "sequential".
const char* RunModeName(RunMode mode);

/// How a run ended.
enum class RunEnd {
    Completed,    // every frame asked for was rendered, or the pilot quit
    Interrupted,  // SIGINT or SIGTERM
    Stalled,      // a rank stayed silent past --stall-timeout
    Failed,       // an error stopped the run mid-flight
    Lost,         // a rank's process ended without finishing (killed, crashed: peer_loss.h)
};

/// "completed", "interrupted", "stalled", "failed" or "lost".
const char* RunEndName(RunEnd end);

/// A run mode or end in JSON: its name (RunModeName, RunEndName).
void to_json(nlohmann::json& j, RunMode mode);
void to_json(nlohmann::json& j, RunEnd end);

/// Everything a run reports: the options it ran with, per-frame times and checksums, and
/// every rank's summary.
struct RunReport {
    RenderOptions options;
    RunMode mode = RunMode::Mpi;  // = mpi // how the run was deployed
    int nRanks = 0;               // MPI world size (1 for --sequential)
    std::string terrainName;
    std::vector<double> frameTimesS;        // per frame, at the display, warm-up included
    std::vector<std::uint64_t> checksums;   // per frame, of the palette-index image
    std::vector<double> resolutionDeficit;  // per frame: share of terrain samples rendered
                                            // coarser than their footprint asked for
    std::vector<double> traceImbalance;     // per frame (mpi mode): the slowest ray tracer's
                                            //  trace time over the tracers' mean
    std::vector<TracerSlice> slices;        // per ray tracer (mpi mode), after the warm-up
    std::vector<RankSummary> ranks;  // empty when the run ended before they could be gathered
    RunEnd end = RunEnd::Completed;  // = completed // how the run ended
    std::string endReason;           // what ended it, when not completed
    double columnRawBytes = 0.0;     // columns messages the display took, as if raw (mpi mode)
    int pngQueueWaits = 0;           // headless frames that waited for room in the PNG
                                     // writer's queue (display::PngWriter)
    double pngQueueWaitS = 0.0;      // their waits in all, seconds (in no frame's time)
    std::optional<RunPrediction> prediction;  // with --machine and --profile (mpi mode)

    /// FPS statistics without the warm-up frames.
    FpsStats Fps() const;
    /// Mean and largest trace imbalance without the warm-up frames (as Fps()); 0 when no frame
    /// measured it (--sequential).
    double TraceImbalanceMean() const;
    double TraceImbalanceMax() const;
    /// Bytes of columns messages the display received on the wire (its Receive traffic).
    double ColumnWireBytes() const;
    /// Measured mean FPS over predicted, less 1, in percent (negative: slower than predicted);
    /// 0 without a prediction.
    double PredictionErrorPct() const;
};

/// Where a run's time went, from its ranks' activities (wall time over the run): the ray tracers
/// bind where the busiest of them (the least idle) is idle under kTracerBoundIdleShare of its
/// time, idle meaning waiting for the next frame's command or for its columns to leave (Wait and
/// Send, over those and Trace and Pack); else the tracers wait on the display (its receive, its
/// link or its work), which binds. Set beside a prediction's RunPrediction::bindingRole.
struct MeasuredBinding {
    Role role = Role::RayTracer;          // RayTracer or Display
    double busiestTracerIdleShare = 0.0;  // 0..1
};

/// The idle share under which the busiest tracer binds (MeasureBinding). A tracer that binds
/// waits only for the display's next command, 0-5% of its time in the runs of
/// docs/benchmarking.md; one that waits on the display's link most of it.
inline constexpr double kTracerBoundIdleShare = 0.25;

/// The MeasuredBinding of a run whose ray tracers reported (an MPI run that gathered its
/// summaries); nullopt for --sequential and for a run without them.
std::optional<MeasuredBinding> MeasureBinding(const RunReport& report);

/// The report as JSON: how the run ended ("end", "endReason"), the prediction for this run
/// and its error when there is one ("prediction"), options, FPS statistics, per-frame
/// times, checksums and trace imbalance (traceImbalance, with traceImbalanceMean and
/// traceImbalanceMax), and per rank and activity wall time, CPU time and CPU%, bytes and messages,
/// with the source paper's per-frame resource characteristics (RTEX, CPU%, DVOL, MSGZ, #MSG);
/// where the time went ("measuredBinding": role and busiestTracerIdleShare, or null).
nlohmann::json ReportJson(const RunReport& report);

/// A one-screen human summary of the report.
std::string ReportSummary(const RunReport& report);

}  // namespace bfv::common
