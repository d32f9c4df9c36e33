#include "terrain/drape.h"

#include <algorithm>
#include <array>
#include <random>

namespace bfv::terrain {

namespace {

/// A pseudo-random fraction in [0, 1) from `rng`, the same on every standard library.
double Fraction(std::mt19937& rng) { return static_cast<double>(rng()) / 4294967296.0; }

}  // namespace

Expected<std::vector<common::Rgb>> PaletteSamples(Imagery& imagery, const PyramidInfo& info) {
    constexpr int kSide = kPaletteBlocks * kPaletteBlockCells;
    std::vector<common::Rgb> samples, block;
    constexpr double kCoarse = 1.0 / kPaletteCoarseSide;
    if (auto ok = imagery.Sample(0.0, 0.0, kCoarse, kCoarse, kPaletteCoarseSide, kPaletteCoarseSide,
                                 samples);
        !ok) {
        return ok.error();
    }
    double spacingM = info.geometry.SpacingM(info.drapedLevels - 1);
    double du = std::min(spacingM / info.dataWidthM, 1.0 / kSide);
    double dv = std::min(spacingM / info.dataDepthM, 1.0 / kSide);
    constexpr double kShare = 1.0 / kPaletteBlocks;  // of the data area, per block and axis
    std::mt19937 rng(20261126u);
    for (int by = 0; by < kPaletteBlocks; ++by) {
        for (int bx = 0; bx < kPaletteBlocks; ++bx) {
            double u0 = bx * kShare + Fraction(rng) * (kShare - kPaletteBlockCells * du);
            double v0 = by * kShare + Fraction(rng) * (kShare - kPaletteBlockCells * dv);
            if (auto ok =
                    imagery.Sample(u0, v0, du, dv, kPaletteBlockCells, kPaletteBlockCells, block);
                !ok) {
                return ok.error();
            }
            samples.insert(samples.end(), block.begin(), block.end());
        }
    }
    return samples;
}

int DrapedLevelsFor(const PyramidInfo& info, double pixelM) {
    int levels = info.storedLevels;
    while (levels < info.geometry.levelCount && info.geometry.SpacingM(levels) >= pixelM) ++levels;
    return levels;
}

Expected<void> DrapeSink::Start(const PyramidInfo& info) {
    info_ = info;
    std::array<double, 2> pixels = imagery_.PixelsAcross();
    info_.drapedLevels = DrapedLevelsFor(
        info_, std::max(info_.dataWidthM / pixels[0], info_.dataDepthM / pixels[1]));
    Expected<std::vector<common::Rgb>> samples = PaletteSamples(imagery_, info_);
    if (!samples) return samples.error();
    info_.landColours = BuildPalette(*samples);
    palette_.emplace(info_.landColours);
    return sink_.Start(info_);
}

Expected<void> DrapeSink::Drape(TilePosts& tile) {
    double spacingM = info_.geometry.SpacingM(tile.key.level);
    double du = spacingM / info_.dataWidthM, dv = spacingM / info_.dataDepthM;
    double u0 = (TileOriginM(tile.key.tx, spacingM) - 0.5 * spacingM) / info_.dataWidthM;
    double v0 = (TileOriginM(tile.key.ty, spacingM) - 0.5 * spacingM) / info_.dataDepthM;
    if (auto ok = imagery_.Sample(u0, v0, du, dv, kTilePosts, kTilePosts, colours_); !ok) {
        return ok;
    }
    tile.materials.resize(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k) tile.materials[k] = palette_->Of(colours_[k]);
    return {};
}

Expected<void> DrapeSink::PutTileRow(std::span<const TilePosts> tiles) {
    std::vector<TilePosts> draped(tiles.begin(), tiles.end());
    for (TilePosts& tile : draped) {
        if (auto ok = Drape(tile); !ok) return ok;
    }
    return sink_.PutTileRow(draped);
}

Expected<void> DrapeSink::PutDrapedLevels() {
    const auto total = static_cast<long long>(TilesBelowLevel(info_.drapedLevels) -
                                              TilesBelowLevel(info_.storedLevels));
    long long done = 0;
    std::vector<TilePosts> row;
    for (int level = info_.storedLevels; level < info_.drapedLevels; ++level) {
        int perSide = info_.geometry.TilesPerSide(level);
        for (int ty = 0; ty < perSide; ++ty) {
            row.assign(perSide, TilePosts{});
            for (int tx = 0; tx < perSide; ++tx) {
                row[tx].key = {level, tx, ty};
                if (auto ok = Drape(row[tx]); !ok) return ok;
            }
            if (auto ok = sink_.PutTileRow(row); !ok) return ok;
            done += perSide;
            if (progress_) progress_(done, total);
        }
    }
    return {};
}

}  // namespace bfv::terrain
