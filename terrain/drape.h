#pragma once

// Imagery draped over a DEM (`bfv import --texture`): an RGB raster becomes a palette of up to
// kMaxPaletteColours colours for the dataset (BuildPalette, in CIELAB, image_palette.h) and, at
// every post of the draped levels (the stored ones and the fractal ones down to the imagery's
// pixel size), the index of the palette colour nearest the imagery's there
// (TilePosts::materials), so that a tile still carries a byte a post and the ray caster looks
// each post's colour up in the palette and interpolates colours between posts.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/pixel.h"
#include "terrain/image_palette.h"
#include "terrain/pyramid_builder.h"

namespace bfv::terrain {

/// An RGB raster placed over a DEM's data area, sampled in the area's unit square: u from 0 at
/// the west edge to 1 at the east, v from 0 at the south edge to 1 at the north.
class Imagery {
  public:
    virtual ~Imagery() = default;
    /// The mean colour of each cell of a `columns` x `rows` grid of cells du x dv whose
    /// south-west corner is (u0, v0), row-major from the south row (`out` gets columns * rows
    /// colours). A cell whose centre lies off the imagery takes the colour of the nearest cell
    /// on it (the DEM's data area padded out to a whole tile shows the edge colours). Errors: a
    /// read failed (naming the raster).
    virtual Expected<void> Sample(double u0, double v0, double du, double dv, int columns, int rows,
                                  std::vector<common::Rgb>& out) = 0;
    /// How the imagery lies over the DEM, in words for the import's summary (e.g. "placed by
    /// its georeference").
    virtual std::string Placement() const = 0;
    /// The imagery's pixels across the DEM's data area: east-west, south-north.
    virtual std::array<double, 2> PixelsAcross() const = 0;
};

/// The samples BuildPalette is given: kPaletteBlocks x kPaletteBlocks blocks of kPaletteBlockCells
/// x kPaletteBlockCells cells as large as the finest draped level's posts (or 1 / (kPaletteBlocks
/// x kPaletteBlockCells) of the data area, if smaller), each block at a pseudo-random place
/// (fixed seed) in its share of the data area so that no period of the image aliases with them;
/// and the means of kPaletteCoarseSide x kPaletteCoarseSide cells over the whole area, the
/// colours of the coarse levels' posts.
inline constexpr int kPaletteBlocks = 32;
inline constexpr int kPaletteBlockCells = 16;
inline constexpr int kPaletteCoarseSide = 128;

/// The colours of `imagery` that BuildPalette reproduces for a pyramid `info` draped down to
/// level info.drapedLevels - 1 (>= 1 levels; see kPaletteBlocks). Errors: the imagery's.
Expected<std::vector<common::Rgb>> PaletteSamples(Imagery& imagery, const PyramidInfo& info);

/// The levels imagery with pixels `pixelM` metres across should drape in a pyramid `info`
/// (PyramidInfo::drapedLevels): down to the finest level whose post spacing is at least the
/// pixel's size, and at least the stored levels (imagery coarser than the DEM still colours
/// every stored post).
int DrapedLevelsFor(const PyramidInfo& info, double pixelM);

/// A TileSink that drapes `imagery` over the tiles it passes to `sink`: Start adds the draped
/// levels (DrapedLevelsFor the imagery's coarser pixel size) and the palette (BuildPalette of
/// PaletteSamples) to the header (PyramidInfo::landColours), PutTileRow gives every tile's posts
/// the index of the palette colour nearest the mean colour of the post's cell (one post spacing
/// across and centred on it), and PutDrapedLevels adds the tiles of the draped fractal levels
/// (materials only). `imagery` and `sink` must outlive this. Errors: the imagery's and
/// the sink's.
class DrapeSink final : public TileSink {
  public:
    /// `progress` gets (tiles done, tiles) as PutDrapedLevels goes.
    DrapeSink(Imagery& imagery, TileSink& sink, BuildProgress progress = {})
        : imagery_(imagery), sink_(sink), progress_(std::move(progress)) {}
    Expected<void> Start(const PyramidInfo& info) override;
    Expected<void> PutTileRow(std::span<const TilePosts> tiles) override;
    /// After the stored levels' tiles: the tiles of the draped fractal levels (storedLevels ..
    /// drapedLevels - 1), a row at a time, materials only.
    Expected<void> PutDrapedLevels();
    /// The header Start passed on: the one it was given with the palette and draped levels.
    const PyramidInfo& Info() const { return info_; }

  private:
    /// Gives `tile` the palette indices of its posts.
    Expected<void> Drape(TilePosts& tile);

    Imagery& imagery_;
    TileSink& sink_;
    BuildProgress progress_;
    PyramidInfo info_;
    std::optional<PaletteIndex> palette_;  // set by Start
    std::vector<common::Rgb> colours_;     // scratch: one tile's post colours
};

}  // namespace bfv::terrain
