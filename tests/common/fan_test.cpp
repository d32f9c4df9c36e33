#include "common/fan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace bfv::common {
namespace {

constexpr double kPi = std::numbers::pi;

// Screens of every shape the tests take: the default, a small one, and an odd one whose centre
// column and row run through the image centre (at pitch -90 the nadir is a pixel's centre).
const ScreenSpec kScreens[] = {
    {1280, 720, 60.0 * kRadPerDeg}, {320, 180, 60.0 * kRadPerDeg}, {101, 57, 75.0 * kRadPerDeg}};

const double kPitchesDeg[] = {-90, -89, -60, -45, -20, -8, 0, 30, 89};

double FocalPx(const ScreenSpec& screen) {
    return 0.5 * screen.widthPx / std::tan(0.5 * screen.hFovRad);
}

// Every pixel of the screen is in exactly one plane, every plane holds at least one, and each
// plane's planeMinX and planeMaxX are the columns its pixels span.
TEST(Fan, EveryPixelIsInExactlyOnePlane) {
    for (const ScreenSpec& screen : kScreens) {
        for (double pitchDeg : kPitchesDeg) {
            SCOPED_TRACE(testing::Message()
                         << screen.widthPx << "x" << screen.heightPx << " pitch " << pitchDeg);
            FanLayout fan = BuildFanLayout(screen, pitchDeg * kRadPerDeg);
            const int pixels = screen.widthPx * screen.heightPx;
            ASSERT_EQ(fan.pixelIndex.size(), static_cast<std::size_t>(pixels));
            ASSERT_EQ(fan.pixelSlope.size(), static_cast<std::size_t>(pixels));
            ASSERT_EQ(fan.planeStart.size(), static_cast<std::size_t>(fan.PlaneCount() + 1));
            ASSERT_EQ(fan.planeStart.front(), 0);
            ASSERT_EQ(fan.planeStart.back(), pixels);
            std::vector<int> seen(pixels, 0);
            for (int p = 0; p < fan.PlaneCount(); ++p) {
                ASSERT_LT(fan.planeStart[p], fan.planeStart[p + 1]) << "plane " << p << " empty";
                int minX = screen.widthPx, maxX = -1;
                for (int i = fan.planeStart[p]; i < fan.planeStart[p + 1]; ++i) {
                    ASSERT_LT(fan.pixelIndex[i], static_cast<std::uint32_t>(pixels));
                    ++seen[fan.pixelIndex[i]];
                    int x = static_cast<int>(fan.pixelIndex[i]) / screen.heightPx;
                    minX = std::min(minX, x), maxX = std::max(maxX, x);
                }
                EXPECT_EQ(fan.planeMinX[p], minX) << "plane " << p;
                EXPECT_EQ(fan.planeMaxX[p], maxX) << "plane " << p;
            }
            EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), pixels);
        }
    }
}

// The caster resolves a plane's pixels from the last (steepest down) up: slopes descend within
// every plane and stay within +-kMaxFanSlope.
TEST(Fan, SlopesDescendWithinEachPlane) {
    for (const ScreenSpec& screen : kScreens) {
        for (double pitchDeg : kPitchesDeg) {
            FanLayout fan = BuildFanLayout(screen, pitchDeg * kRadPerDeg);
            for (int p = 0; p < fan.PlaneCount(); ++p) {
                for (int i = fan.planeStart[p]; i < fan.planeStart[p + 1]; ++i) {
                    ASSERT_LE(std::abs(fan.pixelSlope[i]), kMaxFanSlope);
                    if (i > fan.planeStart[p]) {
                        ASSERT_GE(fan.pixelSlope[i - 1], fan.pixelSlope[i])
                            << screen.widthPx << "x" << screen.heightPx << " pitch " << pitchDeg
                            << " plane " << p << " pixel " << i;
                    }
                }
            }
        }
    }
}

// At pitch 0 the pinhole camera's columns are vertical planes: plane x is column x, top row
// first, its direction (1, u) normalised and row y's slope v / sqrt(1 + u^2), for the image-plane
// coordinates (u, v) of the pixel's centre at focal length 1.
TEST(Fan, AtPitchZeroThePlanesAreTheColumns) {
    for (const ScreenSpec& screen : kScreens) {
        FanLayout fan = BuildFanLayout(screen, 0.0);
        const double f = FocalPx(screen);
        ASSERT_EQ(fan.PlaneCount(), screen.widthPx);
        for (int x = 0; x < screen.widthPx; ++x) {
            double u = (x + 0.5 - 0.5 * screen.widthPx) / f;
            EXPECT_NEAR(fan.planeForward[x], 1.0 / std::hypot(1.0, u), 1e-12) << "plane " << x;
            EXPECT_NEAR(fan.planeRight[x], u / std::hypot(1.0, u), 1e-12) << "plane " << x;
            EXPECT_EQ(fan.planeMinX[x], x);
            EXPECT_EQ(fan.planeMaxX[x], x);
            ASSERT_EQ(fan.planeStart[x], x * screen.heightPx);
            for (int y = 0; y < screen.heightPx; ++y) {
                int i = fan.planeStart[x] + y;
                double v = (0.5 * screen.heightPx - y - 0.5) / f;
                EXPECT_EQ(fan.pixelIndex[i], static_cast<std::uint32_t>(x * screen.heightPx + y));
                EXPECT_NEAR(fan.pixelSlope[i], v / std::hypot(1.0, u), 1e-12)
                    << "column " << x << " row " << y;
            }
        }
    }
}

// Each pixel is traced in its nearest plane at its own slope: that ray, the point one metre
// along the plane's direction and `slope` metres up, appears within half a pixel of the
// pixel's centre on the pinhole camera's screen, at every pitch and heading.
TEST(Fan, EveryPixelsRayInItsPlaneLandsWithinHalfAPixelOfItsCentre) {
    for (const ScreenSpec& screen : kScreens) {
        for (double pitchDeg : kPitchesDeg) {
            FanLayout fan = BuildFanLayout(screen, pitchDeg * kRadPerDeg);
            for (double headingDeg : {0.0, 37.0, 200.0}) {
                CameraPose pose{
                    {1000.0, -250.0, 300.0}, headingDeg * kRadPerDeg, pitchDeg * kRadPerDeg, 0.0};
                double worstPx = 0.0;
                int worstPixel = -1;
                for (int p = 0; p < fan.PlaneCount(); ++p) {
                    HorizontalDirection dir = PlaneDirection(fan, p, pose.headingRad);
                    for (int i = fan.planeStart[p]; i < fan.planeStart[p + 1]; ++i) {
                        glm::dvec3 point =
                            pose.eyeM + glm::dvec3(dir.dirX, dir.dirY, fan.pixelSlope[i]);
                        double xPx = 0.0, yPx = 0.0;
                        ASSERT_TRUE(ProjectToScreen(pose, screen, point, xPx, yPx));
                        int x = static_cast<int>(fan.pixelIndex[i]) / screen.heightPx;
                        int y = static_cast<int>(fan.pixelIndex[i]) % screen.heightPx;
                        double missPx = std::hypot(xPx - (x + 0.5), yPx - (y + 0.5));
                        if (missPx > worstPx) worstPx = missPx, worstPixel = fan.pixelIndex[i];
                    }
                }
                EXPECT_LE(worstPx, 0.5 + 1e-6)
                    << screen.widthPx << "x" << screen.heightPx << " pitch " << pitchDeg
                    << " heading " << headingDeg << ": pixel (" << worstPixel / screen.heightPx
                    << ", " << worstPixel % screen.heightPx << ")";
            }
        }
    }
}

// PlaneRowsAt's sub-samples of a run of pixels down a column lie where the pinhole camera sees
// them: each at its row's height and within half the allowed drift of the grid column's line
// through the run's middle; a run whose line drifts across it by more than that is refused.
TEST(Fan, PlaneRowsOfARunOfPixelsLieOnTheirRowsWithinTheDriftAllowed) {
    const ScreenSpec& screen = kScreens[0];
    const int y = 300, rowsPerPixel = 4;
    int accepted = 0, refused = 0;
    for (double pitchDeg : {-60.0, -30.0, -10.0, 0.0, 20.0}) {
        const CameraPose pose{
            {1000.0, -250.0, 300.0}, 37.0 * kRadPerDeg, pitchDeg * kRadPerDeg, 0.0};
        for (double xPx : {3.25, 640.75, 1270.25}) {
            for (int pixels : {1, 2, 5, 8}) {
                for (double maxDriftPx : {1.0, 0.5}) {
                    std::vector<double> slopes(pixels * rowsPerPixel);
                    HorizontalDirection dir;
                    if (!PlaneRowsAt(pose, screen, xPx, y, pixels, rowsPerPixel, maxDriftPx, dir,
                                     slopes)) {
                        ++refused;
                        continue;
                    }
                    ++accepted;
                    for (int j = 0; j < pixels * rowsPerPixel; ++j) {
                        const glm::dvec3 point =
                            pose.eyeM + glm::dvec3(dir.dirX, dir.dirY, slopes[j]);
                        double px = 0.0, py = 0.0;
                        ASSERT_TRUE(ProjectToScreen(pose, screen, point, px, py));
                        EXPECT_NEAR(py, y + (j + 0.5) / rowsPerPixel, 1e-6);
                        EXPECT_LE(std::abs(px - xPx), 0.5 * maxDriftPx + 1e-9)
                            << "pitch " << pitchDeg << " x " << xPx << " pixels " << pixels;
                    }
                }
            }
        }
    }
    EXPECT_GT(accepted, 0);
    EXPECT_GT(refused, 0);
    // At 60 degrees down by the screen's left side the line drifts 0.91 px a pixel down (|u s| /
    // a, u = -0.574, s = -0.866, a = 0.546 at row 300.5): one pixel is a plane within a drift of
    // 1 px, two are not. At 10 degrees down it drifts 0.10 px a pixel: eight pixels drift 0.80.
    std::vector<double> slopes(8 * rowsPerPixel);
    HorizontalDirection dir;
    const CameraPose steep{{0.0, 0.0, 300.0}, 0.0, -60.0 * kRadPerDeg, 0.0};
    EXPECT_TRUE(PlaneRowsAt(steep, screen, 3.25, y, 1, rowsPerPixel, 1.0, dir, slopes));
    EXPECT_FALSE(PlaneRowsAt(steep, screen, 3.25, y, 2, rowsPerPixel, 1.0, dir, slopes));
    const CameraPose shallow{{0.0, 0.0, 300.0}, 0.0, -10.0 * kRadPerDeg, 0.0};
    EXPECT_TRUE(PlaneRowsAt(shallow, screen, 3.25, y, 8, rowsPerPixel, 1.0, dir, slopes));
    EXPECT_FALSE(PlaneRowsAt(shallow, screen, 3.25, y, 8, rowsPerPixel, 0.5, dir, slopes));
}

// ProjectToScreen against points placed by hand: x right from the left edge and y down from
// the top, the image centre at (w / 2, h / 2), focal length w / 2 / tan(hFov / 2).
TEST(Fan, ProjectToScreenPlacesPointsWhereThePinholeCameraSeesThem) {
    ScreenSpec screen{640, 360, 90.0 * kRadPerDeg};  // focal length 320 px
    double xPx = 0.0, yPx = 0.0;
    // Heading east, level: 10 m ahead, 2 m to the left (north) and 1 m up.
    CameraPose east{{100.0, 200.0, 50.0}, 90.0 * kRadPerDeg, 0.0, 0.0};
    ASSERT_TRUE(ProjectToScreen(east, screen, {110.0, 202.0, 51.0}, xPx, yPx));
    EXPECT_NEAR(xPx, 320.0 - 320.0 * 2.0 / 10.0, 1e-9);
    EXPECT_NEAR(yPx, 180.0 - 320.0 * 1.0 / 10.0, 1e-9);
    // Heading north, 30 degrees down: a point 10 m north at eye height is 30 degrees above the
    // view axis (forward 10 cos 30, up 10 sin 30), and one 3 m east of it right of the centre.
    CameraPose north{{0.0, 0.0, 0.0}, 0.0, -30.0 * kRadPerDeg, 0.0};
    ASSERT_TRUE(ProjectToScreen(north, screen, {3.0, 10.0, 0.0}, xPx, yPx));
    EXPECT_NEAR(xPx, 320.0 + 320.0 * 3.0 / (10.0 * std::cos(kPi / 6)), 1e-9);
    EXPECT_NEAR(yPx, 180.0 - 320.0 * std::tan(kPi / 6), 1e-9);
    // Along the view axis at 45 degrees down: the image centre.
    CameraPose down{{5.0, 5.0, 20.0}, 0.0, -45.0 * kRadPerDeg, 0.0};
    ASSERT_TRUE(ProjectToScreen(down, screen, {5.0, 15.0, 10.0}, xPx, yPx));
    EXPECT_NEAR(xPx, 320.0, 1e-9);
    EXPECT_NEAR(yPx, 180.0, 1e-9);
    // Straight down, heading north: north is up the screen, east to the right.
    CameraPose nadir{{0.0, 0.0, 100.0}, 0.0, -kPi / 2, 0.0};
    ASSERT_TRUE(ProjectToScreen(nadir, screen, {10.0, 20.0, 0.0}, xPx, yPx));
    EXPECT_NEAR(xPx, 320.0 + 320.0 * 10.0 / 100.0, 1e-9);
    EXPECT_NEAR(yPx, 180.0 - 320.0 * 20.0 / 100.0, 1e-9);
    EXPECT_FALSE(ProjectToScreen(east, screen, {90.0, 200.0, 50.0}, xPx, yPx)) << "behind";
}

// The angle of world direction `dir` clockwise from the heading, in (-pi, pi].
double AzimuthFromHeading(const HorizontalDirection& dir, double headingRad) {
    return std::remainder(std::atan2(dir.dirX, dir.dirY) - headingRad, 2.0 * kPi);
}

// Looking straight down the screen's rays run all around; at 30 degrees down they span a wedge
// about the heading that holds every plane of the fan (and every pixel's azimuth).
TEST(Fan, ScreenAzimuthRangeHoldsEveryPlane) {
    ScreenSpec screen{1280, 720, 60.0 * kRadPerDeg};
    EXPECT_TRUE(ScreenAzimuthRange({{0, 0, 100}, 0.3, -kPi / 2, 0}, screen, 0.0).allAround);
    EXPECT_TRUE(ScreenAzimuthRange({{0, 0, 100}, 0.3, kPi / 2, 0}, screen, 0.0).allAround);
    FanLayout fan = BuildFanLayout(screen, -30.0 * kRadPerDeg);
    for (double headingDeg : {0.0, 37.0, 200.0}) {
        CameraPose pose{{0, 0, 100}, headingDeg * kRadPerDeg, -30.0 * kRadPerDeg, 0};
        ScreenAzimuths range = ScreenAzimuthRange(pose, screen, 0.0);
        ASSERT_FALSE(range.allAround);
        double left = AzimuthFromHeading(range.left, pose.headingRad);
        double right = AzimuthFromHeading(range.right, pose.headingRad);
        // The corners' azimuths: atan(u / (cos p - v sin p)) at the screen's bottom corners.
        double halfU = std::tan(30.0 * kRadPerDeg), halfV = halfU * 720.0 / 1280.0;
        double cornerRad = std::atan2(halfU, std::cos(kPi / 6) - halfV * std::sin(kPi / 6));
        EXPECT_NEAR(left, -cornerRad, 1e-12);
        EXPECT_NEAR(right, cornerRad, 1e-12);
        for (int p = 0; p < fan.PlaneCount(); ++p) {
            double azimuth =
                AzimuthFromHeading(PlaneDirection(fan, p, pose.headingRad), pose.headingRad);
            EXPECT_GE(azimuth, left - 1e-12) << "plane " << p << " heading " << headingDeg;
            EXPECT_LE(azimuth, right + 1e-12) << "plane " << p << " heading " << headingDeg;
        }
    }
}

// Each plane's cost spread by its pixels' columns: with every plane's cost its pixel count,
// every strip of columns receives exactly its own pixels, at every pitch (a plane that leaves by
// the screen's side spans many strips, and putting its cost in its leftmost column lifted the
// first strip to 7-8 times its share at -30 degrees). A single plane splits by its pixels.
TEST(Fan, SpreadOverColumnStripsGivesEachStripItsOwnPixels) {
    for (const ScreenSpec& screen :
         {ScreenSpec{320, 180, 60.0 * kRadPerDeg}, ScreenSpec{1280, 720, 60.0 * kRadPerDeg}}) {
        for (double pitchDeg : kPitchesDeg) {
            FanLayout fan = BuildFanLayout(screen, pitchDeg * kRadPerDeg);
            std::vector<double> strips(64, 0.0);
            for (int p = 0; p < fan.PlaneCount(); ++p) {
                SpreadOverColumnStrips(fan, p, fan.planeStart[p + 1] - fan.planeStart[p], strips);
            }
            const double stripPixels = screen.heightPx * (screen.widthPx / 64.0);
            for (std::size_t s = 0; s < strips.size(); ++s) {
                ASSERT_NEAR(strips[s], stripPixels, 1e-6)
                    << screen.widthPx << "x" << screen.heightPx << " pitch " << pitchDeg
                    << " strip " << s;
            }
        }
    }
    FanLayout fan = BuildFanLayout({320, 180, 60.0 * kRadPerDeg}, -30.0 * kRadPerDeg);
    int widest = 0;
    for (int p = 1; p < fan.PlaneCount(); ++p) {
        if (fan.planeMaxX[p] - fan.planeMinX[p] > fan.planeMaxX[widest] - fan.planeMinX[widest]) {
            widest = p;
        }
    }
    ASSERT_GT(fan.planeMaxX[widest] - fan.planeMinX[widest], 20);
    // Its cost stays whole and lands only in the strips of 80 columns its pixels span, more
    // than one of them.
    std::vector<double> strips(4, 0.0);
    SpreadOverColumnStrips(fan, widest, 2.0, strips);
    EXPECT_NEAR(strips[0] + strips[1] + strips[2] + strips[3], 2.0, 1e-12);
    EXPECT_LT(strips[fan.planeMinX[widest] / 80], 2.0);
    for (int s = 0; s < 4; ++s) {
        bool spanned = s >= fan.planeMinX[widest] / 80 && s <= fan.planeMaxX[widest] / 80;
        EXPECT_EQ(strips[s] > 0.0, spanned) << "strip " << s;
    }
}

}  // namespace
}  // namespace bfv::common
