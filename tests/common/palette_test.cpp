#include "common/palette.h"

#include <gtest/gtest.h>

namespace bfv::common {
namespace {

TEST(Palette, MaterialIsAHeightBandUnlessSteep) {
    EXPECT_EQ(MaterialFor(0.0, 0.0), 0);
    EXPECT_EQ(MaterialFor(0.2, 0.1), 1);
    EXPECT_EQ(MaterialFor(0.99, 0.1), 5);
    EXPECT_EQ(MaterialFor(1.0, 0.1), 5);   // the highest post is still in the top band
    EXPECT_EQ(MaterialFor(-0.5, 0.1), 0);  // below the range (a coarse mip) clamps
    EXPECT_EQ(MaterialFor(0.2, 0.6), 6);   // rock
    EXPECT_EQ(MaterialFor(0.2, 1.5), 7);   // steep rock
    for (double h = 0.0; h <= 1.0; h += 0.01) {
        EXPECT_LE(MaterialFor(h, 0.0), MaterialFor(h + 0.01, 0.0));
    }
}

TEST(Palette, TerrainIndicesStayInTheirMaterialsBlock) {
    for (int m = 0; m < kMaterials; ++m) {
        EXPECT_EQ(TerrainIndex(m, 0.0), kSkyLevels + m * kHazeLevels);
        EXPECT_EQ(TerrainIndex(m, 1.0), kSkyLevels + (m + 1) * kHazeLevels - 1);
        EXPECT_EQ(TerrainIndex(m, 7.0), TerrainIndex(m, 1.0));
        EXPECT_EQ(TerrainIndex(m, -1.0), TerrainIndex(m, 0.0));
    }
    EXPECT_LT(TerrainIndex(kMaterials - 1, 1.0), kPaletteSize);
}

TEST(Palette, SkyRunsFromHorizonToZenith) {
    EXPECT_EQ(SkyIndex(-3.0), 0);
    EXPECT_EQ(SkyIndex(0.0), 0);
    EXPECT_EQ(SkyIndex(0.6), kSkyLevels - 1);
    EXPECT_EQ(SkyIndex(50.0), kSkyLevels - 1);
    for (double k = 0.0; k < 0.7; k += 0.01) EXPECT_LE(SkyIndex(k), SkyIndex(k + 0.01));
    // Zenith is bluer and darker than the hazy horizon.
    Rgb horizon = Palette()[0], zenith = Palette()[kSkyLevels - 1];
    EXPECT_GT(horizon.r, zenith.r);
    EXPECT_GT(zenith.b, zenith.r);
}

TEST(Palette, FullHazeLooksLikeTheHorizon) {
    Rgb horizon = Palette()[SkyIndex(0.0)];
    for (int m = 0; m < kMaterials; ++m) {
        Rgb hazed = Palette()[TerrainIndex(m, 1.0)];
        EXPECT_EQ(hazed.r, horizon.r);
        EXPECT_EQ(hazed.g, horizon.g);
        EXPECT_EQ(hazed.b, horizon.b);
    }
}

TEST(Palette, ToRgbScalesThePaletteColourByIntensity) {
    std::uint8_t index = TerrainIndex(2, 0.3);
    Rgb base = Palette()[index];
    Rgb full = ToRgb({index, 255}), black = ToRgb({index, 0}), half = ToRgb({index, 128});
    EXPECT_EQ(full.r, base.r);
    EXPECT_EQ(full.g, base.g);
    EXPECT_EQ(full.b, base.b);
    EXPECT_EQ(black.r + black.g + black.b, 0);
    EXPECT_NEAR(half.g, base.g * 128.0 / 255.0, 0.51);
}

}  // namespace
}  // namespace bfv::common
