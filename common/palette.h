#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

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
/// materials (the kLandMaterials of the land ramp, then water), each with kHazeLevels entries
/// from clear (0) to fully hazed.
inline constexpr int kSkyLevels = 40;
/// Land materials along one ramp, from a cleared valley floor through meadow, forest and scrub
/// to bare and steep rock: a post's material coordinate (0 .. kLandMaterials, see
/// raytracer::LandMaterialCoordinate) is a place on this ramp, and a pixel between two steps
/// shows a dithered mix of both (LandMaterialAt).
inline constexpr int kLandMaterials = 8;
inline constexpr int kMaterials = kLandMaterials + 1;
/// The material of a water surface (see raytracer::TileCache::WaterLevelM).
inline constexpr int kWaterMaterial = kLandMaterials;
inline constexpr int kHazeLevels = 24;
inline constexpr int kPaletteSize = kSkyLevels + kMaterials * kHazeLevels;
static_assert(kPaletteSize <= 256);
/// Ray slope (31 deg) at which the sky is zenith blue; SkyIndex grades the sky below it.
inline constexpr double kSkyTopSlope = 0.6;

/// The integer hash behind GroundDither (multipliers of a 32-bit multiply-xorshift mix): the
/// ray caster's vector shading uses the same constants.
inline constexpr std::uint32_t kDitherHashI = 0x8da6b343u, kDitherHashJ = 0xd8163841u,
                               kDitherHashLevel = 0xcb1ab31fu, kDitherMix1 = 0x7feb352du,
                               kDitherMix2 = 0x846ca68bu;

/// The dither threshold of post cell (i, j) of pyramid level `level` (cell (i, j) spans
/// [i, i + 1) x [j, j + 1) post spacings east and north of the data's south-west corner), in
/// [0, 1): uniform white noise hashed from the cell, so that a mix of two materials reads as
/// grain, like mixed vegetation, and the grain is fixed to the ground: it moves with the
/// terrain and does not crawl on the screen. A level's cells are about a pixel's footprint
/// where the caster reads it. The same on every rank and every run.
inline float GroundDither(std::int32_t i, std::int32_t j, int level) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * kDitherHashI ^
                      static_cast<std::uint32_t>(j) * kDitherHashJ ^
                      static_cast<std::uint32_t>(level) * kDitherHashLevel;
    h ^= h >> 16;
    h *= kDitherMix1;
    h ^= h >> 15;
    h *= kDitherMix2;
    h ^= h >> 16;
    return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

/// The land material (0 .. kLandMaterials - 1) a pixel shows where the material coordinate is
/// `coordinate` and its dither threshold `dither`: floor(coordinate + dither), so that over
/// many pixels the two steps around the coordinate show in proportion to its fraction. The
/// definition the ray caster's vector shading implements.
inline int LandMaterialAt(float coordinate, float dither) {
    return static_cast<int>(std::clamp(coordinate + dither, 0.0f, kLandMaterials - 0.5f));
}

/// Palette index of terrain of `material` seen through `hazeFraction` (0..1) of haze.
inline std::uint8_t TerrainIndex(int material, float hazeFraction) {
    int level = static_cast<int>(std::clamp(hazeFraction, 0.0f, 1.0f) * (kHazeLevels - 1) + 0.5f);
    return static_cast<std::uint8_t>(kSkyLevels + material * kHazeLevels + level);
}

/// Palette index of the sky along a ray that rises `slope` metres per metre of horizontal
/// distance (0 = horizon; below the horizon the horizon colour is used).
std::uint8_t SkyIndex(double slope);

/// "#rrggbb" of `colour`, as HTML and GIS tools write colours.
std::string HexColour(Rgb colour);

/// The 256-entry palette the display applies: RGB = palette[index] * intensity / 255.
using Palette = std::array<Rgb, 256>;

/// The colours of the land ramp's kLandMaterials steps, from step 0 up.
using LandColours = std::array<Rgb, kLandMaterials>;

/// bfv's own land ramp: field, meadow, open forest, forest, dense forest, scrub, bare rock,
/// steep rock (the materials raytracer::LandMaterialCoordinate places posts among).
const LandColours& DefaultLandColours();

/// The palette with `land` as the land ramp's colours: the sky from haze at the horizon to
/// zenith blue, then each material (the land steps, then water) from clear to fully hazed. A
/// dataset draped with imagery (`bfv import --texture`) brings its own land colours.
Palette MakePalette(const LandColours& land);

/// MakePalette(DefaultLandColours()), built once.
const Palette& DefaultPalette();

/// Final colour of a pixel under `palette` (palette lookup scaled by intensity, rounded).
Rgb ToRgb(Pixel pixel, const Palette& palette = DefaultPalette());

}  // namespace bfv::common
