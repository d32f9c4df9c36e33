#pragma once

// Imagery draped over a DEM (`bfv import --texture`): an RGB raster becomes a land ramp of
// common::kLandMaterials colours for the dataset and, at every post of the draped levels (the
// stored ones and the fractal ones down to the imagery's pixel size), a place on that ramp
// (TilePosts::materials), so that pixels still travel as a palette index and an intensity, as
// in the source paper, and the ray caster shades and dithers draped terrain exactly as it does
// bfv's own land materials.
//
// The ramp is the imagery's colours clustered into kLandMaterials (k-means) and put in the order
// that makes neighbours on the ramp most alike (the shortest path through the clusters), so a
// post whose colour lies between two clusters sits between them on the ramp and its pixels
// dither between the two; and where the caster interpolates between posts of unlike colours the
// colours it passes on the way are the most similar ones in between.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/pixel.h"
#include "terrain/pyramid_builder.h"

namespace bfv::terrain {

/// The land ramp of `samples` (colours of the imagery over the DEM's area; at least one):
/// k-means with kLandMaterials clusters started from the samples' luminance octiles (a cluster
/// left empty restarts at the sample farthest from its centre), 30 rounds, then the clusters in
/// the order of the shortest path through them (Euclidean in RGB, every order tried), darker
/// end first. Deterministic: the same samples give the same ramp.
common::LandColours BuildLandRamp(std::span<const common::Rgb> samples);

/// The place of `colour` on `ramp`, in [0, kLandMaterials - 1]: k + t where the nearest point of
/// the ramp's polyline through RGB lies at t in [0, 1] along the segment from ramp[k] to
/// ramp[k + 1]. A ramp colour itself is its index.
float RampCoordinate(common::Rgb colour, const common::LandColours& ramp);

/// TilePosts::materials code of ramp coordinate `coordinate` (kTextureCodesPerMaterial per
/// material, rounded, clamped to 0..255).
std::uint8_t MaterialCode(float coordinate);

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

/// Cells per side of the grid over the whole data area whose colours BuildLandRamp clusters.
inline constexpr int kRampSampleSide = 256;

/// The levels imagery with pixels `pixelM` metres across should drape in a pyramid `info`
/// (PyramidInfo::drapedLevels): down to the finest level whose post spacing is at least the
/// pixel's size, and at least the stored levels (imagery coarser than the DEM still colours
/// every stored post).
int DrapedLevelsFor(const PyramidInfo& info, double pixelM);

/// A TileSink that drapes `imagery` over the tiles it passes to `sink`: Start adds the land ramp
/// (BuildLandRamp of kRampSampleSide x kRampSampleSide cells over the data area) and the draped
/// levels (DrapedLevelsFor the imagery's coarser pixel size) to the header, PutTileRow gives
/// every tile's posts their ramp coordinates (the mean colour of the post's cell, one post
/// spacing across and centred on it), and PutDrapedLevels adds the tiles of the draped fractal
/// levels (materials only). `imagery` and `sink` must outlive this. Errors: the imagery's and
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
    /// The header Start passed on: the one it was given with the land ramp added.
    const PyramidInfo& Info() const { return info_; }

  private:
    /// Gives `tile` the ramp coordinates of its posts.
    Expected<void> Drape(TilePosts& tile);
    /// MaterialCode(RampCoordinate(colour, ramp_)), computed once per colour: a large image's
    /// posts repeat their colours many times over.
    std::uint8_t CodeOf(common::Rgb colour);

    /// codes_ entry of a colour not yet placed: no ramp coordinate (at most kLandMaterials -
    /// 1) codes to it.
    static constexpr std::uint8_t kNotYet = 255;
    static_assert((common::kLandMaterials - 1) * kTextureCodesPerMaterial < kNotYet - 0.5f);

    Imagery& imagery_;
    TileSink& sink_;
    BuildProgress progress_;
    PyramidInfo info_;
    common::LandColours ramp_{};
    std::vector<common::Rgb> colours_;  // scratch: one tile's post colours
    std::vector<std::uint8_t> codes_;   // CodeOf's, by 0xRRGGBB (16 MiB, made at first use)
};

}  // namespace bfv::terrain
