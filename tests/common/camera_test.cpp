#include "common/camera.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
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

TEST(Camera, SlopesIncreaseFromBottomRowToTop) {
    ScreenSpec screen{64, 48, 1.0472};
    for (double pitch : {-0.9, -0.5, 0.0, 0.4}) {
        CameraPose pose{{0, 0, 0}, 0.3, pitch, 0};
        std::vector<double> slopes(screen.heightPx);
        for (int x : {0, 31, 63}) {
            ColumnSlopes(pose, screen, x, slopes.data());
            for (int y = 1; y < screen.heightPx; ++y) {
                EXPECT_LT(slopes[y], slopes[y - 1]) << "pitch " << pitch << " column " << x;
            }
        }
    }
}

TEST(Camera, MiddleRowsLookAtThePitch) {
    ScreenSpec screen{64, 48, 1.0472};
    CameraPose pose{{0, 0, 0}, 0.0, -0.5, 0};
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, 32, slopes.data());
    double middle = 0.5 * (slopes[23] + slopes[24]);  // rows either side of the centre line
    EXPECT_NEAR(middle, std::tan(-0.5), 1e-3);
}

TEST(Camera, SlopesEqualTangentOfPitchPlusRowElevation) {
    ScreenSpec screen{80, 50, 1.3};
    double halfTan = std::tan(VerticalFov(screen) / 2.0);
    std::vector<double> slopes(screen.heightPx);
    for (double pitch : {-1.0, -0.3, 0.0, 0.2}) {
        CameraPose pose{{0, 0, 0}, 1.0, pitch, 0};
        for (int x : {0, 17, 40, 79}) {
            ColumnSlopes(pose, screen, x, slopes.data());
            double u = (2.0 * (x + 0.5) / screen.widthPx - 1.0) * std::tan(screen.hFovRad / 2.0);
            for (int y = 0; y < screen.heightPx; ++y) {
                double v = (1.0 - 2.0 * (y + 0.5) / screen.heightPx) * halfTan;
                double direct = std::tan(pitch + std::atan(v / std::sqrt(1.0 + u * u)));
                EXPECT_NEAR(slopes[y], direct, 1e-9 * (1.0 + std::abs(direct)))
                    << "pitch " << pitch << " x " << x << " y " << y;
            }
        }
    }
}

// ColumnSlopes is vectorised for every instruction set Highway targets: each one this CPU runs
// gives the rows' slopes, for heights that are not a multiple of its vector, and writes nothing
// past the last row.
TEST(Camera, SlopesOnEveryInstructionSetFillExactlyTheRows) {
    std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    constexpr double kUntouched = 12345.0;
    for (std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        for (int heightPx : {1, 7, 13, 50}) {
            ScreenSpec screen{80, heightPx, 1.3};
            CameraPose pose{{0, 0, 0}, 1.0, -0.3, 0};
            double halfTan = std::tan(VerticalFov(screen) / 2.0);
            std::vector<double> slopes(heightPx + 16, kUntouched);
            ColumnSlopes(pose, screen, 17, slopes.data());
            double u = ImagePlaneU(screen, 17);
            for (int y = 0; y < heightPx; ++y) {
                double v = (1.0 - 2.0 * (y + 0.5) / heightPx) * halfTan;
                double direct = std::tan(-0.3 + std::atan(v / std::sqrt(1.0 + u * u)));
                EXPECT_NEAR(slopes[y], direct, 1e-9 * (1.0 + std::abs(direct)))
                    << hwy::TargetName(target) << " height " << heightPx << " row " << y;
            }
            for (std::size_t y = heightPx; y < slopes.size(); ++y) {
                EXPECT_EQ(slopes[y], kUntouched) << hwy::TargetName(target) << " row " << y;
            }
        }
    }
    hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
}

TEST(Camera, SlopesPastTheNadirAreClamped) {
    ScreenSpec screen{64, 48, 1.0472};
    CameraPose pose{{0, 0, 0}, 0.0, -1.4, 0};  // bottom rows look beyond straight down
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, 32, slopes.data());
    EXPECT_DOUBLE_EQ(slopes.back(), -95.49);
    for (double s : slopes) EXPECT_GE(s, -95.49);
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
