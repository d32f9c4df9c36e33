#include "common/mpi_wait.h"

#include <time.h>

#include <algorithm>

#include "common/mpi_group.h"

namespace bfv::common {

namespace {

constexpr int kSpinTests = 16;        // tests before the first sleep: short waits stay fast
constexpr int kTestsPerDoubling = 2;  // sleeps at one length before it doubles

// Calls `done()` until it returns true, sleeping between calls after the first kSpinTests.
template <typename Test>
void PollUntil(Test done, int maxSleepUs = kMaxPollSleepUs) {
    for (int tries = 0; !done(); ++tries) {
        if (tries < kSpinTests) continue;
        int doublings = std::min((tries - kSpinTests) / kTestsPerDoubling, 8);
        long pauseUs = std::min(kMinPollSleepUs << doublings, maxSleepUs);
        const timespec pause{0, pauseUs * 1000L};
        nanosleep(&pause, nullptr);
    }
}

}  // namespace

void WaitYielding(MPI_Request& request, int maxSleepUs) {
    PollUntil(
        [&] {
            int flag = 0;
            BFV_MPI_CHECK(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
            return flag != 0;
        },
        maxSleepUs);
}

int WaitAnyYielding(int count, MPI_Request* requests, MPI_Status* status) {
    int index = MPI_UNDEFINED;
    PollUntil([&] {
        int flag = 0;
        BFV_MPI_CHECK(MPI_Testany(count, requests, &index, &flag, status));
        return flag != 0;
    });
    return index;
}

void WaitAllYielding(int count, MPI_Request* requests) {
    PollUntil([&] {
        int flag = 0;
        BFV_MPI_CHECK(MPI_Testall(count, requests, &flag, MPI_STATUSES_IGNORE));
        return flag != 0;
    });
}

void ProbeYielding(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    PollUntil([&] {
        int flag = 0;
        BFV_MPI_CHECK(MPI_Iprobe(source, tag, comm, &flag, status));
        return flag != 0;
    });
}

}  // namespace bfv::common
