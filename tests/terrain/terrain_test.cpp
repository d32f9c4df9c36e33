// The post grid: height checks on import, the height range, and the bilinear interpolation the
// flight's ground and the pyramid's levels sample it with.

#include "terrain/terrain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "tests/expected_error.h"

namespace bfv::terrain {
namespace {

using test_support::ErrorOf;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Terrain, PostHeightsWithinTheRangePass) {
    std::vector<float> heights = {-1e5f, -10994.0f, 0.0f, 8848.0f, 1e5f, 3.5f};
    EXPECT_EQ(ErrorOf(CheckPostHeights(heights, 3, NanHeights::Refused)), "");
}

TEST(Terrain, BadPostHeightsAreCountedAndTheFirstIsPlaced) {
    // 4 columns: the first bad post, inf, is at row 1, column 3 (index 7).
    std::vector<float> heights = {1, 2, 3, 4, 5, 6, 7, kInf, 9, -3.4e38f, 11, 12};
    EXPECT_EQ(ErrorOf(CheckPostHeights(heights, 4, NanHeights::Refused)),
              "2 posts are not finite heights >= -100000 and <= 100000 m; the first is inf at "
              "row 1, column 3");
    std::vector<float> one = {1, 2e5f, 3};
    EXPECT_EQ(ErrorOf(CheckPostHeights(one, 3, NanHeights::Refused)),
              "1 post is not finite heights >= -100000 and <= 100000 m; the first is 200000 at "
              "row 0, column 1");
}

TEST(Terrain, NanIsAnErrorOrNodataAsAsked) {
    std::vector<float> heights = {1, kNan, 3, 4};
    EXPECT_EQ(ErrorOf(CheckPostHeights(heights, 2, NanHeights::Refused)),
              "1 post is not finite heights >= -100000 and <= 100000 m; the first is nan at row 0, "
              "column 1");
    EXPECT_EQ(ErrorOf(CheckPostHeights(heights, 2, NanHeights::Nodata)), "");
    heights[3] = -kInf;
    EXPECT_EQ(ErrorOf(CheckPostHeights(heights, 2, NanHeights::Nodata)),
              "1 post is not nodata or heights >= -100000 and <= 100000 m; the first is -inf at "
              "row 1, column 1");
}

// Fed a strip of rows at a time, the check counts and places the bad posts over the whole
// raster: the same verdict as CheckPostHeights over it whole.
TEST(Terrain, PostHeightCheckOverStripsGivesTheWholeRastersVerdict) {
    std::vector<float> heights(5 * 3, 100.0f);  // 5 rows of 3
    heights[3 * 3 + 2] = 2e5f;                  // row 3, column 2
    heights[4 * 3 + 0] = kNan;
    PostHeightCheck strips(3, NanHeights::Refused);
    std::span<const float> all(heights);
    strips.Add(all.subspan(0, 6));
    EXPECT_EQ(ErrorOf(strips.Result()), "") << "nothing bad in the first two rows";
    strips.Add(all.subspan(6, 6));
    strips.Add(all.subspan(12, 3));
    EXPECT_EQ(ErrorOf(strips.Result()), ErrorOf(CheckPostHeights(heights, 3, NanHeights::Refused)));
    EXPECT_EQ(ErrorOf(strips.Result()),
              "2 posts are not finite heights >= -100000 and <= 100000 m; the first is 200000 at "
              "row 3, column 2");
}

TEST(Terrain, HeightRangeAndSizeOfTheGrid) {
    Terrain t{"t", 3, 2, 10.0, 20.0, {}, {5, -7.5f, 3, 12.25f, 0, 1}};
    HeightRange range = ComputeHeightRange(t);
    EXPECT_EQ(range.minM, -7.5f);
    EXPECT_EQ(range.maxM, 12.25f);
    EXPECT_EQ(t.HeightAt(0, 1), 12.25f);  // row 1 starts at index nx
    EXPECT_EQ(t.WidthM(), 30.0);
    EXPECT_EQ(t.DepthM(), 40.0);
}

// Four posts 10 m apart, centred at 5, 15, 25 and 35 m.
TEST(Terrain, PostSpanFindsThePostsEitherSideAndClampsOutside) {
    auto expectSpan = [](double m, int index, double fraction) {
        PostSpan s = PostSpanAt(m, 10.0, 4);
        EXPECT_EQ(s.index, index) << m;
        EXPECT_DOUBLE_EQ(s.fraction, fraction) << m;
    };
    expectSpan(5.0, 0, 0.0);
    expectSpan(20.0, 1, 0.5);
    expectSpan(32.5, 2, 0.75);
    expectSpan(35.0, 2, 1.0);  // the last post: the span before it, all the way
    expectSpan(0.0, 0, 0.0);   // west of the first post: clamped to it
    expectSpan(-50.0, 0, 0.0);
    expectSpan(100.0, 2, 1.0);  // east of the last
}

// 2 x 2 posts 1 m apart at 0.5 and 1.5 m: 0, 10 (south row), 20, 30 (north row).
TEST(Terrain, BilinearInterpolatesBetweenPostsAndTakesTheEdgeOutside) {
    Terrain t{"square", 2, 2, 1.0, 1.0, {}, {0, 10, 20, 30}};
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, 0.5, 0.5), 0.0);
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, 1.5, 1.5), 30.0);
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, 1.0, 1.0), 15.0);
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, 1.5, 0.75), 15.0);  // east edge, a quarter north
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, -5.0, -5.0), 0.0);
    EXPECT_DOUBLE_EQ(BilinearHeightM(t, 9.0, 1.0), 20.0);  // east of the grid, halfway north
    PostSpan x = PostSpanAt(1.25, 1.0, 2);
    EXPECT_EQ(BilinearRows(&t.heightsM[0], &t.heightsM[2], x, 0.5),
              BilinearPosts(t.heightsM.data(), 2, 2, 1.0, 1.0, 1.25, 1.0))
        << "the same bits either way";
}

// A plane is interpolated exactly, with different spacings east-west and south-north.
TEST(Terrain, BilinearReproducesAPlane) {
    Terrain t{"plane", 6, 4, 10.0, 25.0, {}, {}};
    for (int j = 0; j < t.ny; ++j) {
        for (int i = 0; i < t.nx; ++i) {
            t.heightsM.push_back(
                static_cast<float>(2.0 * (i + 0.5) * 10.0 + 3.0 * (j + 0.5) * 25.0));
        }
    }
    for (double xM : {5.0, 12.5, 33.0, 50.0}) {
        for (double yM : {12.5, 40.0, 80.0}) {
            EXPECT_NEAR(BilinearHeightM(t, xM, yM), 2.0 * xM + 3.0 * yM, 1e-3) << xM << "," << yM;
            EXPECT_NEAR(SmoothedHeightM(t, xM + 1, yM + 1, 0.5), 2.0 * (xM + 1) + 3.0 * (yM + 1),
                        1e-3)
                << "a plane smooths to itself";
        }
    }
}

// Nine samples one post apart around a lone 90 m post: its height shared among the nine.
TEST(Terrain, SmoothedHeightIsTheMeanOfNinePoints) {
    Terrain t{"spike", 5, 5, 10.0, 10.0, {}, std::vector<float>(25, 0.0f)};
    t.heightsM[2 * 5 + 2] = 90.0f;  // post (2, 2) at 25 m, 25 m
    EXPECT_DOUBLE_EQ(SmoothedHeightM(t, 25.0, 25.0, 10.0), 10.0);
    EXPECT_DOUBLE_EQ(SmoothedHeightM(t, 25.0, 25.0, 0.0), 90.0);
}

}  // namespace
}  // namespace bfv::terrain
