#include "terrain/pinned_ground.h"

#include <algorithm>

#include "common/check.h"

namespace bfv::terrain {

PinnedGround::PinnedGround(const TerrainStartup& startup, double waterLevelM)
    : info_(startup.info),
      level_(PinnedLevels(startup.info) - 1),
      spacingM_(startup.info.geometry.SpacingM(level_)) {
    int n = info_.geometry.TilesPerSide(level_);
    heightsM_.resize(static_cast<std::size_t>(n) * n);
    for (const TilePosts& tile : startup.pinned) {
        if (tile.key.level != level_) continue;
        std::vector<float>& heights =
            heightsM_[static_cast<std::size_t>(tile.key.ty) * n + tile.key.tx];
        heights.resize(kTilePostCount);
        for (int k = 0; k < kTilePostCount; ++k) {
            heights[k] =
                std::max(info_.coding.Decode(tile.codes[k]), static_cast<float>(waterLevelM));
        }
    }
    for (const std::vector<float>& heights : heightsM_) BFV_CHECK(!heights.empty());
}

double PinnedGround::HeightAtM(double xM, double yM) const {
    TileKey key = info_.geometry.TileAt(level_, xM, yM);
    const std::vector<float>& heights =
        heightsM_[static_cast<std::size_t>(key.ty) * info_.geometry.TilesPerSide(level_) + key.tx];
    PostCell c = CellAt(TileOriginM(key.tx, spacingM_), TileOriginM(key.ty, spacingM_),
                        1.0 / spacingM_, xM, yM);
    return BilinearInCell(&heights[c.j * kTilePosts + c.i], c.fx, c.fy);
}

common::GroundFn PinnedGround::Smoothed(double radiusM) const {
    return [this, radiusM](double xM, double yM) {
        double sum = 0.0;
        for (int b = -1; b <= 1; ++b) {
            for (int a = -1; a <= 1; ++a) sum += HeightAtM(xM + a * radiusM, yM + b * radiusM);
        }
        return sum / 9.0;
    };
}

}  // namespace bfv::terrain
