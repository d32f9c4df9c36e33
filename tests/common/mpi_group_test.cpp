#include "common/mpi_group.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "common/rank_protocol.h"

namespace bfv::common {
namespace {

TEST(Group, RolesAndRanksOfAJob) {
    Group group{MPI_COMM_NULL, 2, 5, {}};
    EXPECT_EQ(group.role(), Role::RayTracer);
    EXPECT_EQ(group.serverRank(), 0);
    EXPECT_EQ(group.displayRank(), 4);
    EXPECT_EQ(group.tracerCount(), 3);
    EXPECT_EQ(group.tracerIndex(), 1);
    EXPECT_EQ(group.tracerRank(2), 3);
    EXPECT_EQ(RoleOf(0, 5), Role::TerrainServer);
    EXPECT_EQ(RoleOf(4, 5), Role::Display);
    EXPECT_EQ(group.LogPrefix(), "[r2 tracer]");
}

// Messages name a rank by role, number and host; without host names, by role and number.
TEST(Group, DescribeNamesRoleRankAndHost) {
    Group group{MPI_COMM_NULL, 4, 5, {"s", "t1", "t2", "t3", "d"}};
    EXPECT_EQ(group.Describe(0), "terrain server rank 0 on host s");
    EXPECT_EQ(group.Describe(2), "ray tracer rank 2 on host t2");
    EXPECT_EQ(group.Describe(4), "display rank 4 on host d");
    Group anonymous{MPI_COMM_NULL, 0, 5, {}};
    EXPECT_EQ(anonymous.Describe(3), "ray tracer rank 3");
}

// The rank best placed to name a stalled one waits least: tracers on the server, then the
// display on tracers, then everything else.
TEST(StallLimitS, OrdersTheWaitsSoTheBestWitnessSpeaksFirst) {
    EXPECT_EQ(StallLimitS(10.0, Role::RayTracer, Role::TerrainServer), 5.0);
    EXPECT_EQ(StallLimitS(10.0, Role::Display, Role::RayTracer), 10.0);
    EXPECT_EQ(StallLimitS(10.0, Role::RayTracer, Role::Display), 25.0);
    EXPECT_EQ(StallLimitS(10.0, Role::TerrainServer, Role::Display), 10.0);
    EXPECT_EQ(StallLimitS(10.0, Role::TerrainServer, Role::RayTracer), 20.0);
    EXPECT_EQ(StallLimitS(0.0, Role::Display, Role::RayTracer), 0.0);
}

TEST(StallError, NamesTheRankWhatWasMissingAndTheLastFrame) {
    Group group{MPI_COMM_NULL, 3, 4, {"a", "b", "c", "d"}};
    std::string message = StallError(group, 1, "columns of frame 9", 10.0, 10.0, 8).message;
    EXPECT_EQ(message,
              "stalled: ray tracer rank 1 on host b stopped answering: no columns of frame 9 for "
              "10.0 s (--stall-timeout 10); last frame completed here: 8");
    EXPECT_NE(StallError(group, 3, "frame command", 5.0, 2.5, -1).message.find("here: none"),
              std::string::npos);
}

// A call that returns in time gives its result; one that does not (MPI_Finalize hung over TCP)
// ends the process with the exit code and the message, instead of hanging the job.
TEST(ReturnWithin, ReturnsTheResultOrEndsTheProcessWithTheExitCode) {
    EXPECT_EQ(ReturnWithin([] { return 42; }, 5.0, 3, "unused"), 42);
    EXPECT_EXIT(ReturnWithin(
                    [] {
                        std::this_thread::sleep_for(std::chrono::seconds(60));
                        return 0;
                    },
                    0.2, 7, "MPI_Finalize did not return within 0.2 s"),
                testing::ExitedWithCode(7), "MPI_Finalize did not return within 0\\.2 s");
}

TEST(ThreadLevelName, NamesEveryLevel) {
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_SINGLE)), "MPI_THREAD_SINGLE");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_FUNNELED)), "MPI_THREAD_FUNNELED");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_SERIALIZED)), "MPI_THREAD_SERIALIZED");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_MULTIPLE)), "MPI_THREAD_MULTIPLE");
    EXPECT_EQ(std::string(ThreadLevelName(-7)), "an unknown MPI thread level");
}

// Only a launcher that says every rank is on this host (Hydra's MPI_LOCALNRANKS = PMI_SIZE)
// keeps UCX's own rendezvous threshold; anything else may cross a link and goes eager.
TEST(RanksMaySpanHosts, OnlyEveryRankLocalKeepsToOneHost) {
    EXPECT_FALSE(RanksMaySpanHosts("4", "4"));
    EXPECT_TRUE(RanksMaySpanHosts("2", "4"));
    EXPECT_TRUE(RanksMaySpanHosts(nullptr, "4"));
    EXPECT_TRUE(RanksMaySpanHosts("4", nullptr));
    EXPECT_TRUE(RanksMaySpanHosts(nullptr, nullptr));
}

}  // namespace
}  // namespace bfv::common
