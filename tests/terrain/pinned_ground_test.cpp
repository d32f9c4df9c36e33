#include "terrain/pinned_ground.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bfv::terrain {
namespace {

// Two pinned levels (level 0: one tile; level 1: 2 x 2 tiles of 32 m posts) whose level-1
// posts rise 1 m per metre east: height = x.
TerrainStartup EastwardRamp() {
    TerrainStartup startup;
    startup.info.geometry = {4096.0, 4};
    startup.info.storedLevels = 2;
    startup.info.dataWidthM = startup.info.dataDepthM = 4096.0;
    startup.info.coding = {1.0, 0.0};
    startup.pinned.push_back({{0, 0, 0}, std::vector<std::int16_t>(kTilePostCount, 0)});
    double spacingM = startup.info.geometry.SpacingM(1);
    for (int ty = 0; ty < 2; ++ty) {
        for (int tx = 0; tx < 2; ++tx) {
            TilePosts tile{{1, tx, ty}, std::vector<std::int16_t>(kTilePostCount)};
            for (int j = 0; j < kTilePosts; ++j) {
                for (int i = 0; i < kTilePosts; ++i) {
                    double xM = TileOriginM(tx, spacingM) + i * spacingM;
                    tile.codes[j * kTilePosts + i] = static_cast<std::int16_t>(xM);
                }
            }
            startup.pinned.push_back(std::move(tile));
        }
    }
    return startup;
}

TEST(PinnedGround, InterpolatesTheFinestPinnedLevel) {
    PinnedGround ground(EastwardRamp());
    EXPECT_NEAR(ground.HeightAtM(100.0, 700.0), 100.0, 1e-3) << "level 1, not level 0's 0 m";
    EXPECT_NEAR(ground.HeightAtM(2500.25, 3000.0), 2500.25, 1e-3) << "between posts, other tile";
    EXPECT_NEAR(ground.HeightAtM(-1000.0, 10.0), -64.0, 1e-3) << "off the data: the border post";
}

// The flight's ground is raised to the water level as the tracers' tiles are: the eye keeps
// its height above the water, not above the sea floor.
TEST(PinnedGround, GroundBelowTheWaterLevelIsRaisedToIt) {
    PinnedGround ground(EastwardRamp(), 1000.0);
    EXPECT_NEAR(ground.HeightAtM(100.0, 700.0), 1000.0, 1e-3) << "below: the water surface";
    EXPECT_NEAR(ground.HeightAtM(2500.25, 3000.0), 2500.25, 1e-3) << "above: the ground";
}

TEST(PinnedGround, SmoothedGroundAveragesNinePoints) {
    PinnedGround ground(EastwardRamp());
    common::GroundFn smoothed = ground.Smoothed(150.0);
    EXPECT_NEAR(smoothed(1000.0, 1000.0), 1000.0, 1e-3) << "a plane averages to itself";
}

TEST(BilinearInCell, InterpolatesCornersInFloat) {
    std::vector<float> field(2 * kTilePosts, 0.0f);
    field[0] = 0.0f;                // south-west
    field[1] = 10.0f;               // south-east
    field[kTilePosts] = 20.0f;      // north-west
    field[kTilePosts + 1] = 50.0f;  // north-east
    EXPECT_FLOAT_EQ(BilinearInCell(field.data(), 0.0f, 0.0f), 0.0f);
    EXPECT_FLOAT_EQ(BilinearInCell(field.data(), 1.0f, 1.0f), 50.0f);
    EXPECT_FLOAT_EQ(BilinearInCell(field.data(), 0.5f, 0.5f), 20.0f);
    std::vector<std::uint16_t> codes(2 * kTilePosts, 100);
    EXPECT_FLOAT_EQ(BilinearInCell(codes.data(), 0.3f, 0.7f), 100.0f);
}

TEST(CellAt, ClampsToTheTilesCells) {
    PostCell inside = CellAt(-64.0, -64.0, 1.0 / 32.0, 80.0, 16.0);
    EXPECT_EQ(inside.i, 4);
    EXPECT_EQ(inside.j, 2);
    EXPECT_FLOAT_EQ(inside.fx, 0.5f);
    EXPECT_FLOAT_EQ(inside.fy, 0.5f);
    PostCell outside = CellAt(-64.0, -64.0, 1.0 / 32.0, 1e6, -1e6);
    EXPECT_EQ(outside.i, kTilePosts - 2);
    EXPECT_EQ(outside.j, 0);
    EXPECT_FLOAT_EQ(outside.fx, 1.0f);
    EXPECT_FLOAT_EQ(outside.fy, 0.0f);
}

}  // namespace
}  // namespace bfv::terrain
