#include "common/camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace bfv::common {
namespace {

constexpr double kPi = std::numbers::pi;

TEST(Camera, CentreColumnLooksAlongTheHeading) {
    ScreenSpec screen{101, 60, 1.0};  // odd width: column 50 is the exact centre
    for (double heading : {0.0, 0.7, kPi / 2, 2.5, -1.9}) {
        CameraPose pose{{0, 0, 0}, heading, -0.2, 0};
        ColumnRays dir = ColumnDirection(pose, screen, 50);
        EXPECT_NEAR(dir.dirX, std::sin(heading), 1e-12);
        EXPECT_NEAR(dir.dirY, std::cos(heading), 1e-12);
    }
}

TEST(Camera, EdgeColumnsSpanTheFieldOfView) {
    ScreenSpec screen{200, 100, 1.2};
    CameraPose pose{{0, 0, 0}, 0.0, 0.0, 0};
    // Pixel centres of the outer columns are half a pixel inside the image plane's edges.
    double uEdge = (1.0 - 1.0 / screen.widthPx) * std::tan(0.6);
    ColumnRays right = ColumnDirection(pose, screen, screen.widthPx - 1);
    ColumnRays left = ColumnDirection(pose, screen, 0);
    EXPECT_NEAR(std::atan2(right.dirX, right.dirY), std::atan(uEdge), 1e-12);
    EXPECT_NEAR(std::atan2(left.dirX, left.dirY), -std::atan(uEdge), 1e-12);
}

// At the steepest pitch a screen allows its rays reach kMaxRayElevationRad and no further:
// every row keeps its own slope, none is clamped.
TEST(Camera, TheSteepestPitchKeepsEveryRayOnItsSideOfTheNadir) {
    ScreenSpec screen{1280, 720, 60.0 * kRadPerDeg};
    EXPECT_NEAR(MaxPitchRad(screen) / kRadPerDeg, 89.4 - 0.5 * VerticalFov(screen) / kRadPerDeg,
                1e-9);
    EXPECT_NEAR(MaxPitchRad(screen) / kRadPerDeg, 71.4, 0.05);
    CameraPose pose{{0, 0, 0}, 0.0, -MaxPitchRad(screen), 0};
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, screen.widthPx / 2, slopes.data());
    for (int y = 1; y < screen.heightPx; ++y) EXPECT_GT(slopes[y - 1], slopes[y]) << "row " << y;
    EXPECT_GT(slopes.back(), -95.49);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, -1.5, 0}, screen).pitchRad,
                     -MaxPitchRad(screen));
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, 1.5, 0}, screen).pitchRad,
                     MaxPitchRad(screen));
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, -0.5, 0}, screen).pitchRad, -0.5);
}

TEST(Camera, PixelAngleTimesWidthIsImagePlaneWidth) {
    ScreenSpec screen{1280, 720, 1.0472};
    EXPECT_NEAR(PixelAngle(screen) * screen.widthPx, 2.0 * std::tan(screen.hFovRad / 2.0), 1e-12);
}

TEST(Camera, VerticalFovKeepsPixelsSquare) {
    ScreenSpec screen{1280, 720, 1.0472};
    EXPECT_NEAR(std::tan(VerticalFov(screen) / 2.0) / std::tan(screen.hFovRad / 2.0),
                720.0 / 1280.0, 1e-12);
    ScreenSpec square{500, 500, 0.9};
    EXPECT_NEAR(VerticalFov(square), 0.9, 1e-12);
}

TEST(ClipTrackToRect, NarrowsToTheRectangleOrMisses) {
    double s0 = 0.0, s1 = 1e9;
    ASSERT_TRUE(ClipTrackToRect({-10.0, 5.0, 1.0, 0.0}, 0.0, 20.0, 0.0, 10.0, s0, s1));
    EXPECT_DOUBLE_EQ(s0, 10.0);
    EXPECT_DOUBLE_EQ(s1, 30.0);
    s0 = 0.0, s1 = 1e9;
    ASSERT_TRUE(ClipTrackToRect({5.0, 5.0, 0.6, 0.8}, 0.0, 20.0, 0.0, 10.0, s0, s1));
    EXPECT_DOUBLE_EQ(s0, 0.0) << "starts inside";
    EXPECT_DOUBLE_EQ(s1, 6.25) << "leaves through the north edge";
    s0 = 0.0, s1 = 1e9;
    EXPECT_FALSE(ClipTrackToRect({-10.0, 5.0, -1.0, 0.0}, 0.0, 20.0, 0.0, 10.0, s0, s1))
        << "points away";
    s0 = 0.0, s1 = 1e9;
    EXPECT_FALSE(ClipTrackToRect({5.0, 12.0, 1.0, 0.0}, 0.0, 20.0, 0.0, 10.0, s0, s1))
        << "parallel to the rectangle, north of it";
}

}  // namespace
}  // namespace bfv::common
