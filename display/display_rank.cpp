#include "display/display_rank.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/interrupt.h"
#include "common/peer_loss.h"
#include "common/rank_protocol.h"
#include "common/statistics.h"
#include "display/column_receivers.h"
#include "display/presenter.h"
#include "display/split_planner.h"
#include "terrain/terrain_broadcast.h"

namespace bfv::display {

namespace {

constexpr double kGroundSmoothingM = 150.0;

// Frame `frame`'s command: its camera and (dynamic decomposition) its split, planned now; or
// quit when there is no pose.
common::FrameCommand CommandFor(std::uint32_t frame, const std::optional<common::CameraPose>& pose,
                                SplitPlanner& splits) {
    if (!pose) {
        common::FrameCommand quit;
        quit.kind = common::FrameCommand::kQuit;
        return quit;
    }
    common::FrameCommand command = common::FrameCommand::Render(frame, *pose);
    splits.Plan(frame);
    if (std::vector<int> boundariesPx = splits.BoundariesPx(frame); !boundariesPx.empty())
        command.SetSplit(boundariesPx);
    return command;
}

// Adds frame `frame`'s columns and trace times of every tracer to `slices`, from frame
// `warmupFrames` on.
void AddSlices(std::uint32_t frame, int warmupFrames, const std::vector<common::ColumnSet>& columns,
               std::span<const double> traceS, std::vector<common::TracerSlice>& slices) {
    slices.resize(columns.size());
    if (static_cast<int>(frame) < warmupFrames) return;
    for (std::size_t t = 0; t < columns.size(); ++t) {
        slices[t].columnsSum += columns[t].count;
        slices[t].traceSSum += t < traceS.size() ? traceS[t] : 0.0;
        ++slices[t].frames;
    }
}

// Frames until the pilot quits, the count is reached or a rank is interrupted. The command for
// frame f+1 goes out before frame f is received: the pipeline of the source paper. Appends
// every frame's trace imbalance to report.traceImbalance, and each tracer's columns and trace
// time after the warm-up to report.slices. Errors: a rank that stopped taking commands
// (`commandStalled` set), or what the receivers or the presenter report.
Expected<void> FrameLoop(const common::Group& group, Presenter& presenter,
                         ColumnReceivers& receivers, const common::RenderOptions& options,
                         common::Recorder& recorder, common::RunReport& report,
                         bool& commandStalled) {
    auto broadcast = [&](const common::FrameCommand& command) {
        auto ok =
            common::BroadcastFrameCommand(group, command, recorder, options.liveness.stallTimeoutS);
        commandStalled = !ok;
        return ok;
    };
    Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    SplitPlanner splits(options.pipeline.decomposition, group.tracerCount(),
                        options.view.screen.widthPx);
    double heartbeatS =
        options.liveness.stallTimeoutS > 0.0 ? options.liveness.stallTimeoutS / 4.0 : 1.0;
    if (auto ok = common::AwaitReady(group, recorder, options.liveness.stallTimeoutS, heartbeatS);
        !ok) {
        commandStalled = true;
        return ok;
    }
    std::optional<common::CameraPose> pose = presenter.NextPose(0);
    if (auto ok = broadcast(CommandFor(0, pose, splits)); !ok) return ok;
    common::FrameCommand heartbeat;
    heartbeat.kind = common::FrameCommand::kHeartbeat;
    // A tracer's columns may be late because another rank stopped: under --stall-timeout the
    // heartbeats keep the terrain server from blaming the display while the display finds out
    // who (sent from this thread while the receive threads wait: MPI_THREAD_MULTIPLE).
    std::function<Expected<void>()> keepAlive;
    if (options.liveness.stallTimeoutS > 0.0) keepAlive = [&] { return broadcast(heartbeat); };
    for (std::uint32_t f = 0; pose; ++f) {
        if (common::PeerLossReported())
            return common::LostError(group, common::FindLostRanks(group));
        if (int signal = common::PollInterrupted(group); signal != 0) presenter.Interrupt(signal);
        // A paused window renders nothing; the heartbeats tell the ranks it is not a stall.
        while (presenter.WaitWhilePaused(heartbeatS)) {
            if (auto ok = broadcast(heartbeat); !ok) return ok;
        }
        pose = presenter.NextPose(static_cast<int>(f) + 1);
        if (auto ok = broadcast(CommandFor(f + 1, pose, splits)); !ok) return ok;
        const std::vector<common::ColumnSet> columns = splits.Columns(f);
        if (auto ok = receivers.Receive(f, columns, image, keepAlive, heartbeatS); !ok) return ok;
        splits.Measure(f, receivers.TraceTimesS(), receivers.TileReceiveTimesS());
        report.traceImbalance.push_back(common::Imbalance(receivers.TraceTimesS()));
        AddSlices(f, options.output.warmupFrames, columns, receivers.TraceTimesS(), report.slices);
        if (auto ok = presenter.Present(static_cast<int>(f), image, group.size, recorder,
                                        receivers.Samples(), receivers.TraceTimesS());
            !ok) {
            return ok;
        }
    }
    return {};
}

// The report's frames so far, from the presenter.
void AddFrames(const Presenter& presenter, common::RunReport& report) {
    report.resolutionDeficit = presenter.ResolutionDeficit();
    report.frameTimesS = presenter.FrameTimesS();
    report.checksums = presenter.Checksums();
    report.pngQueueWaits = presenter.PngQueueWaits();
    report.pngQueueWaitS = presenter.PngQueueWaitS();
}

// Ends the job after `error` stopped the run mid-flight (`end`: stalled or failed; lost
// whenever the launcher reported a rank lost): the report of the frames so far first, then
// every rank stopped (AbortJob).
[[noreturn]] void EndEarly(const common::Group& group, Presenter& presenter,
                           common::RunReport& report, common::RunEnd end, const Error& error) {
    report.end = common::PeerLossReported() ? common::RunEnd::Lost : end;
    report.endReason = error.message;
    AddFrames(presenter, report);
    if (auto ok = presenter.Finish(report); !ok)
        std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
    common::AbortJob(group, error);
}

// Reports an error found before the first frame and tells every rank to stop; returns the
// exit code.
int Abort(const common::Group& group, const common::RenderOptions& options, const Error& error,
          common::Recorder& recorder) {
    std::fprintf(stderr, "bfv render: %s\n", error.message.c_str());
    common::FrameCommand abort;
    abort.kind = common::FrameCommand::kAbort;
    if (auto ok =
            common::BroadcastFrameCommand(group, abort, recorder, options.liveness.stallTimeoutS);
        !ok) {
        common::AbortJob(group, ok.error());
    }
    return 1;
}

// The run's frames, then what every rank measured over them, into `report` (and, with
// --trace, every rank's timeline into `timelines`). A rank that stalls or fails ends the job
// here (EndEarly), with the report of the frames so far.
void FlyAndGather(const common::Group& group, Presenter& presenter,
                  const common::RenderOptions& options, common::Recorder& recorder,
                  common::RunReport& report, std::vector<common::RankTimeline>& timelines) {
    double startS = common::WallClockS();
    {
        ColumnReceivers receivers(group, options);
        bool commandStalled = false;
        if (auto ok =
                FrameLoop(group, presenter, receivers, options, recorder, report, commandStalled);
            !ok) {
            EndEarly(group, presenter, report,
                     receivers.Stalled() || commandStalled ? common::RunEnd::Stalled
                                                           : common::RunEnd::Failed,
                     ok.error());
        }
        recorder.Merge(receivers.Stats());
        report.columnRawBytes = receivers.RawBytes();
    }
    auto ranks = common::GatherSummary(group, recorder, common::WallClockS() - startS, {},
                                       options.liveness.stallTimeoutS);
    if (!ranks) EndEarly(group, presenter, report, common::RunEnd::Stalled, ranks.error());
    report.ranks = std::move(*ranks);
    if (!options.output.tracePath.empty()) {
        auto gathered = common::GatherTimelines(group, recorder, options.liveness.stallTimeoutS);
        if (!gathered)
            EndEarly(group, presenter, report, common::RunEnd::Stalled, gathered.error());
        timelines = std::move(*gathered);
    }
    AddFrames(presenter, report);
}

// After the last frame: how the run ended (an interrupt seen by any rank), the report and,
// with --trace, the timelines written. Returns the process exit code.
int EndRun(const common::Group& group, Presenter& presenter, const common::RenderOptions& options,
           common::RunReport& report, const std::vector<common::RankTimeline>& timelines) {
    int lateSignal = common::PollInterrupted(group);  // takes every notice still queued
    int signal = presenter.InterruptedBy() != 0 ? presenter.InterruptedBy() : lateSignal;
    if (signal != 0) {
        report.end = common::RunEnd::Interrupted;
        report.endReason = std::string("interrupted by ") + common::SignalName(signal);
    }
    if (auto ok = presenter.Finish(report); !ok) {
        std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
        return 1;
    }
    if (!options.output.tracePath.empty()) {
        if (auto ok = common::WriteTimeline(options.output.tracePath, timelines); !ok) {
            std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
            return 1;
        }
        std::printf("  wrote timeline %s (open it in ui.perfetto.dev)\n",
                    options.output.tracePath.c_str());
    }
    return signal != 0 ? common::InterruptedExitCode(signal) : 0;
}

}  // namespace

common::GroundFn FlightGround(const terrain::PinnedGround& ground) {
    return ground.Smoothed(kGroundSmoothingM);
}

Expected<common::Flight> MakeFlight(const common::ViewOptions& view,
                                    const terrain::PinnedGround& ground) {
    if (!view.flightPath.empty()) {
        auto flight = common::LoadFlightFile(view.flightPath, FlightGround(ground));
        if (!flight) return flight;
        auto over = flight->CheckOverTerrain(ground.Info().dataWidthM, ground.Info().dataDepthM,
                                             FlightGround(ground));
        if (!over) return Error{"flight file '" + view.flightPath + "': " + over.error().message};
        return flight;
    }
    return common::Flight::DefaultCircuit(ground.Info().dataWidthM, ground.Info().dataDepthM,
                                          view.flightStyle, FlightGround(ground));
}

int RunDisplay(const common::Group& group, const common::RenderOptions& options,
               const std::optional<common::RunPrediction>& prediction) {
    common::Recorder recorder;
    if (!options.output.tracePath.empty()) recorder.StartTimeline(0, common::kMaxTimelineEvents);
    auto startup = terrain::ReceiveTerrainStartup(group, options.terrain.terrainMessageBytes,
                                                  recorder, options.liveness.stallTimeoutS);
    if (!startup) return 1;  // the terrain server reports the error
    terrain::Exaggerate(*startup, options.shading.exaggeration);
    terrain::PinnedGround ground(
        *startup, terrain::WaterLevelM(options.shading.DrawnSeaLevelM(), options.shading.water,
                                       startup->info));
    auto flight = MakeFlight(options.view, ground);
    if (!flight) return Abort(group, options, flight.error(), recorder);
    auto presenter = Presenter::Create(options, *flight, FlightGround(ground));
    if (!presenter) return Abort(group, options, presenter.error(), recorder);
    (*presenter)->SetPrediction(prediction);
    common::RunReport report;
    report.options = options;
    report.mode = common::RunMode::Mpi;
    report.nRanks = group.size;
    report.terrainName = startup->info.name;
    report.prediction = prediction;
    std::vector<common::RankTimeline> timelines;
    FlyAndGather(group, **presenter, options, recorder, report, timelines);
    return EndRun(group, **presenter, options, report, timelines);
}

}  // namespace bfv::display
