#pragma once

#include <vector>

#include "common/flight.h"
#include "terrain/terrain_startup.h"
#include "terrain/tile_pyramid.h"
#include "terrain/water.h"

namespace bfv::terrain {

/// The ground under the flight: heights of the start-up terrain's finest pinned level (every
/// rank holds it from the start), for the display's flight and pilot to follow. It reads the
/// same posts, with the same interpolation, as a ray tracer's cache of that level, so the
/// flight is the same whichever rank computes it.
class PinnedGround {
  public:
    /// Decodes the tiles of the finest pinned level of `startup` (at most 4^4 tiles), raised
    /// to `waterLevelM` (terrain::WaterLevelM) where they lie below it, as the tracers' are.
    explicit PinnedGround(const TerrainStartup& startup, double waterLevelM = kNoWaterM);

    const PyramidInfo& Info() const { return info_; }

    /// Bilinear height in metres at world point (xM, yM) on the finest pinned level; points
    /// off the data clamp to its edge.
    double HeightAtM(double xM, double yM) const;

    /// The ground for flights: HeightAtM averaged over 3 x 3 points `radiusM` apart, so the
    /// eye does not bob over every post. The function refers to this object, which must
    /// outlive it.
    common::GroundFn Smoothed(double radiusM) const;

  private:
    PyramidInfo info_;
    int level_ = 0;
    double spacingM_ = 0.0;
    std::vector<std::vector<float>> heightsM_;  // per tile of level_, index ty * n + tx
};

}  // namespace bfv::terrain
