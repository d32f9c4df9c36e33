#include "raytracer/materials.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bfv::raytracer {

namespace {

// Value in [0, 1) of lattice point (i, j) of octave `octave` (a 32-bit integer hash: the
// multiply-xorshift finaliser of MurmurHash3).
float LatticeValue(std::int64_t i, std::int64_t j, std::uint32_t octave) {
    auto h = static_cast<std::uint32_t>(i) * 0x8da6b343u ^ static_cast<std::uint32_t>(j) * 0xd8163841u ^
             octave * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

// Value noise with cells of `cellM` metres: smoothstep between the four lattice values.
float ValueNoise(double xM, double yM, double cellM, std::uint32_t octave) {
    double u = xM / cellM, v = yM / cellM;
    double iu = std::floor(u), iv = std::floor(v);
    auto smooth = [](double t) { return static_cast<float>(t * t * (3.0 - 2.0 * t)); };
    float fx = smooth(u - iu), fy = smooth(v - iv);
    auto i = static_cast<std::int64_t>(iu), j = static_cast<std::int64_t>(iv);
    float south = LatticeValue(i, j, octave) +
                  fx * (LatticeValue(i + 1, j, octave) - LatticeValue(i, j, octave));
    float north = LatticeValue(i, j + 1, octave) +
                  fx * (LatticeValue(i + 1, j + 1, octave) - LatticeValue(i, j + 1, octave));
    return south + fy * (north - south);
}

}  // namespace

float LandCover(double xM, double yM) {
    return 0.65f * ValueNoise(xM, yM, 400.0, 1) + 0.35f * ValueNoise(xM, yM, 150.0, 2);
}

float LandMaterialCoordinate(float normalisedHeight, float slope, float reliefPosition,
                             float cover) {
    float cleared = std::clamp(1.0f - slope / 0.15f, 0.0f, 1.0f);
    float high = std::clamp((normalisedHeight - 0.8f) / 0.2f, 0.0f, 1.0f);
    // Patches with edges: the cover's middle third spans the whole swing.
    float patch = std::clamp((cover - 0.33f) * 3.0f, 0.0f, 1.0f);
    float vegetation = std::clamp(3.0f - 2.6f * cleared + 4.0f * reliefPosition +
                                      3.6f * (patch - 0.5f) + 1.5f * high,
                                  0.0f, 5.0f);
    float rock = std::clamp((slope - 0.5f) / 0.5f, 0.0f, 1.0f);
    return vegetation + rock * (7.5f - vegetation);
}

}  // namespace bfv::raytracer
