#include "common/sky.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

namespace bfv::common {
namespace {

constexpr double kDeg = std::numbers::pi / 180;

Sky MakeSky(double azimuthDeg, double elevationDeg) {
    auto sky = Sky::Make(azimuthDeg * kDeg, elevationDeg * kDeg);
    EXPECT_TRUE(sky.ok());
    return std::move(sky).value();
}

float MaxChannelDifference(SkyColour a, SkyColour b) {
    return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
}

// Red plus green relative to blue: higher is warmer.
float Warmth(SkyColour c) { return (c.r + c.g) / (2 * c.b); }

constexpr float kZenithSlope = 1e6f;

TEST(Sky, ZenithAndHorizonChangeWithTheSunsElevation) {
    const Sky low = MakeSky(315, 12), high = MakeSky(315, 45);
    EXPECT_GT(MaxChannelDifference(low.At(0, kZenithSlope), high.At(0, kZenithSlope)), 5);
    EXPECT_GT(MaxChannelDifference(low.HorizonColour(90 * kDeg), high.HorizonColour(90 * kDeg)), 5);
}

TEST(Sky, HorizonChangesWithTheSunsAzimuth) {
    const Sky west = MakeSky(270, 20), east = MakeSky(90, 20);
    EXPECT_GT(MaxChannelDifference(west.HorizonColour(270 * kDeg), east.HorizonColour(270 * kDeg)),
              10);
    EXPECT_GT(MaxChannelDifference(west.At(45 * kDeg, 0.5), east.At(45 * kDeg, 0.5)), 1);
}

TEST(Sky, ZenithIsClearBlueAndBluerThanTheHorizonAtAHighSun) {
    const Sky sky = MakeSky(315, 45);
    const SkyColour zenith = sky.At(0, kZenithSlope);
    EXPECT_GT(zenith.b, zenith.g + 20);
    EXPECT_GT(zenith.b, zenith.r + 50);
    const SkyColour horizon = sky.HorizonColour(135 * kDeg);
    EXPECT_LT(Warmth(zenith), Warmth(horizon));
    EXPECT_GT(horizon.r + horizon.g + horizon.b, zenith.r + zenith.g + zenith.b);
}

TEST(Sky, HorizonTowardALowSunIsWarmerThanAwayFromIt) {
    for (double elevationDeg : {5.0, 8.0, 12.0}) {
        const Sky sky = MakeSky(315, elevationDeg);
        EXPECT_GT(Warmth(sky.HorizonColour(315 * kDeg)), Warmth(sky.HorizonColour(135 * kDeg)))
            << "sun at " << elevationDeg << " deg";
        EXPECT_GT(Warmth(sky.HorizonColour(300 * kDeg)), Warmth(sky.HorizonColour(120 * kDeg)))
            << "sun at " << elevationDeg << " deg";
    }
}

TEST(Sky, SunDiscIsBrightestAtTheSun) {
    const Sky sky = MakeSky(315, 30);
    const double sunSlope = std::tan(30 * kDeg);
    const SkyColour atSun = sky.At(315 * kDeg, sunSlope);
    EXPECT_GT(atSun.r + atSun.g + atSun.b, 3 * 240);
    for (double offsetDeg : {1.0, 3.0, 20.0}) {
        const SkyColour off = sky.At(315 * kDeg, std::tan((30 + offsetDeg) * kDeg));
        EXPECT_LT(off.r + off.g + off.b, atSun.r + atSun.g + atSun.b - 1) << offsetDeg << " deg";
    }
}

TEST(Sky, HorizonColourIsTheSkyAtSlopeZeroAndBelow) {
    for (double sunDeg : {5.0, 45.0}) {
        const Sky sky = MakeSky(315, sunDeg);
        for (double azimuthDeg = 0; azimuthDeg < 360; azimuthDeg += 7.5) {
            const SkyColour horizon = sky.HorizonColour(azimuthDeg * kDeg);
            EXPECT_EQ(MaxChannelDifference(horizon, sky.At(azimuthDeg * kDeg, 0)), 0);
            EXPECT_EQ(MaxChannelDifference(horizon, sky.At(azimuthDeg * kDeg, -0.3)), 0);
            EXPECT_EQ(MaxChannelDifference(horizon, sky.At(azimuthDeg * kDeg, -50)), 0);
        }
    }
}

TEST(Sky, AdjacentPixelsAwayFromTheSunDifferByAtMostOneLevel) {
    constexpr double kStepDeg = 0.05;  // a 1280 x 720 pixel at 60 deg field of view
    for (double sunDeg : {5.0, 20.0, 45.0, 80.0}) {
        const Sky sky = MakeSky(315, sunDeg);
        for (double azimuthDeg = 0; azimuthDeg < 360; azimuthDeg += 10) {
            const double toSunDeg = std::abs(std::remainder(azimuthDeg - 315, 360.0));
            const auto plane = sky.Plane(azimuthDeg * kDeg);
            const auto nextPlane = sky.Plane((azimuthDeg + kStepDeg) * kDeg);
            for (double e = 0; e < 89.9; e += kStepDeg) {
                if (toSunDeg < 20 && std::abs(e - sunDeg) < 20) continue;
                const float slope = static_cast<float>(std::tan(e * kDeg));
                const float above = static_cast<float>(std::tan((e + kStepDeg) * kDeg));
                ASSERT_LE(MaxChannelDifference(plane.At(slope), plane.At(above)), 1.0f)
                    << "sun " << sunDeg << " azimuth " << azimuthDeg << " elevation " << e;
                ASSERT_LE(MaxChannelDifference(plane.At(slope), nextPlane.At(slope)), 1.0f)
                    << "sun " << sunDeg << " azimuth " << azimuthDeg << " elevation " << e;
            }
        }
    }
}

// A plane read without its table blended (a caster's plane of a few rays) gives exactly the
// colours of one with it, around the sun (disc, glow, glint) and away from it.
TEST(Sky, PlaneReadWithoutItsTableGivesTheSameColours) {
    const Sky sky = MakeSky(315, 20);
    for (double azimuthDeg = 0; azimuthDeg < 360; azimuthDeg += 7.3) {
        const auto tabulated = sky.Plane(azimuthDeg * kDeg, true);
        const auto perRead = sky.Plane(azimuthDeg * kDeg, false);
        for (double e = -10; e < 89.9; e += 0.37) {
            const float slope = static_cast<float>(std::tan(e * kDeg));
            const SkyColour a = tabulated.At(slope), b = perRead.At(slope);
            ASSERT_EQ(a.r, b.r) << "azimuth " << azimuthDeg << " elevation " << e;
            ASSERT_EQ(a.g, b.g) << "azimuth " << azimuthDeg << " elevation " << e;
            ASSERT_EQ(a.b, b.b) << "azimuth " << azimuthDeg << " elevation " << e;
            ASSERT_EQ(tabulated.GlintAt(-slope), perRead.GlintAt(-slope));
        }
    }
}

TEST(Sky, LightIsNearWhiteAt45DegAndWarmerForALowSun) {
    const Sky sky45 = MakeSky(315, 45), low = MakeSky(315, 8);
    for (SkyColour c : {sky45.SunlightColour(), sky45.SkylightColour()}) {
        EXPECT_NEAR(c.r, 1, 0.01);
        EXPECT_NEAR(c.g, 1, 0.01);
        EXPECT_NEAR(c.b, 1, 0.01);
    }
    const SkyColour sun = low.SunlightColour();
    EXPECT_GT(sun.r, sun.g);
    EXPECT_GT(sun.g, sun.b);
    EXPECT_LT(sun.b, 0.5f);
}

TEST(Sky, GlintPeaksAtTheSunAndIsWiderThanTheDisc) {
    const Sky sky = MakeSky(90, 30);
    const auto plane = sky.Plane(90 * kDeg);
    const float slope = static_cast<float>(std::tan(30 * kDeg));
    EXPECT_NEAR(plane.GlintAt(slope), 1.0f, 1e-3f);
    EXPECT_GT(plane.GlintAt(static_cast<float>(std::tan(32 * kDeg))), 0.5f);
    EXPECT_EQ(plane.GlintAt(static_cast<float>(std::tan(45 * kDeg))), 0.0f);
    EXPECT_EQ(sky.Plane(270 * kDeg).GlintAt(slope), 0.0f);
}

TEST(Sky, IsDeterministic) {
    const Sky a = MakeSky(123, 17), b = MakeSky(123, 17);
    for (double azimuthDeg = 0; azimuthDeg < 360; azimuthDeg += 11) {
        for (float slope : {-1.0f, 0.0f, 0.1f, 0.3f, 2.0f}) {
            EXPECT_EQ(MaxChannelDifference(a.At(azimuthDeg * kDeg, slope),
                                           b.At(azimuthDeg * kDeg, slope)),
                      0);
        }
    }
}

TEST(Sky, RejectsASunOnOrBelowTheHorizonAndNonFiniteInput) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(Sky::Make(0, 0).ok());
    EXPECT_FALSE(Sky::Make(0, -0.1).ok());
    EXPECT_FALSE(Sky::Make(0, 1.6).ok());
    EXPECT_FALSE(Sky::Make(nan, 0.5).ok());
    EXPECT_FALSE(Sky::Make(0, inf).ok());
    EXPECT_FALSE(Sky::Make(0, 0.5, 1.0).ok());
    EXPECT_NE(Sky::Make(0, -0.1).error().message.find("above the horizon"), std::string::npos);
    EXPECT_TRUE(Sky::Make(0, std::numbers::pi / 2).ok());
}

TEST(SchlickFresnel, IsF0AtNormalIncidenceAndOneAtGrazing) {
    EXPECT_FLOAT_EQ(SchlickFresnel(1.0f), 0.02f);
    EXPECT_FLOAT_EQ(SchlickFresnel(0.0f), 1.0f);
    EXPECT_LT(SchlickFresnel(0.5f), 0.06f);
    EXPECT_FLOAT_EQ(SchlickFresnel(-0.2f), 1.0f);
}

TEST(QuantiseSkyColour, RoundsAndClampsWithTheDither) {
    EXPECT_EQ(QuantiseSkyColour({10.4f, 10.6f, 300.0f}), (Rgb{10, 11, 255}));
    EXPECT_EQ(QuantiseSkyColour({10.4f, 10.6f, -3.0f}, 0.2f), (Rgb{11, 11, 0}));
}

}  // namespace
}  // namespace bfv::common
