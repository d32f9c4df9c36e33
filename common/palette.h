#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace bfv::common {

/// A pixel as it travels from a ray tracer to the display (2 bytes, as in the source paper):
/// a palette index and an intensity that scales the palette colour.
struct Pixel {
    std::uint8_t index = 0;      // palette entry (see PaletteIndex)
    std::uint8_t intensity = 0;  // 0..255, multiplies the palette colour
};
static_assert(sizeof(Pixel) == 2);

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

/// Palette layout: kSkyLevels sky entries (horizon to zenith), then kMaterials terrain
/// materials, each with kHazeLevels entries from clear (0) to fully hazed.
inline constexpr int kSkyLevels = 64;
inline constexpr int kMaterials = 8;
inline constexpr int kHazeLevels = 24;
inline constexpr int kPaletteSize = kSkyLevels + kMaterials * kHazeLevels;
static_assert(kPaletteSize <= 256);

/// Terrain material from a height normalised to the dataset's range (0 = lowest post,
/// 1 = highest) and the terrain slope (rise over run): six hypsometric bands; steep ground is
/// rock (material 6), very steep ground darker rock (7). Inline: called once per pixel.
inline int MaterialFor(float normalisedHeight, float slope) {
    constexpr float kRockSlope = 0.55f;      // rise/run above which ground shows rock
    constexpr float kSteepRockSlope = 0.9f;  // rise/run above which rock is darker
    int band = static_cast<int>(std::clamp(normalisedHeight, 0.0f, 0.999f) * 6.0f);
    // Selected, not branched on: on rough ground rock and grass alternate pixel by pixel.
    int rock = static_cast<int>(slope > kRockSlope) + static_cast<int>(slope > kSteepRockSlope);
    return rock == 0 ? band : 5 + rock;
}

/// Palette index of terrain of `material` seen through `hazeFraction` (0..1) of haze.
inline std::uint8_t TerrainIndex(int material, float hazeFraction) {
    int level = static_cast<int>(std::clamp(hazeFraction, 0.0f, 1.0f) * (kHazeLevels - 1) + 0.5f);
    return static_cast<std::uint8_t>(kSkyLevels + material * kHazeLevels + level);
}

/// Palette index of the sky along a ray that rises `slope` metres per metre of horizontal
/// distance (0 = horizon; below the horizon the horizon colour is used).
std::uint8_t SkyIndex(double slope);

/// The 256-entry palette the display applies: RGB = palette[index] * intensity / 255.
const std::array<Rgb, 256>& Palette();

/// Final colour of a pixel (palette lookup scaled by intensity, rounded).
Rgb ToRgb(Pixel pixel);

}  // namespace bfv::common
