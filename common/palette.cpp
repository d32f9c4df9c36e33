#include "common/palette.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bfv::common {

namespace {

constexpr Rgb kHaze{190, 205, 222};
constexpr Rgb kZenith{52, 98, 170};
constexpr Rgb kWater{38, 78, 118};

Rgb Lerp(Rgb a, Rgb b, double t) {
    auto mix = [t](std::uint8_t p, std::uint8_t q) {
        return static_cast<std::uint8_t>(std::lround(p + (q - p) * t));
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace

const LandColours& DefaultLandColours() {
    static constexpr LandColours land{{
        {166, 164, 104},  // field
        {118, 156, 76},   // meadow
        {78, 118, 58},    // open forest
        {52, 92, 46},     // forest
        {36, 70, 38},     // dense forest
        {66, 80, 48},     // scrub
        {112, 108, 92},   // bare rock
        {98, 92, 86},     // steep rock
    }};
    return land;
}

Palette MakePalette(const LandColours& land) {
    Palette palette{};
    for (int s = 0; s < kSkyLevels; ++s) {
        palette[s] = Lerp(kHaze, kZenith, static_cast<double>(s) / (kSkyLevels - 1));
    }
    for (int m = 0; m < kMaterials; ++m) {
        for (int h = 0; h < kHazeLevels; ++h) {
            double t = static_cast<double>(h) / (kHazeLevels - 1);
            Rgb clear = m < kLandMaterials ? land[m] : kWater;
            palette[kSkyLevels + m * kHazeLevels + h] = Lerp(clear, kHaze, t);
        }
    }
    return palette;
}

std::uint8_t SkyIndex(double slope) {
    double t = std::clamp(slope / kSkyTopSlope, 0.0, 1.0);
    return static_cast<std::uint8_t>(std::lround(t * (kSkyLevels - 1)));
}

const Palette& DefaultPalette() {
    static const Palette palette = MakePalette(DefaultLandColours());
    return palette;
}

std::string HexColour(Rgb colour) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "#%02x%02x%02x", colour.r, colour.g, colour.b);
    return hex;
}

Rgb ToRgb(Pixel pixel, const Palette& palette) {
    Rgb c = palette[pixel.index];
    auto scale = [&](std::uint8_t v) {
        return static_cast<std::uint8_t>((v * pixel.intensity + 127) / 255);
    };
    return {scale(c.r), scale(c.g), scale(c.b)};
}

}  // namespace bfv::common
