#pragma once

#include <cstdint>
#include <vector>

#include "common/camera.h"
#include "common/palette.h"
#include "raytracer/tile_cache.h"

namespace bfv::raytracer {

/// Tunables of the ray caster.
struct CastSettings {
    double hazeHalfDistanceM = 9000.0;  // = 9 km // slant distance at which haze is 50%
    double lodBias = 1.0;        // = 1 // multiplies each sample's footprint before choosing a mip
    double maxAnisotropy = 4.0;  // = 4 // cap on the footprint's along-track stretch; 1: isotropic
    int finestLevel = -1;        // = -1 (all) // finest pyramid level read; lower renders coarser
    // = 4 // cells whose post spacing spans at most this many pixel footprints are intersected
    // by the secant (see TraceColumn), larger ones exactly; 0: exactly everywhere
    double secantMaxCellPixels = 4.0;
};

/// Per-thread working memory for one column (reused across columns, so the caster does not
/// allocate per column). Rows are indexed top row first; the vectors hold `rows` rows and
/// padding that the caster's vector code reads and writes. `hits` and `coarserHits` add up over
/// columns until the caller resets them. Aligned to a cache line, so that the scratches of
/// threads side by side in an array share none.
struct alignas(64) ColumnScratch {
    int rows = 0;                    // rows of the column traced last
    std::vector<double> slopes;      // ray slope of each row (dz per metre of horizontal distance)
    std::vector<double> hitS;        // horizontal hit distance in metres; < 0: the row sees sky
    std::vector<int> hitLevel;       // pyramid level the hit was found on
    std::vector<float> hitShade;     // Lambert shade interpolated at the hit, in shade codes
    std::vector<float> hitMaterial;  // material coordinate interpolated at the hit, in codes
    std::vector<std::uint16_t> pixels;  // CastColumn: the shaded rows, as common::Pixel bytes
    long long hits = 0;                 // rows that hit terrain
    long long coarserHits = 0;  // of those, rows rendered coarser than their footprint asked
};

/// Intersects every ray of screen column x with the bilinear heightfield, front to back.
/// The column's rays share one vertical plane; rows are marched from the bottom up and each
/// row's search starts at the hit of the row below (column coherence), walking the grid cells
/// the ray's ground track crosses (a 2D DDA). Inside a cell the bilinear surface along the
/// track is a quadratic in distance. Where a cell is large on screen (its post spacing spans
/// more than `settings.secantMaxCellPixels` pixel footprints: close to the eye, or a coarser
/// fallback tile) each hit is that quadratic's exact first root, a SIMD vector of consecutive
/// rows solved at once (Highway, the widest instruction set the CPU has, picked at run time).
/// Where it is small, the surface along the track is the secant between the cell's edges, whose
/// root costs one division: the two differ by a fraction of a pixel (see MarchTileSecant in
/// ray_caster.cpp). The level of detail wanted changes with
/// distance so that a post is about one pixel's footprint (`settings.lodBias` scales it). The
/// footprint is the pixel's longer axis, as a GPU's mip selection takes it: on the ground a
/// pixel of a row looking down at depression d is 1 / sin(d) times longer along the track than
/// across it (at most `settings.maxAnisotropy` times), so rows near the horizon read coarser
/// levels and walk fewer cells instead of aliasing posts they step over. Each
/// stretch of the track reads the finest resident tile at or above that level (the low-resolution
/// fallback), and a tile the ray passes above is skipped whole. Results go to scratch.hitS,
/// hitLevel, hitShade and hitMaterial (the latter two as codes, see kShadeCodesPerUnit and
/// kMaterialCodesPerUnit); hits and
/// coarserHits count the resolution deficit.
void TraceColumn(const TileCache& cache, const common::CameraPose& pose,
                 const common::ScreenSpec& screen, const CastSettings& settings, int x,
                 ColumnScratch& scratch);

/// Traces column x and shades it into `out` (heightPx pixels, top row first): Lambert shade
/// interpolated from the posts, the land material (the material coordinate interpolated from the
/// posts, dithered by screen pixel: common::LandMaterialAt) or water, distance haze, and a
/// sky gradient above the terrain.
void CastColumn(const TileCache& cache, const common::CameraPose& pose,
                const common::ScreenSpec& screen, const CastSettings& settings, int x,
                ColumnScratch& scratch, common::Pixel* out);

}  // namespace bfv::raytracer
