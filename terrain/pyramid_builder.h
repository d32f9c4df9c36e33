#pragma once

// Building a pyramid's stored levels (see tile_pyramid.h) from a DEM read a strip of rows at a
// time, so that memory grows with the DEM's width, not its area: a DEM of 20000 x 20000 posts
// (1.6 GB of heights) builds in tens of MiB plus the tiles of one tile row per level.
//
// Two passes over the source, south to north: the first measures the roughness, the source's
// height range and every stored level's height range (which fixes the height coding); the
// second builds the levels again and hands their tiles, coded, to a TileSink a row of tiles at
// a time. Each level keeps only the rows its next row of tiles and the next row of the level
// above still need. BuildPyramid is this builder over a Terrain in memory, so a DEM gives the
// same pyramid, bit for bit, whether it is held whole or read a strip at a time.

#include <memory>
#include <span>
#include <string>

#include "common/expected.h"
#include "terrain/terrain.h"
#include "terrain/tile_pyramid.h"

namespace bfv::terrain {

/// A DEM's size and placement, without its heights: Terrain's fields but heightsM.
struct SourceGrid {
    std::string name;        // dataset name
    int nx = 0;              // posts per row (east-west)
    int ny = 0;              // rows (south-north)
    double spacingXM = 0.0;  // post spacing east-west, metres
    double spacingYM = 0.0;  // post spacing south-north, metres
    GeoExtent geo;           // georeference; all zero when the source had none
};

/// A DEM read a strip of rows at a time, rows in Terrain's order (row j = 0 is the south edge),
/// heights in metres, finite and within kPostHeightRangeM.
class PostRowSource {
  public:
    virtual ~PostRowSource() = default;
    /// The DEM's size and placement.
    virtual const SourceGrid& Grid() const = 0;
    /// How many rows to read starting at row `j0` (0 <= j0 < ny): the source's strip (e.g.
    /// whole blocks of its file), at least 1 and at most ny - j0.
    virtual int StripRows(int j0) const = 0;
    /// Reads rows j0 .. j0 + count - 1 into `heightsM` (count * nx heights, row j0 first).
    /// Errors: the read failed (a message naming the source and the problem).
    virtual Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) = 0;
};

/// A Terrain held in memory as a PostRowSource (copies its rows out).
class TerrainRows final : public PostRowSource {
  public:
    /// Borrows `terrain`, which must outlive this.
    explicit TerrainRows(const Terrain& terrain);
    /// Takes `terrain` over.
    explicit TerrainRows(Terrain&& terrain);
    const SourceGrid& Grid() const override { return grid_; }
    /// 64 rows (fewer at the north edge).
    int StripRows(int j0) const override;
    Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) override;

  private:
    std::unique_ptr<const Terrain> owned_;  // null when borrowed
    const Terrain& terrain_;
    SourceGrid grid_;
};

/// Where the tiles of a pyramid built from rows go (a file, or a Pyramid in memory).
class TileSink {
  public:
    virtual ~TileSink() = default;
    /// Called once, before any tile, with the finished header.
    virtual Expected<void> Start(const PyramidInfo& info) = 0;
    /// One row of tiles of one stored level: tiles (0, ty) .. (2^L - 1, ty) of level L, in tx
    /// order. Within a level rows come in ty order; the levels' rows come interleaved.
    virtual Expected<void> PutTileRow(std::span<const TilePosts> tiles) = 0;
};

/// What a pyramid built from rows was: its header and the source's height range, metres.
struct PyramidBuild {
    PyramidInfo info;
    HeightRange sourceHeightsM;
};

/// Builds the header and stored tiles of the pyramid of `source` (see the top of this file)
/// and gives them to `sink`; `progress` gets (done, total) posts of level rows computed over
/// both passes. The same checks and errors as BuildPyramid, and any error of the source or the
/// sink (the build stops at the first).
/// Memory: a strip of the source (as its StripRows gives) and a few rows more, about 70 rows of
/// each stored level, and one row of tiles.
Expected<PyramidBuild> BuildPyramidFromRows(PostRowSource& source,
                                            const PyramidBuildOptions& options, TileSink& sink,
                                            const BuildProgress& progress = {});

}  // namespace bfv::terrain
