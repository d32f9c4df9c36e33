#pragma once

// The parallel schedule: section 4 of the source paper (eqs. 20-22; Baer and Decato, "Software
// Performance Modeling in PC Clusters"), as docs/predictor.md reconstructs it. Ranks: 0 is the
// terrain server, 1..N-2 the ray tracers (each traces 1/(N-2) of the screen), N-1 the display.

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "predict/model_app.h"
#include "predict/model_comm.h"

namespace bfv::predict {

/// A term of a frame's budget: what limits the frame rate.
enum class Term {
    RayTrace,        // tracing the tracer's share of the screen
    Send,            // CPU cost of sending that share to the display
    DisplayReceive,  // the display receiving the whole screen
    DisplayWork,     // the display turning colour indices into the window
    TerrainStream,   // moving the terrain broadcast (per second of flight, not per frame)
    HostCpu,         // ranks sharing a host's cores
    HostQuota,       // ranks sharing a host's CPU quota (a cgroup's), its holds included
};
inline constexpr int kTermCount = 7;

/// Lower-case name of a term for reports: "ray trace", "display receive", "host cpu",
/// "host quota".
std::string_view TermName(Term term);

/// Seconds per frame of each term, indexed by static_cast<int>(Term).
using TermSeconds = std::array<double, kTermCount>;

/// One host of the cluster as the schedule sees it.
struct Host {
    int cores = 1;               // cores; the host gives at most cores CPU-seconds per second
    double cpuSpeedRatio = 1.0;  // CPUSPEED[host] / CPUSPEED[machine the app was measured on]
};

/// Everything the schedule needs, so that a machine description can feed it: the application
/// measured sequentially, the links, the display's receive arrangement and the hosts.
struct ScheduleInputs {
    AppCharacteristics app;              // measured on one CPU (SeedCase() for the paper)
    LinkParams terrainLink;              // terrain server -> ray tracers
    LinkParams screenLink;               // ray tracers -> display
    double displayReceiveSpeedup = 1.0;  // = 1 // display receive rate factor from several NICs
                                         //  and receive threads (Table 4: 1.2; eq. 20 text: 1.6)
    bool bufferColumns = false;          // = false // true: a tracer sends its share as one
                                         //  message per frame, MSGZ = DVOL / (N - 2) (eq. 22b)
    std::vector<Host> hosts;             // empty: each rank alone on a one-core host of the
                                         //  measured speed (the paper); else rank r on
                                         //  hosts[r % hosts.size()]
};

/// The coefficients of eq. 20, in the paper's own rounded numbers where it prints them.
struct TimeSliceTerms {
    double terrainSPerS = 0.0;             // terrain broadcast, seconds per second (0.25)
    double traceSPerFrame = 0.0;           // whole-screen trace on one tracer (0.6)
    double screenTransferSPerFrame = 0.0;  // whole screen to the display (0.16)
    double displayWorkSPerFrame = 0.0;     // display (0.04)
    double displayReceiveSpeedup = 1.0;    // divides the transfer (0.16 / 0.1 with 6 threads)
};

/// The predicted frame rate for N ranks, the term that limits it and every term's seconds per
/// frame at that rate (per-second terms divided by the FPS).
struct Prediction {
    int n = 0;                      // ranks: terrain server + N - 2 tracers + display
    double fps = 0.0;               // predicted frames per second
    Term binding = Term::RayTrace;  // the largest term of the node (or host) that limits FPS
    TermSeconds sPerFrame{};        // seconds per frame by term; 0 for terms not in the model

    /// Seconds per frame of one term.
    double SPerFrame(Term term) const { return sPerFrame[static_cast<int>(term)]; }
};

/// Which of the paper's schedules to predict with.
enum class ScheduleKind {
    TimeSlices,   // eq. 20: trace, send and display in sequence within a frame (figure 5)
    NodeBudgets,  // eqs. 21-22: each node's threads overlap; FPS = min over nodes (figure 6)
};

/// Checks app, links, speedup and hosts; the message names the field, e.g.
/// "link 'screen': alcbwBytesPerS must be > 0, got -3".
Expected<void> ValidateScheduleInputs(const ScheduleInputs& inputs);

/// Checks N for this application: at least 3 (server, one tracer, display) and at most one
/// screen column per tracer, e.g. "schedule: n must be >= 3, got 2".
Expected<void> ValidateRankCount(const ScheduleInputs& inputs, int n);

/// The coefficients of eq. 20 computed from the inputs: terrain seconds per second from eq. 18
/// on the terrain link, the screen transfer from eq. 18 on the screen link, trace and display
/// moved to the slowest tracer host and the display host by eq. 7. Requires valid inputs.
TimeSliceTerms TimeSliceTermsFor(const ScheduleInputs& inputs, int n);

/// Eq. 20 over one second of run: 1 = terrainSPerS + FPS * (trace / (N - 2) + transfer /
/// speedup + display). The binding term is the longest time slice per frame. Errors when
/// n < 3 or a coefficient is negative.
Expected<Prediction> PredictTimeSlices(const TimeSliceTerms& terms, int n);

/// Eq. 20 with coefficients from TimeSliceTermsFor (host CPU sharing not modelled).
Expected<Prediction> PredictTimeSlices(const ScheduleInputs& inputs, int n);

/// Eqs. 22a/22b: each tracer node runs terrain receive, trace and send as threads (eq. 21),
/// 1 = CPU%·terrainSPerS + FPS·(trace/(N-2) + CPU%·send); the display node
/// 1 = FPS·(display + screen / (speedup · A2ABW(MSGZ))); each host can give at most cores
/// CPU-seconds per second to the ranks on it. FPS is the minimum over nodes and hosts; CPU%
/// is the large-message limit of eq. 19.
Expected<Prediction> PredictNodeBudgets(const ScheduleInputs& inputs, int n);

/// Predictions for each N in ns with the chosen schedule; the first invalid N is an error.
Expected<std::vector<Prediction>> PredictSweep(const ScheduleInputs& inputs, ScheduleKind kind,
                                               std::span<const int> ns);

}  // namespace bfv::predict
