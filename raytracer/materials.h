#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/pixel.h"

namespace bfv::raytracer {

/// Codes of the per-post material coordinate (0 .. common::kLandMaterials) in 16 bits: steps of
/// 1.2e-4 of a material, far below what a colour level shows.
inline constexpr float kMaterialCodesPerUnit = 65535.0f / common::kLandMaterials;

/// Land-cover patchiness in [0, 1] at world point (xM, yM) metres: two octaves of value noise
/// (lattice values hashed from the lattice point, smoothstep between them) with cells of 400 m
/// and 150 m, so that meadows and woods come in patches of a few hundred metres, as cleared
/// and wooded land does, instead of following the height alone. A pure function of the
/// position: every rank gets the same.
float LandCover(double xM, double yM);

/// LandCover at every post of a posts x posts grid (row-major; post (i, j) at (originXM +
/// i spacingM, originYM + j spacingM) metres), equal to it post by post but hashing each
/// lattice point once where the posts share them.
std::vector<float> LandCoverAt(double originXM, double originYM, double spacingM, int posts);

/// Land cover finer than the DEM's posts, at world point (xM, yM) metres: value noise with
/// 40 m cells scaled to +-0.6 materials (mean 0), which a fractal tile adds to the material
/// coordinate it takes from the DEM (TileCache::TakeSourceMaterials), so that the near ground
/// shows clumps of trees and clearings tens of metres across. A pure function of the position.
float LandCoverDetail(double xM, double yM);

/// LandCoverDetail at every post of a grid, as LandCoverAt: a fractal tile's posts share a few
/// lattice points.
std::vector<float> LandCoverDetailAt(double originXM, double originYM, double spacingM, int posts);

/// Where a post lies on the land ramp (common::kLandMaterials: field, meadow, open forest,
/// forest, dense forest, scrub, bare rock, steep rock), from 0 to kLandMaterials:
/// - `slope` (rise over run) clears flat ground (field and meadow below about 0.15) and bares
///   steep ground (from 0.5 the coordinate moves toward the rocks: bare rock from about 0.8,
///   steep rock at 1 and beyond);
/// - `reliefPosition`, the post's height over the mean of its surroundings divided by their
///   distance (dimensionless: < 0 in valleys, > 0 on ridges, -slope at the bottom of a V),
///   moves valleys toward meadow and ridges toward dense forest and scrub;
/// - `normalisedHeight` (0 = lowest land, 1 = highest post) brings scrub to the top fifth;
/// - `cover` (LandCover) moves it up or down by up to 1.2 materials, in patches.
/// Continuous in every input, so that materials blend (common::LandMaterialAt dithers between
/// the two steps around the coordinate) instead of switching at a height or slope.
float LandMaterialCoordinate(float normalisedHeight, float slope, float reliefPosition,
                             float cover);

/// No snow line: no snow anywhere, and no tree line.
inline constexpr double kNoSnowLineM = std::numeric_limits<double>::infinity();
/// Height of the tree line below the snow line, metres: in the Alps the forest ends about
/// 2000 m up and the snow line lies near 2800-3000 m.
inline constexpr double kTreeLineBelowSnowLineM = 900.0;
/// The colour of snow in sunlight.
inline constexpr common::Rgb kSnowColour{236, 240, 246};

/// A sensible snow line for terrain at latitude `latitudeDeg` (degrees, either hemisphere),
/// metres: about 5200 m within 20 degrees of the equator, falling 100 m per degree beyond (2700 m
/// at 45 degrees, as in the Alps; 1200 m at 60, as in southern Norway), not below 0. A rough fit
/// of the climatic snow line's fall with latitude (it also depends on how wet the climate is).
double DefaultSnowLineM(double latitudeDeg);

/// Where the land's height puts a post above the trees and under snow: its `heightM` against the
/// snow line `snowLineM` (kNoSnowLineM: none) and its `slope` (rise over run).
struct HeightZone {
    /// 0 below the tree line (kTreeLineBelowSnowLineM under the snow line), rising smoothly to 1
    /// 300 m above it: forest gives way to scrub and bare rock.
    float alpine = 0.0f;
    /// 0 below the snow line, rising smoothly to 1 over 150 m above it; slopes steeper than 0.7
    /// hold less, and cliffs (slope 1.2 and more) none.
    float snow = 0.0f;
};
HeightZone HeightZoneOf(float heightM, float slope, double snowLineM);

/// The colour of a post of land at place `coordinate` on the land ramp (LandMaterialCoordinate)
/// in height zone `zone`: above the tree line the place moves toward bare rock (ramp step 6) by
/// zone.alpine, then the ramp's colour (common::RampColour) blends toward kSnowColour by
/// zone.snow.
common::Rgb LandColour(float coordinate, const HeightZone& zone);

/// Post spacing from which field parcels show (GroundDetail), metres: their edges (hedges
/// and tracks a few metres wide) need posts about this close.
inline constexpr double kParcelSpacingM = 8.0;
/// Post spacing from which tree crowns show (GroundDetail), metres: a crown is 4-7 m
/// across.
inline constexpr double kCrownSpacingM = 2.0;

/// The ground's detail on a tile of posts `spacingM` apart: the colour of land at a world point
/// of colour `land` (LandColour) at place `coordinate` on the land ramp, lit by a sun toward
/// (sunTowardX, sunTowardY) (unit, horizontal) at elevation tan `sunTanElevation`: the detail a
/// person recognises from a few hundred metres up, generated from the land class and the
/// position alone (the same on every rank):
/// - on field and meadow (places below about 1.5), where posts are at most kParcelSpacingM
///   apart: parcels 40-130 m wide in strips of a 128 m grid, each tinted as a crop, pasture or
///   ploughed soil, with darker hedges and tracks along their edges;
/// - on forest (places about 1.5 to 5.5), where posts are at most kCrownSpacingM apart: tree
///   crowns on a jittered 6 m grid (denser toward dense forest), each lit as a dome by the sun,
///   casting a shadow away from it, over a darker forest floor.
/// Coarser posts keep `land`, which these patterns average to about.
///
/// Built once a tile: it hashes the crowns of the 6 m cells that points of the rectangle
/// [minXM, maxXM] x [minYM, maxYM] and their shadows reach (each cell once instead of up to
/// twelve times a post), and the sun's terms. Colour takes any point; outside the rectangle it
/// hashes the cells it needs, with the same result.
class GroundDetail {
  public:
    GroundDetail(double minXM, double minYM, double maxXM, double maxYM, double spacingM,
                 double sunTowardX, double sunTowardY, double sunTanElevation);

    /// The colour of land at world point (xM, yM) metres (see the class).
    common::Rgb Colour(double xM, double yM, float coordinate, common::Rgb land) const;

  private:
    // A 6 m cell's crown: the cell has one where `presence` is below the forest's density;
    // centre (cxM, cyM) and radius in metres.
    struct Crown {
        double presence, cxM, cyM, radiusM;
    };

    // The crown of cell (a, b), from the table where it holds the cell, else HashedCrown.
    Crown CrownOf(std::int64_t a, std::int64_t b) const;
    // The crown of cell (a, b) from its hash.
    static Crown HashedCrown(std::int64_t a, std::int64_t b);
    // The nearest crown to (x, y) relative to its radius (see CrownLight in the source).
    double NearestCrown(double x, double y, double reachM, float density, double& dxOut,
                        double& dyOut, double& radiusOut) const;
    // The forest's brightness at (xM, yM): a crown lit as a dome, its shadow, or the floor.
    float CrownLight(double xM, double yM, float density) const;

    double spacingM_;
    double sunX_, sunY_, sinE_, cosE_, shadowReachM_;
    std::int64_t aLo_ = 0, bLo_ = 0;
    int columns_ = 0, rows_ = 0;
    std::vector<Crown> crowns_;  // rows_ x columns_ from cell (aLo_, bLo_), row-major
};

}  // namespace bfv::raytracer
