#include "common/pixel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bfv::common {

const LandColours& DefaultLandColours() {
    // Their hues tell the land cover; their brightness (Rec. 709 luma 98-114) differs much less
    // than real albedos do, so that the relief's light and shade, not the cover, is what reads from
    // afar (bfv_appearance_bench: the land cover's variance is not to be larger than the
    // relief's).
    static constexpr LandColours land{{
        {117, 116, 74},  // field
        {92, 121, 59},   // meadow
        {78, 118, 58},   // open forest
        {66, 116, 58},   // forest
        {59, 114, 62},   // dense forest
        {89, 108, 65},   // scrub
        {110, 106, 90},  // bare rock
        {109, 102, 96},  // steep rock
    }};
    return land;
}

Rgb RampColour(const LandColours& ramp, float coordinate) {
    float place = std::clamp(coordinate, 0.0f, static_cast<float>(kLandMaterials - 1));
    int step = std::min(static_cast<int>(place), kLandMaterials - 2);
    float t = place - static_cast<float>(step);
    return MixColour(ramp[step], ramp[step + 1], t);
}

std::string HexColour(Rgb colour) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "#%02x%02x%02x", colour.r, colour.g, colour.b);
    return hex;
}

}  // namespace bfv::common
