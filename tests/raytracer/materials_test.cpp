#include "raytracer/materials.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <vector>

#include "raytracer/tile_cache.h"

namespace bfv::raytracer {
namespace {

// Land cover is a field of patches a few hundred metres across: in [0, 1], continuous, and
// different from place to place.
TEST(Materials, LandCoverComesInPatches) {
    float lowest = 1.0f, highest = 0.0f;
    for (double yM = -5000.0; yM < 5000.0; yM += 97.0) {
        for (double xM = -5000.0; xM < 5000.0; xM += 89.0) {
            float c = LandCover(xM, yM);
            ASSERT_GE(c, 0.0f);
            ASSERT_LE(c, 1.0f);
            lowest = std::min(lowest, c);
            highest = std::max(highest, c);
            EXPECT_LT(std::abs(LandCover(xM + 1.0, yM) - c), 0.02f) << "continuous at 1 m";
        }
    }
    EXPECT_LT(lowest, 0.25f);
    EXPECT_GT(highest, 0.75f);
}

// The finer land cover moves a fractal tile's material by at most 0.6 either way, about
// evenly, and changes over tens of metres.
TEST(Materials, LandCoverDetailIsSmallEvenAndFine) {
    double sum = 0.0;
    int count = 0, changes = 0;
    for (double yM = 0.0; yM < 2000.0; yM += 7.0) {
        for (double xM = 0.0; xM < 2000.0; xM += 7.0) {
            float d = LandCoverDetail(xM, yM);
            ASSERT_LE(std::abs(d), 0.6f);
            sum += d;
            ++count;
            changes += std::abs(LandCoverDetail(xM + 40.0, yM) - d) > 0.1f;
        }
    }
    EXPECT_NEAR(sum / count, 0.0, 0.05);
    EXPECT_GT(changes, count / 4) << "patches tens of metres across";
}

// The grid evaluations give the functions' values to the bit, on grids finer than the noise's
// cells (lattice points shared) and coarser (each post its own).
TEST(Materials, LandCoverAtAGridIsTheFunctionAtEveryPost) {
    for (double spacingM : {1.0, 16.0, 128.0, 512.0}) {
        const int posts = 9;
        const double originXM = -310.5, originYM = 1234.25;
        std::vector<float> cover = LandCoverAt(originXM, originYM, spacingM, posts);
        std::vector<float> detail = LandCoverDetailAt(originXM, originYM, spacingM, posts);
        ASSERT_EQ(cover.size(), 81u);
        ASSERT_EQ(detail.size(), 81u);
        for (int j = 0; j < posts; ++j) {
            for (int i = 0; i < posts; ++i) {
                double xM = originXM + i * spacingM, yM = originYM + j * spacingM;
                ASSERT_EQ(cover[j * posts + i], LandCover(xM, yM))
                    << spacingM << " m: post " << i << ", " << j;
                ASSERT_EQ(detail[j * posts + i], LandCoverDetail(xM, yM))
                    << spacingM << " m: post " << i << ", " << j;
            }
        }
    }
}

// Each input moves a post along the ramp the way its documentation says, and the
// coordinate stays on the land ramp.
TEST(Materials, CoordinateFollowsSlopeReliefHeightAndCover) {
    auto at = [](float height, float slope, float relief, float cover) {
        return LandMaterialCoordinate(height, slope, relief, cover);
    };
    // Flat valley floors are cleared: field or meadow; wooded hillsides: forest.
    EXPECT_LT(at(0.3f, 0.0f, -0.05f, 0.5f), 2.0f);
    EXPECT_GE(at(0.3f, 0.3f, 0.0f, 0.5f), 2.0f);
    EXPECT_LT(at(0.3f, 0.3f, 0.0f, 0.5f), 5.0f);
    // Steep ground is rock, and steeper darker rock.
    EXPECT_GE(at(0.3f, 0.85f, 0.0f, 0.5f), 6.0f);
    EXPECT_GE(at(0.3f, 1.0f, 0.0f, 0.5f), 7.0f);
    EXPECT_EQ(at(0.3f, 0.3f, 0.0f, 0.5f), at(0.3f, 0.5f, 0.0f, 0.5f)) << "no rock below 0.5";
    // Valleys toward meadow, ridges toward dense forest and scrub; the top fifth higher.
    EXPECT_LT(at(0.3f, 0.3f, -0.1f, 0.5f), at(0.3f, 0.3f, 0.1f, 0.5f));
    EXPECT_LT(at(0.5f, 0.3f, 0.0f, 0.5f), at(0.95f, 0.3f, 0.0f, 0.5f));
    EXPECT_EQ(at(0.3f, 0.3f, 0.0f, 0.5f), at(0.6f, 0.3f, 0.0f, 0.5f)) << "below the top fifth";
    // Cover makes patches: the same ground open in one place and dense in another.
    EXPECT_LE(at(0.3f, 0.3f, 0.0f, 0.0f) + 3.0f, at(0.3f, 0.3f, 0.0f, 1.0f));
    // On the ramp, and continuous: small steps of any input move it a little.
    for (float slope = 0.0f; slope < 2.0f; slope += 0.01f) {
        for (float relief = -0.4f; relief < 0.4f; relief += 0.05f) {
            for (float cover = 0.0f; cover <= 1.0f; cover += 0.1f) {
                float c = at(0.9f, slope, relief, cover);
                ASSERT_GE(c, 0.0f);
                ASSERT_LT(c, static_cast<float>(common::kLandMaterials));
                ASSERT_LT(std::abs(at(0.9f, slope + 0.01f, relief, cover) - c), 0.2f);
                ASSERT_LT(std::abs(at(0.9f, slope, relief + 0.01f, cover) - c), 0.1f);
                ASSERT_LT(std::abs(at(0.9f, slope, relief, cover + 0.01f) - c), 0.15f);
                ASSERT_LT(std::abs(at(0.91f, slope, relief, cover) - c), 0.1f);
            }
        }
    }
}

TEST(Materials, DefaultSnowLineFallsWithLatitude) {
    EXPECT_DOUBLE_EQ(DefaultSnowLineM(0.0), 5200.0);
    EXPECT_DOUBLE_EQ(DefaultSnowLineM(45.0), 2700.0) << "the Alps";
    EXPECT_DOUBLE_EQ(DefaultSnowLineM(-45.0), 2700.0) << "either hemisphere";
    EXPECT_DOUBLE_EQ(DefaultSnowLineM(60.0), 1200.0);
    EXPECT_DOUBLE_EQ(DefaultSnowLineM(89.0), 0.0) << "never below sea level";
}

// Snow lies above the snow line, less on steep slopes and none on cliffs; the forest ends at
// the tree line below it; without a snow line there is neither.
TEST(Materials, HeightZonesFollowTheSnowLineAndTheSlope) {
    const double line = 2000.0;
    EXPECT_EQ(HeightZoneOf(1000.0f, 0.1f, line).alpine, 0.0f);
    EXPECT_EQ(HeightZoneOf(1000.0f, 0.1f, line).snow, 0.0f);
    EXPECT_GT(HeightZoneOf(1300.0f, 0.1f, line).alpine, 0.4f) << "150 m above the tree line";
    EXPECT_EQ(HeightZoneOf(1990.0f, 0.1f, line).snow, 0.0f);
    EXPECT_EQ(HeightZoneOf(2200.0f, 0.1f, line).snow, 1.0f);
    EXPECT_EQ(HeightZoneOf(2200.0f, 0.1f, line).alpine, 1.0f);
    EXPECT_LT(HeightZoneOf(2200.0f, 0.95f, line).snow, 1.0f) << "steep slopes hold less";
    EXPECT_GT(HeightZoneOf(2200.0f, 0.95f, line).snow, 0.0f);
    EXPECT_EQ(HeightZoneOf(2200.0f, 1.5f, line).snow, 0.0f) << "cliffs hold none";
    HeightZone none = HeightZoneOf(8000.0f, 0.1f, kNoSnowLineM);
    EXPECT_EQ(none.snow, 0.0f);
    EXPECT_EQ(none.alpine, 0.0f);
    // Smooth: no step anywhere up the mountain.
    for (float h = 900.0f; h < 2400.0f; h += 1.0f) {
        HeightZone a = HeightZoneOf(h, 0.3f, line), b = HeightZoneOf(h + 1.0f, 0.3f, line);
        EXPECT_LE(std::abs(a.snow - b.snow), 0.02f) << h;
        EXPECT_LE(std::abs(a.alpine - b.alpine), 0.02f) << h;
    }
}

// Above the tree line a forest's colour turns to bare rock's; under full snow it is snow's.
TEST(Materials, LandColourTurnsToRockAboveTheTreesAndToSnowAboveTheSnowLine) {
    const common::LandColours& ramp = common::DefaultLandColours();
    constexpr float kForest = 3.0f, kBareRock = 6.0f;
    EXPECT_EQ(LandColour(kForest, {}), ramp[3]);
    EXPECT_EQ(LandColour(kForest, {1.0f, 0.0f}), ramp[static_cast<int>(kBareRock)]);
    EXPECT_EQ(LandColour(kForest, {1.0f, 1.0f}), kSnowColour);
    EXPECT_EQ(LandColour(7.0f, {1.0f, 0.0f}), ramp[7]) << "steep rock stays rock";
}

// Luma of a colour (Rec. 709 weights), 0..255.
double Luma(common::Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b; }

// Coarse posts keep the land's colour; fine posts of field show parcels of several tints with
// darker edges, and fine posts of forest show crowns (bright) and their shadows (dark), the
// same every time.
TEST(Materials, GroundDetailShowsParcelsAndCrownsOnFinePostsOnly) {
    const common::Rgb land = common::DefaultLandColours()[3];
    const double sunX = -0.7071, sunY = 0.7071, sunTan = 1.0;  // north-west, 45 degrees up
    auto detail = [&](double spacingM) {
        return GroundDetail(0.0, 0.0, 1024.0, 1024.0, spacingM, sunX, sunY, sunTan);
    };
    EXPECT_EQ(detail(16.0).Colour(100.0, 200.0, 3.0f, land), land);
    EXPECT_EQ(detail(4.0).Colour(100.0, 200.0, 3.0f, land), land) << "no crowns on 4 m posts";
    const GroundDetail fine = detail(1.0);
    const common::Rgb field = common::DefaultLandColours()[0];
    std::set<std::uint32_t> tints;
    double edgeLuma = 0.0, insideLuma = 0.0;
    int edges = 0, insides = 0;
    for (double x = 0.5; x < 1024.0; x += 1.0) {
        common::Rgb c = fine.Colour(x, 300.5, 0.0f, field);
        EXPECT_EQ(c, fine.Colour(x, 300.5, 0.0f, field));
        tints.insert(PackColour(c));
        double fromGrid = std::fmod(x, 128.0);
        if (fromGrid < 0.6 || fromGrid > 127.4) {
            edgeLuma += Luma(c), ++edges;
        } else if (fromGrid > 10.0 && fromGrid < 20.0) {
            insideLuma += Luma(c), ++insides;
        }
    }
    EXPECT_GE(tints.size(), 4u) << "parcels of several crops";
    EXPECT_LT(edgeLuma / edges, 0.8 * insideLuma / insides) << "hedges along the grid's edges";
    double lo = 1e9, hi = 0.0;
    for (double x = 0.25; x < 60.0; x += 0.5) {
        for (double y = 0.25; y < 60.0; y += 0.5) {
            double l = Luma(fine.Colour(x, y, 4.0f, land));
            lo = std::min(lo, l), hi = std::max(hi, l);
        }
    }
    EXPECT_LT(lo, 0.7 * Luma(land)) << "shadows and forest floor";
    EXPECT_GT(hi, 1.1 * Luma(land)) << "sunlit crowns";
}

// The crowns a GroundDetail hashed for its rectangle are the crowns of their cells: points
// inside it and far outside it (where it hashes the cells it needs) get the colours of a
// GroundDetail built around them, at every sun (shadows reach the other way for each).
TEST(Materials, GroundDetailIsTheSameInsideAndOutsideItsRectangle) {
    const common::Rgb land = common::DefaultLandColours()[3];
    for (double sunDeg : {0.0, 100.0, 200.0, 300.0}) {
        const double sunX = std::sin(sunDeg * std::numbers::pi / 180.0),
                     sunY = std::cos(sunDeg * std::numbers::pi / 180.0), sunTan = 0.3;
        const GroundDetail tile(64.0, 128.0, 128.0, 192.0, 1.0, sunX, sunY, sunTan);
        int differ = 0, points = 0;
        for (double y = 100.0; y < 220.0; y += 0.75) {
            for (double x = 30.0; x < 160.0; x += 0.75) {
                const GroundDetail around(x, y, x, y, 1.0, sunX, sunY, sunTan);
                for (float coordinate : {2.0f, 3.0f, 4.5f}) {
                    differ += tile.Colour(x, y, coordinate, land) !=
                              around.Colour(x, y, coordinate, land);
                    ++points;
                }
            }
        }
        EXPECT_EQ(differ, 0) << "of " << points << " points, sun at " << sunDeg << " deg";
    }
}

}  // namespace
}  // namespace bfv::raytracer
