#include "display/display_rank.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

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

// Frames until the pilot quits or the count is reached. The command for frame f+1 goes out
// before frame f is received: the pipeline of the source paper. Appends every frame's trace
// imbalance to `traceImbalance`.
Expected<void> FrameLoop(const common::Group& group, Presenter& presenter,
                         ColumnReceivers& receivers, const common::RenderOptions& options,
                         common::Recorder& recorder, std::vector<double>& traceImbalance) {
    Frame image(options.screen.widthPx, options.screen.heightPx);
    SplitPlanner splits(options.decomposition, group.tracerCount(), options.screen.widthPx);
    std::optional<common::CameraPose> pose = presenter.NextPose(0);
    common::BroadcastFrameCommand(group, CommandFor(0, pose, splits), recorder);
    for (std::uint32_t f = 0; pose; ++f) {
        pose = presenter.NextPose(static_cast<int>(f) + 1);
        common::BroadcastFrameCommand(group, CommandFor(f + 1, pose, splits), recorder);
        if (auto ok = receivers.Receive(f, splits.Columns(f), image); !ok) return ok;
        splits.Measure(f, receivers.TraceTimesS());
        traceImbalance.push_back(common::Imbalance(receivers.TraceTimesS()));
        if (auto ok = presenter.Present(static_cast<int>(f), image, group.size, recorder,
                                        receivers.CoarserSamples());
            !ok) {
            return ok;
        }
    }
    return {};
}

// Reports an error found before the first frame and tells every rank to stop; returns the
// exit code.
int Abort(const common::Group& group, const Error& error, common::Recorder& recorder) {
    std::fprintf(stderr, "bfv render: %s\n", error.message.c_str());
    common::FrameCommand abort;
    abort.kind = common::FrameCommand::kAbort;
    common::BroadcastFrameCommand(group, abort, recorder);
    return 1;
}

}  // namespace

common::GroundFn FlightGround(const terrain::PinnedGround& ground) {
    return ground.Smoothed(kGroundSmoothingM);
}

Expected<common::Flight> MakeFlight(const common::RenderOptions& options,
                                    const terrain::PinnedGround& ground) {
    if (!options.flightPath.empty())
        return common::LoadFlightFile(options.flightPath, FlightGround(ground));
    return common::Flight::DefaultCircuit(ground.Info().dataWidthM, ground.Info().dataDepthM,
                                          options.flightStyle, FlightGround(ground));
}

int RunDisplay(const common::Group& group, const common::RenderOptions& options) {
    common::Recorder recorder;
    auto startup = terrain::ReceiveTerrainStartup(group, options.terrainMessageBytes, recorder);
    if (!startup) return 1;  // the terrain server reports the error
    terrain::PinnedGround ground(*startup);
    auto flight = MakeFlight(options, ground);
    if (!flight) return Abort(group, flight.error(), recorder);
    auto presenter = Presenter::Create(options, *flight, FlightGround(ground));
    if (!presenter) return Abort(group, presenter.error(), recorder);
    double startS = common::WallClockS();
    common::RunReport report;
    {
        ColumnReceivers receivers(group, options);
        if (auto ok =
                FrameLoop(group, **presenter, receivers, options, recorder, report.traceImbalance);
            !ok) {
            common::AbortJob(group, ok.error());
        }
        recorder.Merge(receivers.Stats());
        report.columnRawBytes = receivers.RawBytes();
    }
    report.ranks = common::GatherSummary(group, recorder, common::WallClockS() - startS);
    report.options = options;
    report.mode = "mpi";
    report.nRanks = group.size;
    report.terrainName = startup->info.name;
    report.resolutionDeficit = (*presenter)->ResolutionDeficit();
    report.frameTimesS = (*presenter)->FrameTimesS();
    report.checksums = (*presenter)->Checksums();
    if (auto ok = (*presenter)->Finish(report); !ok) {
        std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
        return 1;
    }
    return 0;
}

}  // namespace bfv::display
