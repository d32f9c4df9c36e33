#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "common/mpi_group.h"
#include "common/mpi_wait.h"
#include "tests/mpi/mpi_world.h"

namespace bfv::common {
namespace {

using test_support::World;

constexpr int kTag = 4711;

// Under mpiexec on one host Hydra says that every rank is local: MpiSession leaves UCX's own
// rendezvous threshold alone (RanksMaySpanHosts).
TEST(EagerMessages, HydraOnOneHostSaysEveryRankIsLocal) {
    EXPECT_FALSE(RanksMaySpanHosts(std::getenv("MPI_LOCALNRANKS"), std::getenv("PMI_SIZE")));
}

// With the threshold MpiSession sets in a job that spans hosts (the ctest entry
// MpiTests.EagerColumns passes it, as one host would not get it), a message just under
// kEagerMessageBytes completes at the sender while the receiver has not yet posted its receive
// (it waits 1 s): eager, not rendezvous, where the bytes wait for the receiver. With the skip
// taken out, the same test fails under UCX_RNDV_THRESH=8192.
TEST(EagerMessages, AColumnsSizedMessageCompletesBeforeItsReceiveIsPosted) {
    const Group& group = World();
    const char* threshold = std::getenv("UCX_RNDV_THRESH");
    if (threshold == nullptr || std::string(threshold) != std::to_string(kEagerMessageBytes))
        GTEST_SKIP() << "run by MpiTests.EagerColumns, with UCX_RNDV_THRESH=" << kEagerMessageBytes;
    std::vector<char> message(kEagerMessageBytes - 4096, 'c');
    if (group.rank == 0) {
        MPI_Request request;
        BFV_MPI_CHECK(MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_CHAR, 1, kTag,
                                group.comm, &request));
        EXPECT_TRUE(WaitYielding(request, 0.5)) << "the send waited for the receive";
        if (request != MPI_REQUEST_NULL) BFV_MPI_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE));
    } else if (group.rank == 1) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        BFV_MPI_CHECK(MPI_Recv(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTag,
                               group.comm, MPI_STATUS_IGNORE));
    }
    BFV_MPI_CHECK(MPI_Barrier(group.comm));
}

}  // namespace
}  // namespace bfv::common
