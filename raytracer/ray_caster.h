#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "common/camera.h"
#include "common/decomposition.h"
#include "common/fan.h"
#include "common/pixel.h"
#include "common/sky.h"
#include "raytracer/tile_cache.h"

namespace bfv::raytracer {

/// Tunables of the ray caster.
struct CastSettings {
    double hazeHalfDistanceM = 9000.0;  // = 9 km // slant distance at which haze is 50%
    double lodBias = 1.0;        // = 1 // multiplies each sample's footprint before choosing a mip
    double maxAnisotropy = 4.0;  // = 4 // cap on the footprint's along-track stretch; 1: isotropic
    int finestLevel = -1;        // = -1 (all) // finest pyramid level read; lower renders coarser
    // = 4 // cells whose post spacing spans at most this many pixel footprints are intersected
    // by the secant (see TracePlane), larger ones exactly; 0: exactly everywhere
    double secantMaxCellPixels = 4.0;
};

/// Per-thread working memory for one plane (reused across planes, so the caster does not
/// allocate per plane). Rows are indexed top row first; the vectors hold `rows` rows and
/// padding that the caster's vector code reads and writes. `hits` and `coarserHits` add up over
/// planes until the caller resets them. Aligned to a cache line, so that the scratches of
/// threads side by side in an array share none.
struct alignas(64) ColumnScratch {
    int rows = 0;                 // rows of the plane traced last
    std::vector<double> slopes;   // ray slope of each row (dz per metre of horizontal distance)
    std::vector<double> hitS;     // horizontal hit distance in metres; < 0: the row sees sky
    std::vector<int> hitLevel;    // pyramid level the hit was found on
    std::vector<float> hitShade;  // Lambert shade interpolated at the hit, in shade codes
    /// Red, green and blue of the posts' colours (ResidentTile::colours) interpolated at the
    /// hit, 0..255.
    std::array<std::vector<float>, 3> hitColour;
    /// CastPlane: per row, red, green and blue of the sky (a sky row) or of the water's surface
    /// before haze (a row on water), 0..255; rows on land are not written.
    std::array<std::vector<float>, 3> rowColour;
    std::vector<common::Pixel> pixels;   // CastPlane: the shaded rows
    std::vector<std::uint32_t> targets;  // CastPlane: each gathered row's place in its output
    std::vector<double> gathered;        // CastPlane: the slopes of the rows it gathers (the
                                         //  plane's pixels in part of its columns)
    common::Sky::PlaneSky planeSky;      // CastPlane: the sky along the plane shaded last
    /// Anti-aliasing: the sky of the pixel whose rays it casts (CastRays), kept here so that
    /// its 1.5 KB table is not zeroed per pixel.
    common::Sky::PlaneSky pixelSky;
    long long hits = 0;         // rows that hit terrain
    long long coarserHits = 0;  // of those, rows rendered coarser than their footprint asked
    /// CastPlane: with timeMarch, adds the wall seconds its marches took (finding the rows'
    /// hits, before shading them), until the caller resets it: the resource profile's
    /// view.marchShare.
    bool timeMarch = false;
    double marchS = 0.0;
};

/// What every plane of one frame shares: the pose, the fan of planes (common::FanLayout) and
/// the level of detail's footprint. Built once a frame by FrameRaysOf.
struct FrameRays {
    common::CameraPose pose;
    const common::FanLayout* fan = nullptr;
    double footprintPerM = 0.0;  // a pixel's footprint across the ray per metre of distance
    /// The coarsest level's tile (level 0, pinned, the whole pyramid): the level of detail at
    /// horizontal distance s along a plane takes the along-track stretch of a ray that reaches
    /// this level's surface there (common::AlongTrackStretch), so that it depends on the plane
    /// and the distance alone and not on which rows a march resolves (a plane's pixels split
    /// between tracers get the same hits as when one tracer casts them all).
    const ResidentTile* coarsest = nullptr;
    /// The level ground beyond the data (docs/ray-caster.md, "Beyond the data"): whether there
    /// is one (none beyond draped imagery, whose colours have no neutral one), its height (the
    /// lowest post, or the water level if higher), metres, and its shade (0..1:
    /// TileCache::LevelGroundShade).
    bool groundBeyondData = false;
    double groundBeyondDataM = 0.0;
    double levelGroundShade = 0.0;
    /// The daylight sky (TileCache::DaySky): the sky rows, the haze's colour, water's
    /// reflections.
    const common::Sky* sky = nullptr;
};

/// The FrameRays of `pose` over `fan` (the fan of the pose's pitch) with `settings`' level of
/// detail bias.
FrameRays FrameRaysOf(const TileCache& cache, const common::CameraPose& pose,
                      const common::FanLayout& fan, const CastSettings& settings);

/// Intersects the rays of one vertical plane through the eye (plane `plane` of frame.fan, at the
/// frame's heading) whose slopes are `slopes` (descending: the first is the top of the plane's
/// line on the screen) with the bilinear heightfield, front to back.
/// Rows are marched from the bottom up and each row's search starts at the hit of the row below
/// (the plane's coherence), walking the grid cells the ray's ground track crosses (a 2D DDA).
/// Inside a cell the bilinear surface along the
/// track is a quadratic in distance. Where a cell is large on screen (its post spacing spans
/// more than `settings.secantMaxCellPixels` pixel footprints: close to the eye, or a coarser
/// fallback tile) each hit is that quadratic's exact first root, a SIMD vector of consecutive
/// rows solved at once (Highway, the widest instruction set the CPU has, picked at run time).
/// Where it is small, the surface along the track is the secant between the cell's edges, whose
/// root costs one division: the two differ by a fraction of a pixel (see MarchTileSecant in
/// ray_caster.cpp). The level of detail wanted changes with
/// distance so that a post is about one pixel's footprint (`settings.lodBias` scales it). The
/// footprint is the pixel's longer axis, as a GPU's mip selection takes it: on the ground a
/// pixel looking down at depression d is 1 / sin(d) times longer along the track than
/// across it (at most `settings.maxAnisotropy` times; d from FrameRays::coarsest), so
/// far ground reads coarser levels and walks fewer cells instead of aliasing posts it steps
/// over. Each
/// stretch of the track reads the finest resident tile at or above that level (the low-resolution
/// fallback), and a tile the ray passes above is skipped whole. Results go to scratch.slopes
/// (a copy of `slopes`), hitS, hitLevel, hitShade (as codes, see kShadeCodesPerUnit) and
/// hitColour; hits and coarserHits count the resolution deficit. Every hit depends on its own slope
/// and the plane alone.
void TracePlane(const TileCache& cache, const FrameRays& frame, int plane,
                std::span<const double> slopes, const CastSettings& settings,
                ColumnScratch& scratch);

/// Casts the pixels of plane `plane` of frame.fan that lie in the screen columns `columns`
/// (TracePlane) and shades them into `out`, the columns' pixels column-major (column k of
/// `columns` at out[k * heightPx], top row first): the posts' colours (ResidentTile::colours)
/// times the Lambert shade, both interpolated from the posts at the hit, and the light's tint;
/// water reflecting the sky by the view angle (Fresnel) with the sun's glint; distance haze
/// toward the sky's colour at the horizon in the plane's direction; the daylight sky
/// (common::Sky) above the terrain. With `hitSOut` (laid out as `out`), also each pixel's
/// horizontal hit distance in metres (< 0: sky), which anti-aliasing starts its rays from.
void CastPlane(const TileCache& cache, const FrameRays& frame, int plane,
               const CastSettings& settings, const common::ColumnSet& columns,
               ColumnScratch& scratch, common::Pixel* out, float* hitSOut = nullptr);

/// The sky along the vertical plane through the eye toward `dir` (world, unit length), as the
/// caster takes a plane's, untabulated (Sky::Plane: for reads at a few rows), into `sky`: what
/// CastRays shades its rays in.
void SkyToward(const FrameRays& frame, common::HorizontalDirection dir, common::Sky::PlaneSky& sky);

/// Casts and shades (as CastPlane) rays of any vertical plane through the eye, not one of the
/// fan's: horizontal direction `dir` (world, unit length), slopes `slopes` (descending), into
/// scratch.pixels (row r for slopes[r]). The march starts `sStartM` metres out (horizontal
/// distance): terrain nearer than that is not seen, so the caller must know the rays clear it
/// (anti-aliasing's extra rays start at the nearest hit around their pixel). The sky rows and
/// the haze are `sky`'s (SkyToward `dir`, or toward a direction a fraction of a pixel from it:
/// the rays of a run of edge pixels share the sky through the run's middle, whose set-up then
/// costs once a run instead of once a plane, and whose colours differ from their own by far less
/// than a level). Every result depends on the ray, sStartM, sky and the plane alone.
void CastRays(const TileCache& cache, const FrameRays& frame, common::HorizontalDirection dir,
              std::span<const double> slopes, double sStartM, const common::Sky::PlaneSky& sky,
              const CastSettings& settings, ColumnScratch& scratch);

}  // namespace bfv::raytracer
