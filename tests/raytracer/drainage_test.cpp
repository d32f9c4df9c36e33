#include "raytracer/drainage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace bfv::raytracer {
namespace {

constexpr int kNx = 61, kNy = 201;  // posts
constexpr double kSpacingM = 10.0;
constexpr int kThalwegI = 30;  // the valley's floor runs along this column

// A V valley 600 m wide and 2 km long: two planes falling 0.2 m per metre toward a thalweg
// that falls 0.02 m per metre southward (toward row 0). `pit` carves a hole 8 m deep and 4
// posts across into the thalweg at row 100.
std::vector<float> Valley(bool pit = false) {
    std::vector<float> h(static_cast<std::size_t>(kNx) * kNy);
    for (int j = 0; j < kNy; ++j) {
        for (int i = 0; i < kNx; ++i) {
            double across = std::abs(i - kThalwegI) * kSpacingM * 0.2;
            double along = j * kSpacingM * 0.02;
            double hole = pit ? std::max(0.0, 8.0 - 2.0 * std::hypot(i - kThalwegI, j - 100)) : 0.0;
            h[static_cast<std::size_t>(j) * kNx + i] =
                static_cast<float>(100.0 + across + along - hole);
        }
    }
    return h;
}

DrainageOptions TestOptions() {
    DrainageOptions o;
    o.thresholdM2 = 0.1e6;  // reached 17 rows down from the valley's head
    o.widthAt1Km2M = 8.0;
    o.minWidthM = 3.0;
    return o;
}

double XM(int i) { return i * kSpacingM; }
double YM(int j) { return j * kSpacingM; }

// The thalweg is water from where the upstream area passes the threshold down to the valley's
// mouth, between its posts too (the centreline joins them); the ridges and slopes are dry.
TEST(Drainage, AValleyDrainsAlongItsThalwegAndItsRidgesAreDry) {
    auto field = DrainageField::Build(Valley(), kNx, kNy, kSpacingM, TestOptions());
    ASSERT_TRUE(field.ok()) << field.error().message;
    for (int j = 1; j < 180; ++j) {
        EXPECT_FLOAT_EQ(field->WaterShareAtM(XM(kThalwegI), YM(j)), 1.0f) << "row " << j;
        EXPECT_FLOAT_EQ(field->WaterShareAtM(XM(kThalwegI) + 0.5, YM(j) + 5.0), 1.0f);
        EXPECT_EQ(field->WaterShareAtM(XM(kThalwegI - 10), YM(j)), 0.0f) << "slope, row " << j;
        EXPECT_EQ(field->WaterShareAtM(XM(0), YM(j)), 0.0f) << "ridge, row " << j;
        EXPECT_EQ(field->WaterShareAtM(XM(kNx - 1), YM(j)), 0.0f) << "ridge, row " << j;
    }
    EXPECT_EQ(field->WaterShareAtM(XM(kThalwegI), YM(kNy - 3)), 0.0f) << "above the threshold";
    EXPECT_GT(field->ChannelPosts(), 150);
    EXPECT_LT(field->ChannelPosts(), 200);
}

// Down the valley the area draining through the thalweg grows, up to about the valley's own.
TEST(Drainage, UpstreamAreaGrowsDownTheThalweg) {
    auto field = DrainageField::Build(Valley(), kNx, kNy, kSpacingM, TestOptions());
    ASSERT_TRUE(field.ok()) << field.error().message;
    for (int j = 1; j + 1 < kNy; ++j) {
        EXPECT_GT(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(j)),
                  field->UpstreamAreaM2AtM(XM(kThalwegI), YM(j + 1)))
            << "row " << j;
    }
    double valleyM2 = (kNx - 2) * (kNy - 2) * kSpacingM * kSpacingM;
    EXPECT_GT(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(1)), 0.9 * valleyM2);
    EXPECT_LE(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(1)), valleyM2 + 1.0);
    EXPECT_EQ(field->UpstreamAreaM2AtM(XM(0), YM(50)), kSpacingM * kSpacingM) << "a ridge post";
}

// A hole in the thalweg fills to its spill point and the river runs on through it, its water
// surface level across the pond and at least the terrain's there.
TEST(Drainage, APitFillsAndTheRiverRunsThroughIt) {
    auto heights = Valley(true);
    auto field = DrainageField::Build(heights, kNx, kNy, kSpacingM, TestOptions());
    ASSERT_TRUE(field.ok()) << field.error().message;
    for (int j = 1; j < 160; ++j) {
        EXPECT_FLOAT_EQ(field->WaterShareAtM(XM(kThalwegI), YM(j)), 1.0f) << "row " << j;
    }
    EXPECT_GT(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(90)),
              field->UpstreamAreaM2AtM(XM(kThalwegI), YM(110)));
    StreamWater pond = field->WaterAtM(XM(kThalwegI), YM(100));
    EXPECT_GE(pond.surfaceM, heights[100 * kNx + kThalwegI] + 7.0f) << "the hole is 8 m deep";
    EXPECT_NEAR(pond.surfaceM, field->WaterAtM(XM(kThalwegI), YM(101)).surfaceM, 0.01f);
    StreamWater below = field->WaterAtM(XM(kThalwegI), YM(50));
    EXPECT_NEAR(below.surfaceM, heights[50 * kNx + kThalwegI], 0.01f) << "no pit: the ground";
}

// Width ~ sqrt(area): the channel near the mouth is wider than near its head, and a footprint
// wider than the channel sees the channel's share of it.
TEST(Drainage, TheChannelWidensWithItsUpstreamArea) {
    auto field = DrainageField::Build(Valley(), kNx, kNy, kSpacingM, TestOptions());
    ASSERT_TRUE(field.ok()) << field.error().message;
    double headM = field->ChannelWidthM(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(175)));
    double mouthM = field->ChannelWidthM(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(10)));
    EXPECT_GT(mouthM, 2.0 * headM);
    EXPECT_NEAR(mouthM, 8.0 * std::sqrt(field->UpstreamAreaM2AtM(XM(kThalwegI), YM(10)) / 1e6),
                1e-9);
    // Between the two half-widths, 1 m footprints: water at the mouth, dry at the head.
    double offM = 0.25 * (headM + mouthM);
    EXPECT_EQ(field->WaterShareAtM(XM(kThalwegI) + offM, YM(10)), 1.0f);
    EXPECT_EQ(field->WaterShareAtM(XM(kThalwegI) + offM, YM(175)), 0.0f);
    // The bank: half the footprint on the water at the half-width.
    EXPECT_NEAR(field->WaterShareAtM(XM(kThalwegI) + 0.5 * mouthM, YM(10), 2.0), 0.5f, 1e-3f);
    EXPECT_NEAR(field->WaterShareAtM(XM(kThalwegI), YM(10), 4.0 * mouthM), 0.25f, 1e-3f);
    EXPECT_EQ(field->ChannelWidthM(0.5 * TestOptions().thresholdM2), 0.0);
    EXPECT_EQ(field->ChannelWidthM(TestOptions().thresholdM2), TestOptions().minWidthM);
    EXPECT_EQ(field->ChannelWidthM(1e12), DrainageOptions{}.maxWidthM);
}

// A stream whose D8 path climbs one row every two columns (a straight step, then a diagonal one)
// is drawn straight: the smoothed centreline runs along the staircase's mean line, off the
// staircase's outer posts by more than the channel's half-width.
TEST(Drainage, AStaircaseOfD8StepsIsDrawnStraight) {
    const int nx = 41, ny = 30;
    const double spacingM = 10.0;
    auto pathJ = [](int i) { return 2 + i / 2; };
    std::vector<float> h(static_cast<std::size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            int off = std::abs(j - pathJ(i));
            h[static_cast<std::size_t>(j) * nx + i] =
                static_cast<float>(100.0 - 0.5 * i + 2.0 * off + (off > 0 ? 5.0 : 0.0));
        }
    }
    DrainageOptions o;
    o.thresholdM2 = 5000.0;  // the staircase from its third column; no side stream
    o.widthAt1Km2M = 1.0;    // 3 m wide (the narrowest) all along
    auto field = DrainageField::Build(h, nx, ny, spacingM, o);
    ASSERT_TRUE(field.ok()) << field.error().message;
    // The posts (2k, k + 2) and (2k + 1, k + 2) have the mean line y = x / 2 + 1.75 (in posts).
    for (double x = 6.0; x <= 34.0; x += 0.05) {
        EXPECT_FLOAT_EQ(field->WaterShareAtM(x * spacingM, (x / 2.0 + 1.75) * spacingM), 1.0f)
            << "x " << x << " posts";
    }
    for (int k = 3; k <= 16; ++k) {
        EXPECT_EQ(field->WaterShareAtM((2 * k + 1) * spacingM, (k + 2) * spacingM), 0.0f)
            << "outer post (" << 2 * k + 1 << ", " << k + 2 << ")";
        EXPECT_EQ(field->WaterShareAtM(2 * k * spacingM, (k + 2) * spacingM), 0.0f)
            << "inner post (" << 2 * k << ", " << k + 2 << ")";
    }
    EXPECT_EQ(field->ChannelPosts(), nx - 2) << "the staircase's posts from column 2, no others";
}

// Flat ground drains too (each flat post a hair above the one it drains to), all of it out
// through the grid's edges: nothing is left undrained.
TEST(Drainage, FlatGroundDrainsToTheEdges) {
    const int n = 50;
    std::vector<float> flat(static_cast<std::size_t>(n) * n, 7.0f);
    DrainageOptions o;
    o.thresholdM2 = 1e12;
    auto field = DrainageField::Build(flat, n, n, 1.0, o);
    ASSERT_TRUE(field.ok()) << field.error().message;
    EXPECT_EQ(field->ChannelPosts(), 0);
    EXPECT_EQ(field->WaterAtM(25.0, 25.0).share, 0.0f);
    EXPECT_EQ(field->WaterAtM(25.0, 25.0).surfaceM, std::numeric_limits<float>::lowest());
}

// Posts at or below the outlet height are the sea: they drain the land and are no river.
TEST(Drainage, TheSeaIsAnOutletAndNoRiver) {
    auto heights = Valley();
    DrainageOptions o = TestOptions();
    o.outletBelowM = 120.0;  // the lowest 100 rows of the thalweg and more are the sea
    auto field = DrainageField::Build(heights, kNx, kNy, kSpacingM, o);
    ASSERT_TRUE(field.ok()) << field.error().message;
    EXPECT_EQ(field->WaterShareAtM(XM(kThalwegI), YM(50)), 0.0f);
    EXPECT_FLOAT_EQ(field->WaterShareAtM(XM(kThalwegI), YM(150)), 1.0f);
}

std::string ErrorOf(const Expected<DrainageField>& field) {
    return field.ok() ? "no error" : field.error().message;
}

TEST(Drainage, BadInputIsAnError) {
    std::vector<float> flat(16, 0.0f);
    EXPECT_EQ(ErrorOf(DrainageField::Build(flat, 4, 4, -1.0)),
              "drainage: post spacing -1 m is not positive");
    EXPECT_EQ(ErrorOf(DrainageField::Build({}, 0, 0, 1.0)), "drainage: the grid of posts is empty");
    EXPECT_EQ(ErrorOf(DrainageField::Build(flat, 5, 4, 1.0)),
              "drainage: 16 heights for 5 x 4 posts");
    flat[5] = std::numeric_limits<float>::infinity();
    EXPECT_EQ(ErrorOf(DrainageField::Build(flat, 4, 4, 1.0)),
              "drainage: post (1, 1) has a height that is not finite");
    flat[5] = 0.0f;
    DrainageOptions o;
    o.thresholdM2 = 0.0;
    EXPECT_NE(ErrorOf(DrainageField::Build(flat, 4, 4, 1.0, o)).find("threshold"),
              std::string::npos);
    o = {};
    o.maxWidthM = 1.0;
    EXPECT_NE(ErrorOf(DrainageField::Build(flat, 4, 4, 1.0, o)), "no error");
    EXPECT_NE(ErrorOf(DrainageField::Build(0.0, 10.0, 1.0, [](double, double) { return 0.0; }))
                  .find("not positive"),
              std::string::npos);
    auto nan = [](double, double) { return std::numeric_limits<double>::quiet_NaN(); };
    EXPECT_NE(ErrorOf(DrainageField::Build(10.0, 10.0, 1.0, nan)).find("not finite"),
              std::string::npos);
}

}  // namespace
}  // namespace bfv::raytracer
