// The water level a render draws, from --sea-level, --no-water and the pyramid's lowest post.

#include "terrain/water.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

namespace bfv::terrain {
namespace {

// The water level: as given; else 0 m where the DEM goes below 0 m; else none; none with
// --no-water.
TEST(WaterLevel, GivenOrSeaLevelWhereTheDemGoesBelowIt) {
    PyramidInfo land, seaFloor;
    land.minHeightM = 12.0f;
    seaFloor.minHeightM = -4000.0f;
    EXPECT_EQ(WaterLevelM(std::nullopt, true, land), kNoWaterM);
    EXPECT_EQ(WaterLevelM(std::nullopt, true, seaFloor), 0.0);
    EXPECT_EQ(WaterLevelM(250.0, true, land), 250.0);
    EXPECT_EQ(WaterLevelM(-5.0, true, seaFloor), -5.0);
    EXPECT_EQ(WaterLevelM(std::nullopt, false, seaFloor), kNoWaterM);
    EXPECT_EQ(WaterLevelM(250.0, false, land), kNoWaterM);
}

// "Below 0 m" is strict: a DEM whose lowest post is at 0 m has no sea; one a centimetre below
// has.
TEST(WaterLevel, ADemThatOnlyReachesZeroHasNoSea) {
    PyramidInfo info;
    info.minHeightM = 0.0f;
    EXPECT_EQ(WaterLevelM(std::nullopt, true, info), kNoWaterM);
    info.minHeightM = -0.01f;
    EXPECT_EQ(WaterLevelM(std::nullopt, true, info), 0.0);
}

// No water raises nothing: max(height, kNoWaterM) is the height, however deep.
TEST(WaterLevel, NoWaterRaisesNoHeight) {
    for (double heightM : {-11000.0, -1e5, 0.0, 8848.0}) {
        EXPECT_EQ(std::max(heightM, kNoWaterM), heightM);
    }
}

}  // namespace
}  // namespace bfv::terrain
