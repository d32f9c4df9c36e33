#include "common/mpi_wait.h"

#include <time.h>

#include <algorithm>

#include "common/instrument.h"
#include "common/mpi_group.h"
#include "common/peer_loss.h"

namespace bfv::common {

namespace {

constexpr int kSpinTests = 16;        // tests before the first sleep: short waits stay fast
constexpr int kTestsPerDoubling = 2;  // sleeps at one length before it doubles

// Calls `done()` until it returns true, sleeping between calls after the first kSpinTests.
// Returns false when `timeoutS` (> 0) passed first, or a rank was lost (PeerLossReported),
// without calling `done()` again: MPI's progress on a lost rank's messages can end this process
// (UCX reading a dead process's memory).
template <typename Test>
bool PollUntil(Test done, double timeoutS, int maxSleepUs = kMaxPollSleepUs) {
    double deadlineS = timeoutS > 0.0 ? WallClockS() + timeoutS : 0.0;
    for (int tries = 0;; ++tries) {
        if (PeerLossReported()) return false;
        if (done()) return true;
        if (tries < kSpinTests) continue;
        if (deadlineS > 0.0 && WallClockS() > deadlineS) return false;
        int doublings = std::min((tries - kSpinTests) / kTestsPerDoubling, 8);
        long pauseUs = std::min(kMinPollSleepUs << doublings, maxSleepUs);
        const timespec pause{0, pauseUs * 1000L};
        nanosleep(&pause, nullptr);
    }
}

}  // namespace

bool WaitYielding(MPI_Request& request, double timeoutS, int maxSleepUs) {
    return PollUntil(
        [&] {
            int flag = 0;
            BFV_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
            return flag != 0;
        },
        timeoutS, maxSleepUs);
}

int WaitAnyYielding(int count, MPI_Request* requests, MPI_Status* status, double timeoutS) {
    int index = MPI_UNDEFINED;
    bool done = PollUntil(
        [&] {
            int flag = 0;
            BFV_MPI_CHECK(MPI_Testany(count, requests, &index, &flag, status));
            return flag != 0;
        },
        timeoutS);
    return done ? index : MPI_UNDEFINED;
}

bool WaitAllYielding(int count, MPI_Request* requests, double timeoutS) {
    return PollUntil(
        [&] {
            int flag = 0;
            BFV_MPI_CHECK(MPI_Testall(count, requests, &flag, MPI_STATUSES_IGNORE));
            return flag != 0;
        },
        timeoutS);
}

bool ProbeYielding(int source, int tag, MPI_Comm comm, MPI_Status* status, double timeoutS) {
    return PollUntil(
        [&] {
            int flag = 0;
            BFV_MPI_CHECK(MPI_Iprobe(source, tag, comm, &flag, status));
            return flag != 0;
        },
        timeoutS);
}

}  // namespace bfv::common
