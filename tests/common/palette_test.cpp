#include "common/palette.h"

#include <gtest/gtest.h>

namespace bfv::common {
namespace {

TEST(Palette, LandMaterialIsTheCoordinateDitheredBetweenItsTwoSteps) {
    EXPECT_EQ(LandMaterialAt(2.0f, 0.0f), 2);
    EXPECT_EQ(LandMaterialAt(2.0f, 0.999f), 2);
    EXPECT_EQ(LandMaterialAt(2.25f, 0.7f), 2);
    EXPECT_EQ(LandMaterialAt(2.25f, 0.8f), 3);
    EXPECT_EQ(LandMaterialAt(-1.0f, 0.9f), 0) << "below the ramp clamps";
    EXPECT_EQ(LandMaterialAt(kLandMaterials + 3.0f, 0.5f), kLandMaterials - 1) << "never water";
}

// Over the screen the dither thresholds are even, so that a coordinate's fraction is the
// share of the upper step it shows.
TEST(Palette, DitherShowsTheTwoStepsInProportion) {
    const float* thresholds = DitherThresholds();
    double sum = 0.0;
    for (int k = 0; k < kDitherSide * kDitherSide; ++k) {
        ASSERT_GE(thresholds[k], 0.0f);
        ASSERT_LT(thresholds[k], 1.0f);
        sum += thresholds[k];
    }
    EXPECT_NEAR(sum / (kDitherSide * kDitherSide), 0.5, 0.02);
    EXPECT_EQ(DitherAt(3, 5), thresholds[3 * kDitherSide + 5]);
    EXPECT_EQ(DitherAt(3 + kDitherSide, 5 + 2 * kDitherSide), DitherAt(3, 5)) << "tiles repeat";
    for (float fraction : {0.1f, 0.5f, 0.8f}) {
        int upper = 0;
        for (int x = 0; x < 200; ++x) {
            for (int y = 0; y < 100; ++y)
                upper += LandMaterialAt(4.0f + fraction, DitherAt(x, y)) == 5;
        }
        EXPECT_NEAR(upper / 20000.0, fraction, 0.03) << fraction;
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
    Rgb horizon = DefaultPalette()[0], zenith = DefaultPalette()[kSkyLevels - 1];
    EXPECT_GT(horizon.r, zenith.r);
    EXPECT_GT(zenith.b, zenith.r);
}

TEST(Palette, FullHazeLooksLikeTheHorizon) {
    Rgb horizon = DefaultPalette()[SkyIndex(0.0)];
    for (int m = 0; m < kMaterials; ++m) {
        Rgb hazed = DefaultPalette()[TerrainIndex(m, 1.0)];
        EXPECT_EQ(hazed.r, horizon.r);
        EXPECT_EQ(hazed.g, horizon.g);
        EXPECT_EQ(hazed.b, horizon.b);
    }
}

TEST(Palette, ToRgbScalesThePaletteColourByIntensity) {
    std::uint8_t index = TerrainIndex(2, 0.3);
    Rgb base = DefaultPalette()[index];
    Rgb full = ToRgb({index, 255}), black = ToRgb({index, 0}), half = ToRgb({index, 128});
    EXPECT_EQ(full.r, base.r);
    EXPECT_EQ(full.g, base.g);
    EXPECT_EQ(full.b, base.b);
    EXPECT_EQ(black.r + black.g + black.b, 0);
    EXPECT_NEAR(half.g, base.g * 128.0 / 255.0, 0.51);
}

}  // namespace
}  // namespace bfv::common
