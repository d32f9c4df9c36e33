#include "common/palette.h"

#include <algorithm>
#include <cmath>

namespace bfv::common {

namespace {

constexpr Rgb kHaze{190, 205, 222};
constexpr Rgb kZenith{52, 98, 170};
// Valley floor to ridge top, two rock shades for steep slopes, then water.
constexpr std::array<Rgb, kMaterials> kMaterialRgb{{
    {86, 125, 70},    // valley meadow
    {62, 110, 52},    // lower forest
    {47, 92, 44},     // forest
    {72, 96, 50},     // upper forest
    {110, 108, 72},   // ridge scrub
    {140, 128, 100},  // ridge top
    {118, 110, 100},  // rock
    {96, 90, 84},     // steep rock
    {38, 78, 118},    // water
}};

Rgb Lerp(Rgb a, Rgb b, double t) {
    auto mix = [t](std::uint8_t p, std::uint8_t q) {
        return static_cast<std::uint8_t>(std::lround(p + (q - p) * t));
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

std::array<Rgb, 256> BuildPalette() {
    std::array<Rgb, 256> palette{};
    for (int s = 0; s < kSkyLevels; ++s) {
        palette[s] = Lerp(kHaze, kZenith, static_cast<double>(s) / (kSkyLevels - 1));
    }
    for (int m = 0; m < kMaterials; ++m) {
        for (int h = 0; h < kHazeLevels; ++h) {
            double t = static_cast<double>(h) / (kHazeLevels - 1);
            palette[kSkyLevels + m * kHazeLevels + h] = Lerp(kMaterialRgb[m], kHaze, t);
        }
    }
    return palette;
}

}  // namespace

std::uint8_t SkyIndex(double slope) {
    double t = std::clamp(slope / kSkyTopSlope, 0.0, 1.0);
    return static_cast<std::uint8_t>(std::lround(t * (kSkyLevels - 1)));
}

const std::array<Rgb, 256>& Palette() {
    static const std::array<Rgb, 256> palette = BuildPalette();
    return palette;
}

Rgb ToRgb(Pixel pixel) {
    Rgb c = Palette()[pixel.index];
    auto scale = [&](std::uint8_t v) {
        return static_cast<std::uint8_t>((v * pixel.intensity + 127) / 255);
    };
    return {scale(c.r), scale(c.g), scale(c.b)};
}

}  // namespace bfv::common
