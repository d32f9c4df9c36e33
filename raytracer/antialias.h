#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/camera.h"
#include "common/decomposition.h"
#include "common/fan.h"
#include "common/messages.h"
#include "common/pixel.h"
#include "raytracer/ray_caster.h"

namespace bfv::raytracer {

// Anti-aliasing where it matters, and the supersampled reference it is measured against
// (docs/ray-caster.md, "Anti-aliasing"). Both keep frames identical for every decomposition:
// a pixel's value depends on its own rays and those of its four neighbours, each cast the same
// way by whichever caster needs it.

/// The extra rays of an edge pixel, box filtered: kAntialiasPlanes vertical planes through it,
/// at the centres of as many equal columns of the pixel, with kAntialiasRows rays each, at the
/// centres of as many rows (the rows of `--supersample 4`'s sub-pixels). A plane's walk is what
/// costs, not its rays, and the terrain's edges (ridges, the horizon, shores) run closer to
/// horizontal than vertical: sampled finer down than across, at half the cost of 4 x 4 rays
/// (docs/benchmarking.md, "Anti-aliasing").
inline constexpr int kAntialiasPlanes = 2;
inline constexpr int kAntialiasRows = 4;

/// A pixel is an edge when it and a neighbour (left, right, above, below) disagree: one sees
/// sky and the other ground, or their hits lie more than kEdgeDepthRatio apart in distance (a
/// ridge against what lies behind it), or their colours differ by more than
/// kEdgeContrastLevels, summed over red, green and blue (a boundary between materials; below it
/// the stair steps do not show), or their blue-yellow opponents 2B - R - G by more than
/// kEdgeBlueYellowLevels (a shoreline: water beside woods is as dark as they are, but bluer;
/// tree crowns beside their shadows differ in brightness, not in hue, and are left alone).
inline constexpr int kEdgeContrastLevels = 128;
inline constexpr int kEdgeBlueYellowLevels = 96;
inline constexpr float kEdgeDepthRatio = 1.25f;

/// A caster's cast pixels as the anti-aliasing pass reads them: per screen column (widthPx
/// entries), its heightPx pixels top row first and their horizontal hit distances (metres,
/// < 0: sky), or null where the column was not cast. Refers to the caster's buffers.
struct CastColumns {
    int heightPx = 0;
    std::vector<const common::Pixel*> pixels;
    std::vector<const float*> hitS;
};

/// The pixels of `columns` (each at most widthPx) that disagree with a neighbour on the screen
/// (kEdgeContrastLevels, kEdgeBlueYellowLevels, kEdgeDepthRatio), as column-major indices x *
/// heightPx + y in increasing order, into `edges`. Reads the columns of `columns` and their left
/// and right neighbours in `cast` (which must be there, on the screen).
void FindEdgePixels(const CastColumns& cast, const common::ColumnSet& columns,
                    std::vector<std::uint32_t>& edges);

/// The anti-aliased colour of each pixel of `edges` (as FindEdgePixels gives them), into
/// `colours`: the box-filtered mean of kAntialiasPlanes x kAntialiasRows rays through the pixel.
/// A run of edge pixels down a column (at most 8) is sampled together: each grid column of the
/// run's rays in one vertical plane (common::PlaneRowsAt) where its screen line drifts sideways
/// by at most a grid column's width across the run, else pixel by pixel, else ray by ray
/// (common::PinholeRayAt); all in the sky and haze of the run's middle (CastRays), and marched
/// from the nearest hit among the run's pixels and their neighbours in `cast` (a ray through a
/// pixel meets the ground beyond it unless a feature narrower than a pixel pokes up between their
/// centres, which it then misses, as the pixel's own ray did). A pixel whose neighbourhood is all
/// sky keeps its colour. `cast` holds the pixels' columns and their neighbours.
void AntialiasPixels(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                     const CastColumns& cast, std::span<const std::uint32_t> edges,
                     ColumnScratch& scratch, std::vector<common::Pixel>& colours);

/// Edge pixels and their anti-aliased colours (AntialiasEdges), reused from frame to frame.
struct EdgeColours {
    std::vector<std::uint32_t> edges;    // FindEdgePixels
    std::vector<common::Pixel> colours;  // AntialiasPixels, one per edge
};

/// FindEdgePixels of `columns`, then AntialiasPixels of them, into `out`. The caller puts the
/// colours in place once every caster has read `cast` (a pixel's neighbours are read as cast).
void AntialiasEdges(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                    const CastColumns& cast, const common::ColumnSet& columns,
                    ColumnScratch& scratch, EdgeColours& out);

/// AntialiasColumns' working memory, kept from frame to frame: the neighbouring columns'
/// pixels and hits, what the pass reads, and the edges it found.
struct AntialiasBuffers {
    std::vector<std::vector<common::Pixel>> neighbourPixels;
    std::vector<std::vector<float>> neighbourHitS;
    CastColumns cast;
    EdgeColours edges;
};

/// Anti-aliases a caster's columns `columns` of a frame cast one ray a pixel (frame.fan's) into
/// `pixels` and `hitS` (laid out as CastPlane lays out `columns`, the hits from its hitSOut):
/// casts the columns next to them that other casters own (common::NeighbourColumns) as those do,
/// finds the edge pixels of `columns` and puts their colours in `pixels`. A tracer's slice gets the
/// pixels the whole screen's pass gives it, for every decomposition.
void AntialiasColumns(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                      const common::ColumnSet& columns, common::Pixel* pixels, const float* hitS,
                      ColumnScratch& scratch, AntialiasBuffers& buffers);

/// The screen `screen` with `samplesPerSide` times its pixels each way: what --supersample
/// casts and box filters (its fan is BuildFanLayout of this screen).
common::ScreenSpec SupersampledScreen(const common::ScreenSpec& screen, int samplesPerSide);

/// The reference render (--supersample S): the pixels of `columns` (screen `screen`, laid out
/// as CastPlane lays them out in `out`) each the mean of the S x S pixels of the S-times larger
/// screen over it (`fineFan`: BuildFanLayout of SupersampledScreen at the pose's pitch), cast at
/// the level of detail of the pixel, not of the finer one (`settings.lodBias` times S), per
/// channel rounded to the nearest level. `finePixels` is working memory. Returns the terrain
/// samples (fine pixels that hit terrain) and those rendered coarser than asked for.
common::SampleCounts CastSupersampled(const TileCache& cache, const common::CameraPose& pose,
                                      const CastSettings& settings, int samplesPerSide,
                                      const common::FanLayout& fineFan,
                                      const common::ColumnSet& columns, ColumnScratch& scratch,
                                      std::vector<common::Pixel>& finePixels, common::Pixel* out);

}  // namespace bfv::raytracer
