#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/render_options.h"
#include "common/report.h"
#include "common/timeline.h"
#include "predict/model_cluster.h"
#include "predict/model_scaling.h"

namespace bfv::predict {

/// The predictor's answer for one N, next to the classical models' (docs/predictor.md), all
/// in frames per second. The comparisons take the serial fraction f of the sequential frame
/// (everything but the ray trace) and P = N - 2 tracers:
///   Amdahl       seqFps * 1 / (f + (1 - f) / P)                    (seed 001 eq. 1)
///   Gustafson    seqFps * (f + (1 - f) P): scaled work, an upper bound (seed 001 eq. 2)
///   Karp-Flatt   Amdahl with f fitted to measured points, when given (seed 001 eq. 8)
///   Hill-Marty   symmetric chip of P BCEs in cores of r = cpuSpeed^2 BCEs (seed 004 eq. 3)
///   Sun-Chen     memory-bounded speedup with G(P) = sqrt(P) (work grows with memory)
///   LatBw        seed 004's T_seq / SpeedupFT + messages at the display link's ALCBW and
///                MSGSETUP (its eqs. 13-18)
struct PredictRow {
    ClusterPrediction cluster;
    double amdahlFps = 0.0;
    double gustafsonFps = 0.0;
    std::optional<double> karpFlattFps;
    double hillMartyFps = 0.0;
    double sunChenFps = 0.0;
    double latencyBandwidthFps = 0.0;
    std::optional<double> measuredFps;  // from --measured, when it has this N
};

/// What the caller asks for: ranks to sweep and measured frame rates (N, FPS) if any.
struct PredictRequest {
    MeasuredApp measured;
    Machine machine;
    std::map<std::string, LinkProfile> links;
    ClusterRun run;  // n is set per row
    std::vector<int> ns;
    std::vector<std::pair<int, double>> measuredFps;
};

/// The request a resource profile (`bfv render --sequential --profile`) and a machine
/// description (`bfv predict --help`) make: the profile's screen size, message size and codec
/// none, contiguous slices, N = 3, no measured points. Errors as ReadResourceProfile and
/// ReadMachineFile (naming the file).
Expected<PredictRequest> LoadPredictRequest(const std::string& profilePath,
                                            const std::string& machinePath);

/// A render's own prediction: `request`'s cluster at N = `nRanks` with the render's screen
/// size, message size, decomposition, codec and display receive threads. Errors as
/// PredictCluster.
Expected<common::RunPrediction> PredictRender(PredictRequest request,
                                              const common::RenderOptions& options, int nRanks);

/// The predicted schedule of `frames` consecutive frames as a timeline (common/timeline.h),
/// the paper's schedule diagram in the form `bfv render --trace` measures: frame f starts at
/// f / fps; each ray tracer traces (its budget less the send term), then sends; the display
/// receives the frame on thread 1 from the end of the trace for the receive term and presents
/// it on thread 0 for the display-work term; the server streams terrain at the start of every
/// frame for the terrain term. Open both in ui.perfetto.dev to see where they part.
std::vector<common::RankTimeline> PredictedTimeline(const ClusterPrediction& cluster, int frames);

/// One row per N. Errors as PredictCluster, or for measured points that are not positive.
Expected<std::vector<PredictRow>> PredictRows(const PredictRequest& request);

/// A column codec's predicted frame rate on the request's cluster at its largest N.
struct CodecChoice {
    common::ColumnCodec codec = common::ColumnCodec::None;
    double fps = 0.0;
    Term binding = Term::RayTrace;
};

/// Every codec the profile measured, and none, predicted at the largest N of `request` (its
/// own codec set aside), fastest first; a compressing codec ranks above none only when it is
/// more than 1% faster, since it costs CPU on both sides. Errors as PredictCluster.
Expected<std::vector<CodecChoice>> ChooseColumnCodec(const PredictRequest& request);

/// One line: "column codec at N = 16: zstd 14.0 FPS, lz4 12.3, none 8.1: use --column-codec
/// zstd".
std::string CodecAdvice(const std::vector<CodecChoice>& choices, int n);

/// One line on what binds where, e.g. "ray trace bound up to N = 6, display receive bound
/// from N = 7 (plateau 41.2 FPS)".
std::string Verdict(const std::vector<PredictRow>& rows);

/// One faster machine against the cluster (eq. 7): the sequential program on a machine
/// `speedRatio` times faster, and, for `targetFps`, the fewest ranks that reach it and the
/// CPU speed ratio a single machine would need (nullopt where unreachable).
struct WhatIf {
    double speedRatio = 0.0;
    double singleMachineFps = 0.0;
    double targetFps = 0.0;
    std::optional<int> ranksForTarget;
    std::optional<double> speedRatioForTarget;
};
WhatIf ComputeWhatIf(const PredictRequest& request, const std::vector<PredictRow>& rows,
                     double speedRatio, double targetFps);

/// The human table: one line per N with FPS, binding term, the terms in ms and the
/// comparison models.
std::string PredictTable(const std::vector<PredictRow>& rows);

/// Everything as JSON: rows (with per-rank budgets), verdict and what-if.
nlohmann::json PredictJson(const std::vector<PredictRow>& rows, const std::string& verdict,
                           const WhatIf& whatIf);

}  // namespace bfv::predict
