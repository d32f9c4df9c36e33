#include "common/rank_protocol.h"

#include <cstdio>
#include <cstdlib>

#include "common/mpi_wait.h"

namespace bfv::common {

namespace {

// MPI_Bcast of the command from the display, waiting without holding the core.
void BroadcastCommand(const Group& group, FrameCommand& command) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Ibcast(&command, sizeof(command), MPI_BYTE, group.displayRank(), group.comm,
                             &request));
    WaitYielding(request);
}

}  // namespace

void BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder) {
    ScopedActivity timing(recorder, Activity::Wait);
    BroadcastCommand(group, command);
}

FrameCommand ReceiveFrameCommand(const Group& group, Recorder& recorder) {
    ScopedActivity timing(recorder, Activity::Wait);
    FrameCommand command;
    BroadcastCommand(group, command);
    return command;
}

std::vector<RankSummary> GatherSummary(const Group& group, const Recorder& recorder, double wallS) {
    RankSummary mine;
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
