#include "raytracer/relief.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace bfv::raytracer {
namespace {

// Heights of an nx x ny grid of posts from height(i, j).
template <typename F>
std::vector<float> Grid(int nx, int ny, F height) {
    std::vector<float> h(static_cast<std::size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) h[static_cast<std::size_t>(j) * nx + i] = height(i, j);
    }
    return h;
}

TEST(SkyView, FlatGroundSeesTheWholeSky) {
    auto flat = Grid(20, 15, [](int, int) { return 123.0f; });
    auto svf = SkyViewFactors(flat, 20, 15, 5.0);
    ASSERT_TRUE(svf.ok()) << svf.error().message;
    for (float s : *svf) EXPECT_FLOAT_EQ(s, 1.0f);
}

// A V valley along y, its walls rising 1 m per metre: the floor sees less sky than the ridges,
// and midway up a wall sees between them. A wall at 45 degrees hides half of the sky in the
// directions across the valley.
TEST(SkyView, AValleyFloorSeesLessSkyThanItsRidges) {
    const int nx = 41, ny = 41;
    auto valley = Grid(nx, ny, [](int i, int) { return std::abs(i - 20) * 2.0f; });
    auto svf = SkyViewFactors(valley, nx, ny, 2.0, {16, 100.0});
    ASSERT_TRUE(svf.ok()) << svf.error().message;
    auto at = [&](int i) { return (*svf)[20 * nx + i]; };
    EXPECT_LT(at(20), at(10));
    EXPECT_LT(at(10), at(0));
    EXPECT_FLOAT_EQ(at(0), 1.0f) << "a ridge on the grid's edge: nothing rises around it";
    // Across the valley (east, west) the horizon is at 45 deg; along it (north, south) at 0.
    EXPECT_GT(at(20), 0.3f);
    EXPECT_LT(at(20), 0.7f);
}

TEST(SkyView, APitSeesLessSkyThanThePlain) {
    const int n = 31;
    auto pit = Grid(n, n, [](int i, int j) {
        double r = std::hypot(i - 15, j - 15);
        return r < 4.0 ? static_cast<float>(-10.0 + 2.5 * r) : 0.0f;
    });
    auto svf = SkyViewFactors(pit, n, n, 1.0);
    ASSERT_TRUE(svf.ok()) << svf.error().message;
    EXPECT_LT((*svf)[15 * n + 15], 0.5f);
    EXPECT_FLOAT_EQ((*svf)[15 * n + 25], 1.0f) << "the plain: the pit lies below its level";
}

// The field built from a height function answers the grid's values at its posts, bilinearly
// between them, clamped beyond the data.
TEST(SkyViewField, AnswersItsPostsBilinearlyAndClampsToTheData) {
    auto height = [](double xM, double) { return std::abs(xM - 40.0); };
    auto field = SkyViewField::Build(80.0, 40.0, 2.0, height, {8, 50.0});
    ASSERT_TRUE(field.ok()) << field.error().message;
    auto grid = Grid(41, 21, [&](int i, int j) { return static_cast<float>(height(i * 2.0, j)); });
    auto svf = SkyViewFactors(grid, 41, 21, 2.0, {8, 50.0});
    ASSERT_TRUE(svf.ok());
    EXPECT_FLOAT_EQ(field->AtM(40.0, 20.0), (*svf)[10 * 41 + 20]);
    EXPECT_NEAR(field->AtM(41.0, 20.0), 0.5f * ((*svf)[10 * 41 + 20] + (*svf)[10 * 41 + 21]),
                1e-6f);
    EXPECT_FLOAT_EQ(field->AtM(-100.0, 20.0), (*svf)[10 * 41]);
    EXPECT_EQ(field->SpacingM(), 2.0);
}

TEST(SkyView, BadInputIsAnError) {
    auto flat = Grid(4, 4, [](int, int) { return 0.0f; });
    auto error = [](const Expected<std::vector<float>>& r) {
        return r.ok() ? std::string("no error") : r.error().message;
    };
    EXPECT_EQ(error(SkyViewFactors(flat, 4, 4, 0.0)),
              "sky-view factor: post spacing 0 m is not positive");
    EXPECT_EQ(error(SkyViewFactors({}, 0, 4, 1.0)), "sky-view factor: the grid of posts is empty");
    EXPECT_EQ(error(SkyViewFactors(flat, 3, 4, 1.0)),
              "sky-view factor: 16 heights for 3 x 4 posts");
    flat[6] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(error(SkyViewFactors(flat, 4, 4, 1.0)),
              "sky-view factor: post (2, 1) has a height that is not finite");
    flat[6] = 0.0f;
    EXPECT_NE(error(SkyViewFactors(flat, 4, 4, 1.0, {0, 10.0})), "no error");
    EXPECT_NE(error(SkyViewFactors(flat, 4, 4, 1.0, {16, -1.0})), "no error");
    auto field = SkyViewField::Build(-1.0, 10.0, 1.0, [](double, double) { return 0.0; });
    ASSERT_FALSE(field.ok());
    EXPECT_NE(field.error().message.find("not positive"), std::string::npos);
}

}  // namespace
}  // namespace bfv::raytracer
