// ColumnSlopes (common/camera.h, vectorised in common/column_slopes.cpp): each row's ray slope
// against the pinhole formula, on every instruction set this CPU runs, and the clamps at the
// nadir and the zenith.

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/camera.h"

namespace bfv::common {
namespace {

TEST(ColumnSlopes, IncreaseFromBottomRowToTop) {
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

TEST(ColumnSlopes, MiddleRowsLookAtThePitch) {
    ScreenSpec screen{64, 48, 1.0472};
    CameraPose pose{{0, 0, 0}, 0.0, -0.5, 0};
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, 32, slopes.data());
    double middle = 0.5 * (slopes[23] + slopes[24]);  // rows either side of the centre line
    EXPECT_NEAR(middle, std::tan(-0.5), 1e-3);
}

TEST(ColumnSlopes, EqualTangentOfPitchPlusRowElevation) {
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
TEST(ColumnSlopes, OnEveryInstructionSetFillExactlyTheRows) {
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

TEST(ColumnSlopes, PastTheNadirAreClamped) {
    ScreenSpec screen{64, 48, 1.0472};
    CameraPose pose{{0, 0, 0}, 0.0, -1.4, 0};  // bottom rows look beyond straight down
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, 32, slopes.data());
    EXPECT_DOUBLE_EQ(slopes.back(), -95.49);
    for (double s : slopes) EXPECT_GE(s, -95.49);
}

// Rows that would look past the zenith (the tangent formula's denominator <= 0) keep a
// positive slope and are clamped like those past the nadir.
TEST(ColumnSlopes, AboveTheZenithAreClamped) {
    ScreenSpec screen{64, 48, 1.0472};
    CameraPose pose{{0, 0, 0}, 0.0, 1.4, 0};  // top rows look beyond straight up
    std::vector<double> slopes(screen.heightPx);
    ColumnSlopes(pose, screen, 32, slopes.data());
    EXPECT_DOUBLE_EQ(slopes.front(), 95.49);
    for (double s : slopes) {
        EXPECT_GT(s, 0.0);
        EXPECT_LE(s, 95.49);
    }
}

}  // namespace
}  // namespace bfv::common
