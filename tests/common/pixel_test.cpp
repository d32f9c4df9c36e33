#include "common/pixel.h"

#include <gtest/gtest.h>

namespace bfv::common {
namespace {

TEST(Pixel, IsThreeBytesOfSrgb) {
    Pixel pixel{10, 20, 30};
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&pixel);
    EXPECT_EQ(bytes[0], 10);
    EXPECT_EQ(bytes[1], 20);
    EXPECT_EQ(bytes[2], 30);
}

TEST(Pixel, RampColourIsEachStepAtItsPlace) {
    const LandColours& ramp = DefaultLandColours();
    for (int m = 0; m < kLandMaterials; ++m) {
        EXPECT_EQ(RampColour(ramp, static_cast<float>(m)), ramp[m]) << "step " << m;
    }
}

TEST(Pixel, RampColourBlendsLinearlyBetweenSteps) {
    LandColours ramp{};
    ramp[2] = {0, 100, 200};
    ramp[3] = {100, 100, 0};
    EXPECT_EQ(RampColour(ramp, 2.25f), (Rgb{25, 100, 150}));
    EXPECT_EQ(RampColour(ramp, 2.5f), (Rgb{50, 100, 100}));
}

TEST(Pixel, RampColourClampsToTheRamp) {
    const LandColours& ramp = DefaultLandColours();
    EXPECT_EQ(RampColour(ramp, -3.0f), ramp[0]);
    EXPECT_EQ(RampColour(ramp, kLandMaterials + 2.0f), ramp[kLandMaterials - 1]);
}

// Between two neighbouring places a channel changes by at most what the steps around them
// allow: the blend has no jumps (no bands between materials).
TEST(Pixel, RampColourIsContinuous) {
    const LandColours& ramp = DefaultLandColours();
    for (float place = 0.0f; place < kLandMaterials - 1; place += 0.01f) {
        Rgb a = RampColour(ramp, place), b = RampColour(ramp, place + 0.01f);
        EXPECT_LE(std::abs(a.r - b.r), 2) << place;
        EXPECT_LE(std::abs(a.g - b.g), 2) << place;
        EXPECT_LE(std::abs(a.b - b.b), 2) << place;
    }
}

TEST(Pixel, HexColourIsLowerCaseRrggbb) { EXPECT_EQ(HexColour({0x07, 0x80, 0xff}), "#0780ff"); }

}  // namespace
}  // namespace bfv::common
