#include "common/camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace bfv::common {
namespace {

constexpr double kPi = std::numbers::pi;

// The pinhole camera draws every pitch, straight down and up included: a flight's poses are
// clamped to +-kMaxPitchRad (pi/2) and no further.
TEST(Camera, WithinPitchLimitClampsToStraightDownAndUp) {
    EXPECT_DOUBLE_EQ(kMaxPitchRad, kPi / 2);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, -1.7, 0}).pitchRad, -kMaxPitchRad);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, 1.7, 0}).pitchRad, kMaxPitchRad);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, -kPi / 2, 0}).pitchRad, -kPi / 2);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, 1.5, 0}).pitchRad, 1.5);
    EXPECT_DOUBLE_EQ(WithinPitchLimit({{0, 0, 0}, 0.0, -0.5, 0}).pitchRad, -0.5);
    CameraPose pose = WithinPitchLimit({{1, 2, 3}, 0.7, -2.0, 4.5});
    EXPECT_EQ(pose.eyeM, glm::dvec3(1, 2, 3));
    EXPECT_EQ(pose.headingRad, 0.7);
    EXPECT_EQ(pose.timeS, 4.5);
}

TEST(Camera, PixelAngleTimesWidthIsImagePlaneWidth) {
    ScreenSpec screen{1280, 720, 1.0472};
    EXPECT_NEAR(PixelAngle(screen) * screen.widthPx, 2.0 * std::tan(screen.hFovRad / 2.0), 1e-12);
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
