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
/// materials (MaterialFor's eight, then water), each with kHazeLevels entries from clear (0)
/// to fully hazed.
inline constexpr int kSkyLevels = 40;
inline constexpr int kMaterials = 9;
/// The material of a water surface (see raytracer::TileCache::WaterLevelM).
inline constexpr int kWaterMaterial = 8;
inline constexpr int kHazeLevels = 24;
inline constexpr int kPaletteSize = kSkyLevels + kMaterials * kHazeLevels;
static_assert(kPaletteSize <= 256);

/// Terrain materials: kHeightBands hypsometric bands (0 .. kHeightBands - 1) by height, then
/// rock where the ground is steeper than kRockSlope and darker rock beyond kSteepRockSlope
/// (rise over run).
inline constexpr int kHeightBands = 6;
inline constexpr float kRockSlope = 0.55f;
inline constexpr float kSteepRockSlope = 0.9f;
/// Ray slope (31 deg) at which the sky is zenith blue; SkyIndex grades the sky below it.
inline constexpr double kSkyTopSlope = 0.6;

/// Terrain material from a height normalised to the dataset's range (0 = lowest post,
/// 1 = highest) and the terrain slope (rise over run): the height bands, or rock (material 6)
/// and steep rock (7). The definition the ray caster's vector shading implements.
inline int MaterialFor(float normalisedHeight, float slope) {
    int band = static_cast<int>(std::clamp(normalisedHeight, 0.0f, 0.999f) * kHeightBands);
    // Selected, not branched on: on rough ground rock and grass alternate pixel by pixel.
    int rock = static_cast<int>(slope > kRockSlope) + static_cast<int>(slope > kSteepRockSlope);
    return rock == 0 ? band : kHeightBands - 1 + rock;
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
