#include "common/palette.h"

#include <gtest/gtest.h>

#include <cmath>

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

// The ground dither is white noise in [0, 1) over the post cells of a level, even on average,
// and the same for a cell every time it is asked.
TEST(Palette, GroundDitherIsEvenNoiseInTheUnitInterval) {
    double sum = 0.0;
    int cells = 0;
    for (int level = 0; level < 3; ++level) {
        for (int j = -150; j < 150; ++j) {
            for (int i = -150; i < 150; ++i) {
                float dither = GroundDither(i, j, level);
                ASSERT_GE(dither, 0.0f) << i << ", " << j << ", level " << level;
                ASSERT_LT(dither, 1.0f) << i << ", " << j << ", level " << level;
                sum += dither;
                ++cells;
            }
        }
    }
    EXPECT_NEAR(sum / cells, 0.5, 0.005);
    EXPECT_EQ(GroundDither(12345, -678, 4), GroundDither(12345, -678, 4)) << "deterministic";
}

// Neighbouring cells, and the same cell on neighbouring levels, take unrelated thresholds: the
// grain is a cell across, not a smooth ramp.
TEST(Palette, GroundDitherDiffersBetweenNeighbouringCellsAndLevels) {
    int cells = 0, sameEast = 0, sameNorth = 0, sameLevel = 0;
    double gapEast = 0.0;
    for (int j = 0; j < 100; ++j) {
        for (int i = 0; i < 100; ++i) {
            float here = GroundDither(i, j, 2);
            sameEast += here == GroundDither(i + 1, j, 2);
            sameNorth += here == GroundDither(i, j + 1, 2);
            sameLevel += here == GroundDither(i, j, 3);
            gapEast += std::abs(here - GroundDither(i + 1, j, 2));
            ++cells;
        }
    }
    EXPECT_EQ(sameEast, 0);
    EXPECT_EQ(sameNorth, 0);
    EXPECT_EQ(sameLevel, 0);
    EXPECT_NEAR(gapEast / cells, 1.0 / 3.0, 0.02) << "the mean gap of two independent uniforms";
}

// Over many cells the two steps around a material coordinate show in proportion to its
// fraction, and an integer coordinate shows its own step whatever the dither.
TEST(Palette, GroundDitherShowsTheTwoStepsInProportion) {
    for (float fraction : {0.1f, 0.5f, 0.8f}) {
        int upper = 0;
        for (int i = 0; i < 200; ++i) {
            for (int j = 0; j < 100; ++j) {
                upper += LandMaterialAt(4.0f + fraction, GroundDither(i, j, 5)) == 5;
            }
        }
        EXPECT_NEAR(upper / 20000.0, fraction, 0.02) << fraction;
    }
    for (int material = 0; material < kLandMaterials; ++material) {
        for (int i = 0; i < 100; ++i) {
            ASSERT_EQ(LandMaterialAt(static_cast<float>(material), GroundDither(i, 7 * i, 1)),
                      material);
        }
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
