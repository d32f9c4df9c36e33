#pragma once

// A discrete-event simulation of bfv's frame schedule with SimGrid (`bfv predict --simulate`):
// the analytic predictor (PredictCluster) takes the longest per-frame budget of any rank, link
// or host as the frame period; the simulator plays the frames out instead, on a platform built
// from the same machine description and starting from the same per-rank costs
// (ClusterFrameCosts), so that the two part only where the schedule itself does:
//   - the display sends frame f+1's command before it takes frame f in, so two frames are in
//     flight; a command's latency and a frame's transfer and display work are on the path
//     between a tracer finishing a frame and starting the frame after next;
//   - concurrent senders share a link (max-min fairness, SimGrid's CM02 model) and overlap their
//     message set-ups, where eq. 18 charges the display's NIC every message's MSGSETUP in turn;
//   - ranks on one host share its cores as the simulated actors run, not as a sum of budgets,
//     and an actor waiting for a message (tracer and server for a command, receive threads for
//     columns) polls as bfv's waits do, at the intra-host link's waitCost share of a core for
//     a wait as long as its last one (waitCostBusy on a host with more ranks than cores), where
//     the model charges every rank's whole idle time. Where a host's ranks outnumber its cores
//     and the profile measured the scheduler's tick, its cores take the tracers' frames in
//     turns (SimGrid alone shares a host's CPU smoothly): each tracer starts on the core the
//     model's CrowdedMakespanS places it on (PlaceOnCores) and holds it a tick at a time,
//     waiting for its own core while another may stand idle, and moving to a free core only
//     after a tick; the display's and the server's short pieces run beside the turns;
//   - a tracer host's own NIC is shared by the tracers placed on it (the analytic model charges
//     only the display's NICs), and an optional shared switch backplane (machine field
//     "switchBytesPerS") is crossed by every remote transfer.
// The platform: every host of the machine with its cores at cpuSpeed; each NIC a link at the
// sustained bandwidth of its profile (as PredictCluster takes it) with the profile's MSGSETUP as
// latency, on the display's side; tracers on the display's host cross its intra-host link. A
// tracer decodes the streamed tiles, traces its share (the CPU part as work on its host, the rest
// as waiting), spends its send CPU, then its columns travel as the run's messages, one after
// another; receive thread t mod K takes tracer t's messages in on the display's CPU; the display
// then does its work; the terrain server does its own per frame on its host. Commands carry only
// the link's latency. A rank's work runs at most at one core's cpuSpeed, and the ranks on a host
// together at most at its capacityCores cores' work, or its CPU quota's; on a host with a quota,
// a tracer woken by its command first waits out the quota's hold (QuotaHoldS: the quota spent
// by the host's other ranks) at the share of the quota its host's ranks, polling included, have
// used so far.

#include <map>
#include <string>

#include "common/expected.h"
#include "common/ranges.h"
#include "predict/link_profile.h"
#include "predict/model_cluster.h"

namespace bfv::predict {

/// How long to simulate: frames played out, the first warmupFrames not counted.
struct SimulationOptions {
    int frames = 40;        // = 40 // frames played out per N
    int warmupFrames = 10;  // = 10 // frames before the rate is measured (pipeline filling)
};

/// Frames a simulation may play out (the warm-up counts among them).
inline constexpr common::Range kSimulatedFramesRange =
    common::Range::Closed(2.0, 10000.0, "frames");

/// Checks the options: frames within kSimulatedFramesRange and a warm-up of at least one frame
/// below them, e.g. "simulate: warm-up frames must be >= 1 and below the 40 frames, got 40".
Expected<void> ValidateSimulationOptions(const SimulationOptions& options);

/// The simulated run of one N.
struct SimulatedRun {
    int n = 0;
    double fps = 0.0;         // frames per second after the warm-up, simulated time
    double simulatedS = 0.0;  // simulated seconds of the whole run
    double wallS = 0.0;       // seconds the simulation itself took on this machine
    /// The resource busiest at the simulated rate and its share of the time: "tracer 3",
    /// "nic0 (gige)", "the intra-host link", "host 2 cpu" (a tracers' host), "display host cpu"
    /// or "switch"; from the per-rank costs at the simulated rate.
    std::string busiest;
    double busiestFraction = 0.0;
};

/// Simulates `run` on `machine` (see the file comment). Each simulation runs in a child process
/// (SimGrid keeps one simulation per process), so it can be called repeatedly; the child loads
/// SimGrid, a module (predict/simgrid/), which this process never does. Errors: those of
/// ValidateSimulationOptions and ClusterFrameCosts, and a simulation that fails ("simulate:
/// N = 8: ...", among them "cannot load libbfv_simgrid.so ..." of common::ModuleSymbol).
Expected<SimulatedRun> SimulateCluster(const MeasuredApp& measured, const Machine& machine,
                                       const std::map<std::string, LinkProfile>& links,
                                       const ClusterRun& run, const SimulationOptions& options);

}  // namespace bfv::predict
