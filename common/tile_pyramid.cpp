#include "common/tile_pyramid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bfv::common {

std::uint64_t TileKey::Packed() const {
    return (static_cast<std::uint64_t>(level) << 48) | (static_cast<std::uint64_t>(tx) << 24) |
           static_cast<std::uint64_t>(ty);
}

TileKey TileKey::Unpack(std::uint64_t packed) {
    return {static_cast<int>(packed >> 48), static_cast<int>((packed >> 24) & 0xFFFFFF),
            static_cast<int>(packed & 0xFFFFFF)};
}

std::string TileKey::ToString() const { return fmt::format("L{}/{}/{}", level, tx, ty); }

double PyramidGeometry::SpacingM(int level) const {
    return rootSizeM / std::ldexp(static_cast<double>(kTileCells), level);
}

TileKey PyramidGeometry::TileAt(int level, double xM, double yM) const {
    int n = TilesPerSide(level);
    double perTile = 1.0 / TileSizeM(level);
    auto index = [&](double v) {
        return std::clamp(static_cast<int>(std::floor(v * perTile)), 0, n - 1);
    };
    return {level, index(xM), index(yM)};
}

std::int16_t HeightCoding::Encode(double heightM) const {
    double code = std::round((heightM - offsetM) / scaleM);
    return static_cast<std::int16_t>(std::clamp(code, -32767.0, 32767.0));
}

double Roughness::AmplitudeM(double spacingM) const {
    return sigmaM * std::pow(spacingM / referenceSpacingM, hurst);
}

int Pyramid::StoredIndex(const TileKey& key) const {
    if (key.level < 0 || key.level >= info.storedLevels) return -1;
    int n = info.geometry.TilesPerSide(key.level);
    if (key.tx < 0 || key.ty < 0 || key.tx >= n || key.ty >= n) return -1;
    // Levels 0..L-1 hold (4^L - 1) / 3 tiles.
    int before = static_cast<int>(((1LL << (2 * key.level)) - 1) / 3);
    return before + key.ty * n + key.tx;
}

}  // namespace bfv::common
