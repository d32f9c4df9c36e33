#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace bfv::common {

/// An 8-bit sRGB colour (display values, not linear light).
struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;

    friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// A pixel as it travels from a ray tracer to the display: its 8-bit sRGB colour, 3 bytes. (The
/// source paper sent 2: a palette index and an intensity, which cannot carry a photograph's
/// colours or a smooth sky.) Messages, frames and checksums hold pixels as these bytes.
using Pixel = Rgb;
static_assert(sizeof(Pixel) == 3);

/// Land materials along one ramp, from a cleared valley floor through meadow, forest and scrub
/// to bare and steep rock: a post's material coordinate (0 .. kLandMaterials - 1, see
/// raytracer::LandMaterialCoordinate) is a place on this ramp, and its colour lies between the
/// two steps around it (LandRampColour).
inline constexpr int kLandMaterials = 8;

/// The colours of the land ramp's kLandMaterials steps, from step 0 up.
using LandColours = std::array<Rgb, kLandMaterials>;

/// bfv's own land ramp: field, meadow, open forest, forest, dense forest, scrub, bare rock,
/// steep rock (the materials raytracer::LandMaterialCoordinate places posts among).
const LandColours& DefaultLandColours();

/// The colour at place `coordinate` on `ramp` (clamped to 0 .. kLandMaterials - 1): linear
/// between the two steps around it, each channel rounded, so that materials blend smoothly.
Rgb RampColour(const LandColours& ramp, float coordinate);

/// `value` (a colour channel on the 0..255 scale) as the nearest 8-bit level, clamped to
/// 0..255 (halves round up). Inline and without a library call: tiles colour every post.
inline std::uint8_t ToChannel(float value) {
    return static_cast<std::uint8_t>(std::clamp(value, 0.0f, 255.0f) + 0.5f);
}

/// `a` blended toward `b` by `t` (0: a, 1: b), per channel, rounded (ToChannel).
inline Rgb MixColour(Rgb a, Rgb b, float t) {
    auto mix = [t](std::uint8_t p, std::uint8_t q) {
        return ToChannel(static_cast<float>(p) + static_cast<float>(q - p) * t);
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

/// Colour of clear water seen from above (before the sky's reflection).
inline constexpr Rgb kWaterColour{38, 78, 118};
/// "#rrggbb" of `colour`, as HTML and GIS tools write colours.
std::string HexColour(Rgb colour);

}  // namespace bfv::common
