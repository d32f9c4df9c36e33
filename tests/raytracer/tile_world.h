#pragma once

// A synthetic terrain for the ray caster's tests: a TileCache filled from posts given as a
// function of the finest level's global post, every tile of the first levels resident; and a
// view of it through the pinhole camera's fan of planes.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/fan.h"
#include "raytracer/ray_caster.h"
#include "raytracer/tile_cache.h"

namespace bfv::raytracer {

/// A test world: a pyramid of `levelCount` levels whose finest posts are `finestSpacingM` apart,
/// data over [0, widthM] x [0, depthM], and every tile of levels 0..residentLevels-1 resident,
/// its posts (quantised to 1 mm) from height(i, j) at the finest level's global post (i, j).
struct TileWorld {
    terrain::PyramidInfo info;
    std::unique_ptr<TileCache> cache;
    std::function<double(int, int)> finestPostM;  // decoded height of a finest-level post
    int finest = 0;

    double WidthM() const { return info.dataWidthM; }
    double DepthM() const { return info.dataDepthM; }
    double SpacingM() const { return info.geometry.SpacingM(finest); }
    double MaxHeightM() const { return info.maxHeightM; }
};

/// The height of finest post (i, j), metres.
using PostFn = std::function<double(int, int)>;
/// The draped texture code of finest post (i, j) (terrain::TilePosts::materials): an index into
/// the world's palette, whose entry c is DrapedTestColour(c).
using MaterialFn = std::function<std::uint8_t(int, int)>;

/// Palette entry `code` of a TileWorld draped with a MaterialFn: red `code`, green 255 - code,
/// so that a pixel's red over green tells which of two codes it is nearer.
inline common::Rgb DrapedTestColour(std::uint8_t code) {
    return {code, static_cast<std::uint8_t>(255 - code), 0};
}

/// The TileWorld of posts `height` (and, when given, draped materials `materialCode`; else the
/// materials the cache derives from the heights) under water at `waterLevelM`. The data must lie
/// in level 0's one tile, kTileCells * finestSpacingM * 2^(levelCount - 1) metres on a side.
inline TileWorld MakeWorld(double finestSpacingM, int levelCount, double widthM, double depthM,
                           PostFn height, int residentLevels, float maxHeightM,
                           double waterLevelM = terrain::kNoWaterM, MaterialFn materialCode = {}) {
    TileWorld w;
    w.finest = levelCount - 1;
    w.info.name = "test";
    w.info.dataWidthM = widthM;
    w.info.dataDepthM = depthM;
    w.info.geometry = {terrain::kTileCells * finestSpacingM * std::ldexp(1.0, levelCount - 1),
                       levelCount};
    w.info.storedLevels = levelCount;
    w.info.coding = {0.001, 0.0};
    w.info.minHeightM = 0.0f;
    w.info.maxHeightM = maxHeightM;
    if (materialCode) {
        for (int c = 0; c < 256; ++c) {
            w.info.landColours.push_back(DrapedTestColour(static_cast<std::uint8_t>(c)));
        }
    }
    w.finestPostM = [coding = w.info.coding, height](int i, int j) {
        return static_cast<double>(coding.Decode(coding.Encode(height(i, j))));
    };
    w.cache = std::make_unique<TileCache>(w.info, Lighting{}, waterLevelM);
    for (int level = 0; level < residentLevels; ++level) {
        int n = w.info.geometry.TilesPerSide(level), step = 1 << (w.finest - level);
        double tileM = w.info.geometry.TileSizeM(level);
        for (int ty = 0; ty < n && ty * tileM < depthM; ++ty) {
            for (int tx = 0; tx < n && tx * tileM < widthM; ++tx) {
                terrain::TilePosts tile{{level, tx, ty},
                                        std::vector<std::int16_t>(terrain::kTilePostCount)};
                if (materialCode) tile.materials.resize(terrain::kTilePostCount);
                for (int b = 0; b < terrain::kTilePosts; ++b) {
                    for (int a = 0; a < terrain::kTilePosts; ++a) {
                        int i = (tx * terrain::kTileCells + a - terrain::kTileBorder) * step;
                        int j = (ty * terrain::kTileCells + b - terrain::kTileBorder) * step;
                        tile.codes[b * terrain::kTilePosts + a] =
                            w.info.coding.Encode(height(i, j));
                        if (materialCode) {
                            tile.materials[b * terrain::kTilePosts + a] = materialCode(i, j);
                        }
                    }
                }
                w.cache->Insert(tile, true, 0);
            }
        }
    }
    return w;
}

/// Heights uniform in [0, maxHeightM], a hash of the post.
inline PostFn RandomHeights(double maxHeightM, unsigned seed) {
    return [=](int i, int j) {
        std::uint64_t z = (static_cast<std::uint64_t>(seed) << 42) ^
                          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 21) ^
                          static_cast<std::uint32_t>(j);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return maxHeightM * static_cast<double>(z >> 11) * 0x1.0p-53;
    };
}

/// One view of a TileWorld: its pose, the fan of its pitch and the frame's rays (the fan
/// outlives the frame that points at it), and what the tests do with a plane of it.
struct View {
    common::CameraPose pose;
    common::FanLayout fan;
    FrameRays frame;

    View(const TileCache& cache, const common::CameraPose& p, const common::ScreenSpec& screen,
         const CastSettings& settings)
        : pose(p),
          fan(common::BuildFanLayout(screen, p.pitchRad)),
          frame(FrameRaysOf(cache, p, fan, settings)) {}
    View(const View&) = delete;

    /// Plane p's pixel slopes, as TracePlane takes them.
    std::span<const double> Slopes(int p) const {
        return {fan.pixelSlope.data() + fan.planeStart[p],
                static_cast<std::size_t>(fan.planeStart[p + 1] - fan.planeStart[p])};
    }
    /// Traces plane p into `scratch` and returns its direction.
    common::HorizontalDirection Trace(const TileCache& cache, int p, const CastSettings& settings,
                                      ColumnScratch& scratch) const {
        TracePlane(cache, frame, p, Slopes(p), settings, scratch);
        return common::PlaneDirection(fan, p, pose.headingRad);
    }
    /// Casts plane p (every column of the screen) into `image` (column-major, the whole screen)
    /// and returns its direction; row r of `scratch` is pixel PixelIndex(p, r).
    common::HorizontalDirection Cast(const TileCache& cache, int p, const CastSettings& settings,
                                     ColumnScratch& scratch,
                                     std::vector<common::Pixel>& image) const {
        image.resize(static_cast<std::size_t>(fan.screen.widthPx) * fan.screen.heightPx);
        CastPlane(cache, frame, p, settings, {0, 1, fan.screen.widthPx}, scratch, image.data());
        return common::PlaneDirection(fan, p, pose.headingRad);
    }
    /// The pixel (x * heightPx + y) of row r of plane p, as TracePlane and CastPlane order rows.
    std::uint32_t PixelIndex(int p, int r) const { return fan.pixelIndex[fan.planeStart[p] + r]; }
    /// The plane holding pixel (x, y).
    int PlaneOf(int x, int y) const {
        auto at = std::find(fan.pixelIndex.begin(), fan.pixelIndex.end(),
                            static_cast<std::uint32_t>(x * fan.screen.heightPx + y));
        auto start = std::upper_bound(fan.planeStart.begin(), fan.planeStart.end(),
                                      static_cast<int>(at - fan.pixelIndex.begin()));
        return static_cast<int>(start - fan.planeStart.begin()) - 1;
    }
    /// "column x row y" of row r of plane p.
    std::string Pixel(int p, int r) const {
        std::uint32_t index = PixelIndex(p, r);
        return "column " + std::to_string(index / fan.screen.heightPx) + " row " +
               std::to_string(index % fan.screen.heightPx);
    }
};

}  // namespace bfv::raytracer
