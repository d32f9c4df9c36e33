#include "terrain/terrain_broadcast.h"

#include <gtest/gtest.h>

#include "tests/mpi/mpi_world.h"
#include "tests/pyramid_fixture.h"

namespace bfv::terrain {
namespace {

using test_support::World;

std::vector<std::byte> Pattern(std::size_t n) {
    std::vector<std::byte> bytes(n);
    for (std::size_t k = 0; k < n; ++k) bytes[k] = static_cast<std::byte>((k * 131 + 7) % 251);
    return bytes;
}

// A file of 10007 bytes in chunks of 1000: 11 chunks, the last one short.
TEST(TerrainBroadcast, EveryRankGetsTheWholeFile) {
    const common::Group& group = World();
    common::Recorder recorder;
    if (group.rank == group.serverRank()) {
        auto sent = BroadcastTerrainFile(group, Pattern(10007), 1000, recorder);
        EXPECT_TRUE(sent.ok());
        EXPECT_EQ(recorder.Get(common::Activity::TerrainSend).messages, 11.0);
        return;
    }
    auto file = ReceiveTerrainFile(group, 1000, recorder);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(*file, Pattern(10007));
    EXPECT_EQ(recorder.Get(common::Activity::TerrainReceive).messages, 11.0);
}

// The server could not load its file: every rank gets the server's error, and nothing waits.
TEST(TerrainBroadcast, TheServersErrorBecomesEveryRanksResult) {
    const common::Group& group = World();
    common::Recorder recorder;
    Error error{"pyramid file 'x.bfvp': no such file"};
    if (group.rank == group.serverRank()) {
        auto sent = BroadcastTerrainFile(group, error, 1000, recorder);
        ASSERT_FALSE(sent.ok());
        EXPECT_EQ(sent.error().message, error.message);
        return;
    }
    auto file = ReceiveTerrainFile(group, 1000, recorder);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error().message, error.message);
}

// What the tracers and the display start from: the header and every pinned tile, decoded.
TEST(TerrainBroadcast, StartupArrivesDecodedOnEveryRank) {
    const common::Group& group = World();
    common::Recorder recorder;
    Pyramid pyramid = test_support::MakeTestPyramid();
    TerrainStartup startup{pyramid.info, pyramid.tiles};
    if (group.rank == group.serverRank()) {
        EXPECT_TRUE(
            BroadcastTerrainFile(group, EncodeTerrainStartup(startup), 4096, recorder).ok());
        return;
    }
    auto received = ReceiveTerrainStartup(group, 4096, recorder);
    ASSERT_TRUE(received.ok()) << received.error().message;
    EXPECT_EQ(received->info.name, "test ridge");
    EXPECT_EQ(received->info.roughness.seed, startup.info.roughness.seed);
    ASSERT_EQ(received->pinned.size(), startup.pinned.size());
    for (std::size_t k = 0; k < startup.pinned.size(); ++k) {
        EXPECT_EQ(received->pinned[k].key, startup.pinned[k].key);
        EXPECT_EQ(received->pinned[k].codes, startup.pinned[k].codes);
    }
}

}  // namespace
}  // namespace bfv::terrain
