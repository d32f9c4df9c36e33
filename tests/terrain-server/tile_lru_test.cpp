#include "terrain-server/tile_lru.h"

#include <gtest/gtest.h>

namespace bfv::terrain_server {
namespace {

TEST(TileLru, EvictsTheLeastRecentlyWantedButNeverTheCurrentFrames) {
    TileLru lru(3);
    lru.Insert({1, 0, 0}, 1);
    lru.Insert({1, 1, 0}, 2);
    lru.Insert({1, 0, 1}, 3);
    lru.Touch({1, 0, 0}, 4);
    EXPECT_EQ(lru.Size(), 3u);
    auto victim = lru.EvictBefore(4);
    ASSERT_TRUE(victim);
    EXPECT_EQ(*victim, (terrain::TileKey{1, 1, 0}));
    EXPECT_FALSE(lru.Contains({1, 1, 0}));
    lru.Touch({1, 0, 1}, 4);
    EXPECT_FALSE(lru.EvictBefore(4)) << "both remaining tiles are wanted in frame 4";
    EXPECT_EQ(lru.EvictBefore(5), (terrain::TileKey{1, 0, 0}));  // touched before {1,0,1}: older
}

}  // namespace
}  // namespace bfv::terrain_server
