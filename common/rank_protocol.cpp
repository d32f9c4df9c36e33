#include "common/rank_protocol.h"

#include <cstdio>
#include <cstdlib>

#include "common/mpi_wait.h"
#include "common/tags.h"

namespace bfv::common {

void BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder) {
    ScopedActivity timing(recorder, Activity::Wait);
    // Point to point from the display, not MPI_Ibcast: a collective's tree would forward the
    // command through ranks that are busy tracing or asleep between tests, delaying it.
    std::vector<MPI_Request> requests;
    for (int r = 0; r < group.size; ++r) {
        if (r == group.displayRank()) continue;
        requests.emplace_back();
        BFV_MPI_CHECK(MPI_Isend(&command, sizeof(command), MPI_BYTE, r, tags::kFrameCommand,
                                group.comm, &requests.back()));
    }
    WaitAllYielding(static_cast<int>(requests.size()), requests.data());
}

FrameCommand ReceiveFrameCommand(const Group& group, Recorder& recorder, int maxSleepUs) {
    ScopedActivity timing(recorder, Activity::Wait);
    FrameCommand command;
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Irecv(&command, sizeof(command), MPI_BYTE, group.displayRank(),
                            tags::kFrameCommand, group.comm, &request));
    WaitYielding(request, maxSleepUs);
    return command;
}

FrameCommandPoller::FrameCommandPoller(const Group& group) : group_(group) { Post(); }

FrameCommandPoller::~FrameCommandPoller() {
    if (request_ == MPI_REQUEST_NULL) return;
    BFV_MPI_CHECK(MPI_Cancel(&request_));
    BFV_MPI_CHECK(MPI_Request_free(&request_));
}

std::optional<FrameCommand> FrameCommandPoller::Poll() {
    if (request_ == MPI_REQUEST_NULL) return std::nullopt;  // after quit or abort
    int done = 0;
    BFV_MPI_CHECK(MPI_Test(&request_, &done, MPI_STATUS_IGNORE));
    if (!done) return std::nullopt;
    FrameCommand command = command_;
    if (command.kind == FrameCommand::kRender) Post();
    return command;
}

void FrameCommandPoller::Post() {
    BFV_MPI_CHECK(MPI_Irecv(&command_, sizeof(command_), MPI_BYTE, group_.displayRank(),
                            tags::kFrameCommand, group_.comm, &request_));
}

std::vector<RankSummary> GatherSummary(const Group& group, const Recorder& recorder, double wallS,
                                       const RankSummary& extra) {
    RankSummary mine = extra;
    mine.rank = group.rank;
    mine.role = static_cast<int>(group.role());
    mine.wallS = wallS;
    mine.peakRssMiB = PeakResidentMiB();
    mine.activities = recorder.All();
    bool root = group.rank == group.displayRank();
    std::vector<RankSummary> all(root ? group.size : 0);
    BFV_MPI_CHECK(MPI_Gather(&mine, sizeof(mine), MPI_BYTE, all.data(), sizeof(mine), MPI_BYTE,
                             group.displayRank(), group.comm));
    return all;
}

void AbortJob(const Group& group, const Error& error) {
    std::fprintf(stderr, "%s bfv render: %s\n", group.LogPrefix().c_str(), error.message.c_str());
    std::fflush(stderr);
    MPI_Abort(group.comm, 1);
    std::abort();
}

}  // namespace bfv::common
