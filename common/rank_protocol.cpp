#include "common/rank_protocol.h"

#include <cstdio>
#include <cstdlib>

namespace bfv::common {

void BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder) {
    ScopedActivity timing(recorder, Activity::Wait);
    BFV_MPI_CHECK(MPI_Bcast(&command, sizeof(command), MPI_BYTE, group.displayRank(), group.comm));
}

FrameCommand ReceiveFrameCommand(const Group& group, Recorder& recorder) {
    ScopedActivity timing(recorder, Activity::Wait);
    FrameCommand command;
    BFV_MPI_CHECK(MPI_Bcast(&command, sizeof(command), MPI_BYTE, group.displayRank(), group.comm));
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
