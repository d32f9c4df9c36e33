#pragma once

// The multi-resolution terrain: a quadtree pyramid of square tiles.
//
// Level 0 is one tile spanning the dataset (its side, rootSizeM, is the smallest power-of-two
// multiple of the finest post spacing that covers the dataset's width and depth); each level
// halves the post spacing, so level L has 2^L x 2^L tiles and spacing
// rootSizeM / (kTileCells * 2^L). Posts sit on cell corners: post (i, j) of level L stands at
// (i * spacing, j * spacing) east and north of the dataset's south-west corner, and a tile holds
// the posts of its kTileCells x kTileCells cells plus a border of kTileBorder posts all round,
// so a tile alone interpolates and shades every point it covers, and neighbouring tiles share
// their edge posts (no cracks between tiles of one level).
//
// Levels 0..storedLevels-1 are resampled from the source DEM: the finest stored level samples
// it bilinearly, each coarser one is the [1 2 1] x [1 2 1] / 16 filter of the level below at its
// even posts. The finer levels, down to the finest spacing, are refined fractally from their
// parent (midpoint displacement): a post at even indices keeps its parent's height, the others
// take the 4-point interpolating subdivision of the parent posts (C1 smooth, see RefineTile)
// plus a displacement drawn from a hash of
// (seed, level, i, j) with the amplitude sigmaM * (spacing / referenceSpacingM)^hurst, both
// measured on the source data. Every post is a pure function of its global key, so a tile is
// the same on every run and every rank, and tiles agree where they overlap.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/pixel.h"
#include "terrain/terrain.h"

namespace bfv::terrain {

inline constexpr int kTileCells = 64;  // cells per tile side
inline constexpr int kTileBorder = 2;  // extra posts on each side of a tile
inline constexpr int kTilePosts = kTileCells + 1 + 2 * kTileBorder;  // = 69 posts per side
inline constexpr int kTilePostCount = kTilePosts * kTilePosts;       // = 4761 posts per tile
inline constexpr int kMaxLevels = 20;  // level count limit (finest 2^19 tiles per side)
/// Memory a ray tracer holds per resident tile, bytes: heights as floats, shade and material
/// as 16-bit codes, a packed colour, plus bookkeeping (56 KiB). What --cache-mib budgets.
inline constexpr std::size_t kResidentTileBytes =
    (sizeof(float) + 2 * sizeof(std::uint16_t) + sizeof(std::uint32_t)) * kTilePostCount + 512;

/// Names one tile: level L >= 0 and tile column tx (west to east) and row ty (south to north),
/// both in [0, 2^L).
struct TileKey {
    int level = 0;
    int tx = 0;
    int ty = 0;

    /// Packs the key into 64 bits (level << 48 | tx << 24 | ty); unique for level < 2^16 and
    /// tx, ty < 2^24.
    std::uint64_t Packed() const;
    /// Inverse of Packed().
    static TileKey Unpack(std::uint64_t packed);
    /// The tile one level coarser that contains this one. Requires level > 0.
    TileKey Parent() const { return {level - 1, tx >> 1, ty >> 1}; }
    /// "L<level>/<tx>/<ty>", for messages.
    std::string ToString() const;

    friend bool operator==(const TileKey&, const TileKey&) = default;
};

/// Size and resolution of a pyramid's levels.
struct PyramidGeometry {
    double rootSizeM = 0.0;  // side of level 0's single tile, metres
    int levelCount = 0;      // levels 0..levelCount-1

    /// Post spacing of `level`, metres.
    double SpacingM(int level) const;
    /// Side of one tile of `level`, metres.
    double TileSizeM(int level) const { return SpacingM(level) * kTileCells; }
    /// Tiles per side of `level`: 2^level.
    int TilesPerSide(int level) const { return 1 << level; }
    /// The tile of `level` containing world point (xM, yM), clamped into the pyramid.
    TileKey TileAt(int level, double xM, double yM) const;
};

/// How int16 post codes map to heights: heightM = offsetM + scaleM * code.
struct HeightCoding {
    double scaleM = 1.0;   // metres per code unit, > 0
    double offsetM = 0.0;  // metres

    /// The nearest code to `heightM`, clamped to [-32767, 32767].
    std::int16_t Encode(double heightM) const;
    /// The height of `code`, metres.
    float Decode(std::int16_t code) const { return static_cast<float>(offsetM + scaleM * code); }
};

/// Parameters of the fractal refinement below the source resolution, measured on the source
/// DEM (see MeasureRoughness).
struct Roughness {
    double sigmaM = 0.0;             // RMS midpoint residual at referenceSpacingM, metres
    double referenceSpacingM = 1.0;  // spacing sigmaM was measured at, metres
    double hurst = 0.8;              // amplitude exponent: residual ~ spacing^hurst
    std::uint64_t seed = 0;          // seeds every post's displacement

    /// Displacement amplitude (standard deviation) at post spacing `spacingM`, metres.
    double AmplitudeM(double spacingM) const;
};

/// Everything about a dataset but its tiles: what the pyramid file's header holds.
struct PyramidInfo {
    std::string name;             // dataset name
    GeoExtent geo;                // georeference of the data area; all zero if none
    double dataWidthM = 0.0;      // extent of the source data east-west, metres (<= rootSizeM)
    double dataDepthM = 0.0;      // extent of the source data south-north, metres
    double sourceSpacingM = 0.0;  // the source DEM's finer post spacing, metres
    PyramidGeometry geometry;
    int storedLevels = 0;  // levels 0..storedLevels-1 come from the source
    HeightCoding coding;
    Roughness roughness;
    float minHeightM = 0.0f;  // lowest post of the stored levels, metres
    float maxHeightM = 0.0f;  // highest post of the stored levels, metres
    /// Empty, or the palette of imagery draped over the DEM (`bfv import --texture`): 1 to 256
    /// sRGB colours (terrain::kMaxPaletteColours), which then replace bfv's own land materials;
    /// every tile of a draped level carries its posts' indices into it (TilePosts::materials).
    std::vector<common::Rgb> landColours;
    /// With imagery: levels 0..drapedLevels-1 carry it (storedLevels <= drapedLevels <=
    /// levelCount); the fractal levels among them keep only the imagery's places, their heights
    /// are refined as on any fractal level. 0 without imagery.
    int drapedLevels = 0;

    /// Whether imagery is draped over the DEM (landColours given).
    bool Textured() const { return !landColours.empty(); }
    /// The levels a pyramid file holds tiles of: 0..FileLevels()-1, the stored levels and
    /// with imagery the draped ones.
    int FileLevels() const {
        return Textured() ? std::max(drapedLevels, storedLevels) : storedLevels;
    }
};

/// Number of tiles in levels 0..levelCount-1: (4^levelCount - 1) / 3. levelCount <= 31.
std::uint64_t TilesBelowLevel(int levelCount);

/// The index of `key` among the tiles of levels 0..levelCount-1 in level, then ty, then tx
/// order, or -1 when the key is not one of them.
long long TileIndex(int levelCount, const TileKey& key);

/// One tile's posts as int16 codes (see HeightCoding): kTilePosts x kTilePosts, index
/// j * kTilePosts + i, row j south to north. Local post (i, j) is global post
/// (tx * kTileCells + i - kTileBorder, ty * kTileCells + j - kTileBorder) of the tile's level.
struct TilePosts {
    TileKey key;
    std::vector<std::int16_t> codes;  // kTilePostCount codes
    /// Empty, or (a tile of a draped level of a textured pyramid, PyramidInfo::drapedLevels)
    /// kTilePostCount indices into PyramidInfo::landColours (the palette), in the order of
    /// `codes`: the palette colour nearest the draped imagery's at each post. A pyramid
    /// file's tile of a draped fractal level has materials and no codes.
    std::vector<std::uint8_t> materials = {};
};

/// World coordinate (metres east or north) of local post 0 of tile column or row `t` at
/// post spacing `spacingM`: the tile's first cell edge less its border.
inline double TileOriginM(int t, double spacingM) {
    return (t * kTileCells - kTileBorder) * spacingM;
}

/// Where a world point falls among a tile's posts: cell (i, j), whose south-west post is local
/// post (i, j), and the fractions fx, fy in [0, 1] east and north across it.
struct PostCell {
    int i = 0;
    int j = 0;
    float fx = 0.0f;
    float fy = 0.0f;
};

/// The cell of world point (xM, yM) in a tile whose local post (0, 0) stands at (originXM,
/// originYM), posts 1 / postsPerM metres apart. Points off the tile clamp to its edge cells.
inline PostCell CellAt(double originXM, double originYM, double postsPerM, double xM, double yM) {
    double gx = (xM - originXM) * postsPerM, gy = (yM - originYM) * postsPerM;
    PostCell cell;
    cell.i = std::clamp(static_cast<int>(std::floor(gx)), 0, kTilePosts - 2);
    cell.j = std::clamp(static_cast<int>(std::floor(gy)), 0, kTilePosts - 2);
    cell.fx = static_cast<float>(std::clamp(gx - cell.i, 0.0, 1.0));
    cell.fy = static_cast<float>(std::clamp(gy - cell.j, 0.0, 1.0));
    return cell;
}

/// Bilinear interpolation inside one cell of a per-post field laid out row by row, `rowPosts`
/// posts a row (kTilePosts: a tile's, as TilePosts): `southWest` points at the cell's
/// south-west post, fx and fy in [0, 1] east and north. In float, in the field's own units
/// (metres, or 16-bit codes). The one interpolation of post fields: the ray caster's hits, the
/// tracer's blends, the ground, the shadow field.
template <typename T>
inline float BilinearInCell(const T* southWest, float fx, float fy,
                            std::ptrdiff_t rowPosts = kTilePosts) {
    float p00 = southWest[0], p10 = southWest[1];
    float p01 = southWest[rowPosts], p11 = southWest[rowPosts + 1];
    float south = p00 + (p10 - p00) * fx;
    float north = p01 + (p11 - p01) * fx;
    return south + (north - south) * fy;
}

/// A pyramid's header and the tiles of its stored levels, ordered by level, then ty, then tx.
struct Pyramid {
    PyramidInfo info;
    std::vector<TilePosts> tiles;

    /// Index of `key` in `tiles`, or -1 when the key is not a stored tile.
    int StoredIndex(const TileKey& key) const;
};

/// Levels every ray tracer keeps resident (the low-resolution fallback, sent once at
/// start-up): the stored levels, at most the first kMaxPinnedLevels.
int PinnedLevels(const PyramidInfo& info);
inline constexpr int kMaxPinnedLevels = 5;  // = 341 tiles at most

/// Options of BuildPyramid.
struct PyramidBuildOptions {
    double finestSpacingM = 1.0;  // = 1 // post spacing of the finest level, metres
    std::uint64_t seed = 1;       // = 1 // seed of the fractal refinement
    double roughnessScale = 1.0;  // = 1 // multiplies the measured roughness
};

/// Multipliers of the measured roughness (0: smooth refinement).
inline constexpr common::Range kRoughnessScaleRange = common::Range::Closed(0.0, 100.0);

/// Checks `options`: finestSpacingM within kPostSpacingRangeM, roughnessScale within
/// kRoughnessScaleRange ("finest spacing must be > 0 and <= 100000 m, got 0").
Expected<void> CheckBuildOptions(const PyramidBuildOptions& options);

/// Called with (done, total) units of work while building.
using BuildProgress = std::function<void(long long done, long long total)>;

/// Measures the source's roughness: sigmaM is the RMS of (post - mean of its 4 neighbours) at
/// the source spacing, hurst = log2(sigma at 2x spacing / sigma) clamped to [0.2, 0.85] (a
/// smoothed DEM measures higher than real terrain's roughness).
/// Requires nx, ny >= 2; a DEM too small to measure (under 3 x 3 posts) gets sigma 0.
Roughness MeasureRoughness(const Terrain& source);

/// Builds the pyramid's header and stored levels from `source` (at least 2 x 2 posts, finite
/// heights). Errors: too few posts, a post spacing outside kPostSpacingRangeM, options that
/// CheckBuildOptions refuses, or more than kMaxLevels levels (the error gives the smallest finest
/// spacing this terrain allows).
/// Cost: O(posts of the finest stored level) time, twice over (BuildPyramidFromRows, of which
/// this is the in-memory case); the pyramid is held in memory whole.
Expected<Pyramid> BuildPyramid(const Terrain& source, const PyramidBuildOptions& options,
                               const BuildProgress& progress = {});

/// The tile `child` (one level below `parent`, and inside it) refined fractally from `parent`:
/// even posts keep the parent's height; odd ones take the 4-point subdivision
/// (-1, 9, 9, -1)/16 of the parents along each odd axis (Dyn, Levin and Gregory 1987) plus the
/// hashed displacement. Two border posts are what the 4-point stencil needs at tile edges.
/// Pure: the same inputs give the same codes on every machine.
TilePosts RefineTile(const PyramidInfo& info, const TilePosts& parent, const TileKey& child);

}  // namespace bfv::terrain
