#include "terrain/tile_pyramid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/check.h"

namespace bfv::terrain {

std::uint64_t TileKey::Packed() const {
    return (static_cast<std::uint64_t>(level) << 48) | (static_cast<std::uint64_t>(tx) << 24) |
           static_cast<std::uint64_t>(ty);
}

TileKey TileKey::Unpack(std::uint64_t packed) {
    return {static_cast<int>(packed >> 48), static_cast<int>((packed >> 24) & 0xFFFFFF),
            static_cast<int>(packed & 0xFFFFFF)};
}

std::string TileKey::ToString() const { return fmt::format("L{}/{}/{}", level, tx, ty); }

// The ray caster asks for these at every tile its rays cross: a shift instead of std::ldexp, and
// a clamp before truncating instead of std::floor (both library calls on the baseline instruction
// set), give the same values.
double PyramidGeometry::SpacingM(int level) const {
    return rootSizeM / static_cast<double>(std::int64_t{kTileCells} << level);
}

TileKey PyramidGeometry::TileAt(int level, double xM, double yM) const {
    const double lastTile = TilesPerSide(level) - 1;
    const double perTile = 1.0 / TileSizeM(level);
    // floor(v / tile size) clamped to [0, lastTile]: clamped first, then truncated (>= 0).
    auto index = [&](double v) { return static_cast<int>(std::clamp(v * perTile, 0.0, lastTile)); };
    return {level, index(xM), index(yM)};
}

std::int16_t HeightCoding::Encode(double heightM) const {
    double code = std::round((heightM - offsetM) / scaleM);
    return static_cast<std::int16_t>(std::clamp(code, -32767.0, 32767.0));
}

double Roughness::AmplitudeM(double spacingM) const {
    return sigmaM * std::pow(spacingM / referenceSpacingM, hurst);
}

namespace {

// A displacement with mean 0 and variance 1 (uniform on [-sqrt 3, sqrt 3]) that depends only
// on (seed, level, i, j): splitmix64 of the packed key.
double Displacement(std::uint64_t seed, int level, int i, int j) {
    std::uint64_t z = seed ^ (static_cast<std::uint64_t>(level) << 58) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 29) ^
                      static_cast<std::uint64_t>(static_cast<std::uint32_t>(j));
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double unit = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    return (2.0 * unit - 1.0) * std::sqrt(3.0);
}

}  // namespace

Expected<void> CheckBuildOptions(const PyramidBuildOptions& options) {
    if (auto ok = common::CheckRange("finest spacing", options.finestSpacingM, kPostSpacingRangeM);
        !ok) {
        return ok;
    }
    return common::CheckRange("roughness scale", options.roughnessScale, kRoughnessScaleRange);
}

namespace {

// How one axis of a child post is predicted from its parent level: an even post is its
// parent; an odd one the 4-point interpolating subdivision of Dyn, Levin and Gregory,
// (-1, 9, 9, -1) / 16 over the four nearest parents, which joins levels with C1 smoothness
// (bilinear prediction would leave creases along every parent cell edge). Local indices
// into the parent tile.
struct AxisStencil {
    int first = 0;  // local index of the first parent
    int taps = 1;   // 1 or 4
    static constexpr double kWeights[4] = {-1.0 / 16, 9.0 / 16, 9.0 / 16, -1.0 / 16};
};

AxisStencil StencilFor(int global, int parentOrigin) {
    if ((global & 1) == 0) return {(global >> 1) - parentOrigin, 1};
    return {((global - 1) >> 1) - 1 - parentOrigin, 4};
}

}  // namespace

TilePosts RefineTile(const PyramidInfo& info, const TilePosts& parent, const TileKey& child) {
    BFV_CHECK(child.level > 0 && child.Parent() == parent.key);
    BFV_CHECK(parent.codes.size() == static_cast<std::size_t>(kTilePostCount));
    std::vector<double> parentM(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k) parentM[k] = info.coding.Decode(parent.codes[k]);
    double amplitudeM = info.roughness.AmplitudeM(info.geometry.SpacingM(child.level));
    int parentOriginX = parent.key.tx * kTileCells - kTileBorder;
    int parentOriginY = parent.key.ty * kTileCells - kTileBorder;
    TilePosts tile{child, std::vector<std::int16_t>(kTilePostCount)};
    for (int b = 0; b < kTilePosts; ++b) {
        int gj = child.ty * kTileCells + b - kTileBorder;
        AxisStencil sy = StencilFor(gj, parentOriginY);
        for (int a = 0; a < kTilePosts; ++a) {
            int gi = child.tx * kTileCells + a - kTileBorder;
            AxisStencil sx = StencilFor(gi, parentOriginX);
            double heightM = 0.0;
            for (int v = 0; v < sy.taps; ++v) {
                double wy = sy.taps == 1 ? 1.0 : AxisStencil::kWeights[v];
                const double* row = &parentM[(sy.first + v) * kTilePosts + sx.first];
                double along = 0.0;
                for (int u = 0; u < sx.taps; ++u) {
                    along += (sx.taps == 1 ? 1.0 : AxisStencil::kWeights[u]) * row[u];
                }
                heightM += wy * along;
            }
            if ((gi | gj) & 1) {
                heightM += amplitudeM * Displacement(info.roughness.seed, child.level, gi, gj);
            }
            tile.codes[b * kTilePosts + a] = info.coding.Encode(heightM);
        }
    }
    return tile;
}

int PinnedLevels(const PyramidInfo& info) { return std::min(info.storedLevels, kMaxPinnedLevels); }

std::uint64_t TilesBelowLevel(int levelCount) {
    return ((std::uint64_t{1} << (2 * levelCount)) - 1) / 3;
}

long long TileIndex(int levelCount, const TileKey& key) {
    if (key.level < 0 || key.level >= levelCount) return -1;
    long long perSide = 1LL << key.level;
    bool inside = key.tx >= 0 && key.ty >= 0 && key.tx < perSide && key.ty < perSide;
    if (!inside) return -1;
    return static_cast<long long>(TilesBelowLevel(key.level)) + key.ty * perSide + key.tx;
}

int Pyramid::StoredIndex(const TileKey& key) const {
    return static_cast<int>(TileIndex(info.storedLevels, key));
}

}  // namespace bfv::terrain
