// The yielding waits: each ends when its operation completes, or returns "not yet" once its
// time limit has passed, and leaves the core to others meanwhile. Every rank runs these on
// MPI_COMM_SELF (messages to itself), so the ranks do not wait for one another.

#include "common/mpi_wait.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <array>

#include "common/instrument.h"
#include "common/mpi_group.h"

namespace bfv::common {
namespace {

constexpr double kTimeoutS = 0.05;
// How late a timed-out wait may return: the limit is checked between sleeps of at most
// kMaxPollSleepUs, but the test may share its cores with the other ranks and the rest of ctest.
constexpr double kLateS = 0.25;

/// Posts a receive of one int with `tag` from this rank on MPI_COMM_SELF into `value`.
MPI_Request ReceiveFromSelf(int& value, int tag) {
    MPI_Request request = MPI_REQUEST_NULL;
    BFV_MPI_CHECK(MPI_Irecv(&value, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &request));
    return request;
}

/// Starts sending `value` (which must outlive the send) with `tag` to this rank on
/// MPI_COMM_SELF; the send completes once a receive takes it.
MPI_Request SendToSelf(const int& value, int tag) {
    MPI_Request request = MPI_REQUEST_NULL;
    BFV_MPI_CHECK(MPI_Isend(&value, 1, MPI_INT, 0, tag, MPI_COMM_SELF, &request));
    return request;
}

/// Completes a send whose receive has been posted.
void Complete(MPI_Request request) { BFV_MPI_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE)); }

/// Cancels a receive that nothing will match, so that the test leaves no request behind.
void Cancel(MPI_Request& request) {
    BFV_MPI_CHECK(MPI_Cancel(&request));
    BFV_MPI_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE));
}

TEST(MpiWait, WaitYieldingEndsWhenTheOperationCompletes) {
    int value = 0;
    MPI_Request request = ReceiveFromSelf(value, 11);
    int sent = 42;
    Complete(SendToSelf(sent, 11));
    EXPECT_TRUE(WaitYielding(request, kTimeoutS));
    EXPECT_EQ(value, 42);
    EXPECT_EQ(request, MPI_REQUEST_NULL);
}

/// Voluntary context switches of the calling thread so far: one each time it sleeps.
long VoluntarySwitches() {
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_nvcsw;
}

// A receive nothing matches: the wait returns false once the limit has passed, having slept
// between its tests (hundreds of sleeps of at most kMaxPollSleepUs in 0.2 s) and so taken
// little CPU. A wait that spun would not sleep at all.
TEST(MpiWait, WaitYieldingGivesUpAfterItsLimitWithoutSpinning) {
    int value = 0;
    MPI_Request request = ReceiveFromSelf(value, 12);
    double startS = WallClockS(), startCpuS = ThreadCpuS();
    long startSwitches = VoluntarySwitches();
    EXPECT_FALSE(WaitYielding(request, 4 * kTimeoutS));
    double wallS = WallClockS() - startS, cpuS = ThreadCpuS() - startCpuS;
    EXPECT_GE(wallS, 4 * kTimeoutS);
    EXPECT_LT(wallS, 4 * kTimeoutS + kLateS);
    EXPECT_GE(VoluntarySwitches() - startSwitches, 50) << "a wait that spins keeps the core";
    EXPECT_LT(cpuS, 0.5 * wallS);
    EXPECT_NE(request, MPI_REQUEST_NULL) << "still pending";
    Cancel(request);
}

TEST(MpiWait, WaitAnyYieldingGivesTheCompletedRequestOrUndefined) {
    std::array<int, 2> values{};
    std::array<MPI_Request, 2> requests = {ReceiveFromSelf(values[0], 21),
                                           ReceiveFromSelf(values[1], 22)};
    MPI_Status status;
    EXPECT_EQ(WaitAnyYielding(2, requests.data(), &status, kTimeoutS), MPI_UNDEFINED);
    int sent = 7;
    Complete(SendToSelf(sent, 22));
    EXPECT_EQ(WaitAnyYielding(2, requests.data(), &status, kTimeoutS), 1);
    EXPECT_EQ(status.MPI_TAG, 22);
    EXPECT_EQ(values[1], 7);
    Cancel(requests[0]);
}

TEST(MpiWait, WaitAllYieldingWaitsForEveryRequest) {
    std::array<int, 2> values{};
    std::array<MPI_Request, 2> requests = {ReceiveFromSelf(values[0], 31),
                                           ReceiveFromSelf(values[1], 32)};
    std::array<int, 2> sent = {1, 2};
    Complete(SendToSelf(sent[0], 31));
    EXPECT_FALSE(WaitAllYielding(2, requests.data(), kTimeoutS)) << "one is still pending";
    Complete(SendToSelf(sent[1], 32));
    EXPECT_TRUE(WaitAllYielding(2, requests.data(), kTimeoutS));
    EXPECT_EQ(values[0], 1);
    EXPECT_EQ(values[1], 2);
}

TEST(MpiWait, ProbeYieldingFindsAMessageOrGivesUp) {
    MPI_Status status;
    double startS = WallClockS();
    EXPECT_FALSE(ProbeYielding(0, 41, MPI_COMM_SELF, &status, kTimeoutS));
    EXPECT_GE(WallClockS() - startS, kTimeoutS);
    int sent = 5;
    MPI_Request send = SendToSelf(sent, 41);
    EXPECT_TRUE(ProbeYielding(0, 41, MPI_COMM_SELF, &status, kTimeoutS));
    EXPECT_EQ(status.MPI_SOURCE, 0);
    EXPECT_EQ(status.MPI_TAG, 41);
    int value = 0;
    BFV_MPI_CHECK(MPI_Recv(&value, 1, MPI_INT, 0, 41, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    Complete(send);
    EXPECT_EQ(value, 5);
}

}  // namespace
}  // namespace bfv::common
