#include "common/pixel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bfv::common {

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
