#include "raytracer/tracer_rank.h"

#include <algorithm>
#include <array>
#include <vector>

#include "common/decomposition.h"
#include "common/messages.h"
#include "common/mpi_wait.h"
#include "common/rank_protocol.h"
#include "common/terrain_broadcast.h"
#include "common/terrain_file.h"

namespace bfv::raytracer {

namespace {

using common::Activity;

// Messages of one frame in flight: buffers stay untouched until their sends complete.
struct FrameSends {
    std::vector<std::vector<std::byte>> buffers;
    std::vector<MPI_Request> requests;
};

class Tracer {
public:
    Tracer(const common::Group& group, const common::RenderOptions& options,
           const TerrainPyramid& pyramid)
        : group_(group), options_(options), pyramid_(pyramid), settings_(CastSettingsFrom(options)),
          columns_(common::ColumnsOf(options.decomposition, group.tracerIndex(),
                                     group.tracerCount(), options.screen.widthPx)),
          pixels_(static_cast<size_t>(columns_.count) * options.screen.heightPx) {
        int n = common::MessagesPerFrame(columns_, options.columnsPerMessage);
        for (FrameSends& sends : inFlight_) {
            sends.buffers.resize(n);
            sends.requests.assign(n, MPI_REQUEST_NULL);
        }
    }

    // Traces frame `frame`. Every kColumnsPerProgress columns it lets MPI move the previous
    // frame's messages along: over TCP (and for rendezvous messages) bytes only move while
    // the sender is inside MPI, so without this the send would wait for the trace to end.
    void Render(std::uint32_t frame, const common::CameraPose& pose, common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Trace);
        int h = options_.screen.heightPx;
        FrameSends& previous = inFlight_[(frame + 1) % 2];
        for (int k = 0; k < columns_.count; ++k) {
            CastColumn(pyramid_, pose, options_.screen, settings_, columns_.At(k), scratch_,
                       &pixels_[static_cast<size_t>(k) * h]);
            if (k % kColumnsPerProgress == kColumnsPerProgress - 1) Progress(previous);
        }
    }

    void Send(std::uint32_t frame, common::Recorder& recorder) {
        FrameSends& sends = inFlight_[frame % 2];
        WaitAll(sends, recorder);
        int cpm = options_.columnsPerMessage;
        for (size_t m = 0; m < sends.buffers.size(); ++m) {
            int first = static_cast<int>(m) * cpm, n = std::min(cpm, columns_.count - first);
            Pack(frame, first, n, sends.buffers[m], recorder);
            common::ScopedActivity timing(recorder, Activity::Send);
            BFV_MPI_CHECK(MPI_Isend(sends.buffers[m].data(), static_cast<int>(sends.buffers[m].size()),
                                    MPI_BYTE, group_.displayRank(), common::tags::kColumns,
                                    group_.comm, &sends.requests[m]));
            recorder.AddTraffic(Activity::Send, static_cast<double>(sends.buffers[m].size()), 1);
        }
    }

    void Drain(common::Recorder& recorder) {
        for (FrameSends& sends : inFlight_) WaitAll(sends, recorder);
    }

private:
    void Pack(std::uint32_t frame, int first, int n, std::vector<std::byte>& out,
              common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Pack);
        common::ColumnsHeader header;
        header.frame = frame;
        header.firstColumn = static_cast<std::uint32_t>(columns_.At(first));
        header.columnStride = static_cast<std::uint32_t>(columns_.stride);
        header.nColumns = static_cast<std::uint32_t>(n);
        header.heightPx = static_cast<std::uint32_t>(options_.screen.heightPx);
        size_t offset = static_cast<size_t>(first) * options_.screen.heightPx;
        common::EncodeColumns(header,
                              std::span(pixels_).subspan(offset, static_cast<size_t>(n) * header.heightPx),
                              out);
    }

    static constexpr int kColumnsPerProgress = 32;

    static void Progress(FrameSends& sends) {
        int done = 0;
        BFV_MPI_CHECK(MPI_Testall(static_cast<int>(sends.requests.size()), sends.requests.data(),
                                  &done, MPI_STATUSES_IGNORE));
    }

    static void WaitAll(FrameSends& sends, common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Send);
        common::WaitAllYielding(static_cast<int>(sends.requests.size()), sends.requests.data());
    }

    const common::Group& group_;
    const common::RenderOptions& options_;
    const TerrainPyramid& pyramid_;
    CastSettings settings_;
    common::ColumnSet columns_;
    std::vector<common::Pixel> pixels_;
    ColumnScratch scratch_;
    std::array<FrameSends, 2> inFlight_;
};

}  // namespace

CastSettings CastSettingsFrom(const common::RenderOptions& options) {
    CastSettings settings;
    settings.hazeHalfDistanceM = options.hazeHalfDistanceM;
    settings.lodBias = options.lodBias;
    return settings;
}

int RunRayTracer(const common::Group& group, const common::RenderOptions& options) {
    common::Recorder recorder;
    auto file = common::ReceiveTerrainFile(group, options.terrainMessageBytes, recorder);
    if (!file) return 1;  // the terrain server reports the error
    auto terrain = common::DecodeTerrain(*file, options.terrainPath);
    if (!terrain) common::AbortJob(group, terrain.error());
    TerrainPyramid pyramid = [&] {
        common::ScopedActivity timing(recorder, Activity::TerrainReceive);
        return TerrainPyramid(*terrain);
    }();
    Tracer tracer(group, options, pyramid);
    double startS = common::WallClockS();
    common::FrameCommand command;
    while ((command = common::ReceiveFrameCommand(group, recorder)).kind ==
           common::FrameCommand::kRender) {
        tracer.Render(command.frame, command.Pose(), recorder);
        tracer.Send(command.frame, recorder);
    }
    tracer.Drain(recorder);
    if (command.kind == common::FrameCommand::kAbort) return 1;
    common::GatherSummary(group, recorder, common::WallClockS() - startS);
    return 0;
}

}  // namespace bfv::raytracer
