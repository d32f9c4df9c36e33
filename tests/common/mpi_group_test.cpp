#include "common/mpi_group.h"

#include <gtest/gtest.h>

#include <string>

namespace bfv::common {
namespace {

TEST(Group, RolesAndRanksOfAJob) {
    Group group{MPI_COMM_NULL, 2, 5};
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

TEST(ThreadLevelName, NamesEveryLevel) {
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_SINGLE)), "MPI_THREAD_SINGLE");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_FUNNELED)), "MPI_THREAD_FUNNELED");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_SERIALIZED)), "MPI_THREAD_SERIALIZED");
    EXPECT_EQ(std::string(ThreadLevelName(MPI_THREAD_MULTIPLE)), "MPI_THREAD_MULTIPLE");
    EXPECT_EQ(std::string(ThreadLevelName(-7)), "an unknown MPI thread level");
}

}  // namespace
}  // namespace bfv::common
