#pragma once

#include <functional>
#include <span>
#include <vector>

#include "common/expected.h"
#include "raytracer/post_field.h"

namespace bfv::raytracer {

/// How far and in how many directions the sky-view factor looks for the horizon.
struct SkyViewOptions {
    int azimuths = 16;       // = 16 // directions scanned, evenly spaced from north
    double radiusM = 400.0;  // = 400 // how far each direction looks for the horizon, metres
};

/// Sky-view factor of every post of a grid of heights (nx x ny, row-major from the south-west,
/// spacingM apart): the share of the sky hemisphere a post sees, in [0, 1] (1: flat open
/// ground; valley floors, pits and foot slopes less). Horizon-based, eq. 1 of "Sky-View Factor
/// as a Relief Visualization Technique" (Zaksek, Ostir and Kokalj 2011):
/// SVF = 1 - (1/n) sum_i sin(gamma_i), gamma_i the elevation angle of the horizon in direction
/// i (at least 0: terrain below a post's level hides no sky), found by stepping out to
/// `radiusM` or the grid's edge, heights bilinear between the posts: one post spacing apart for
/// the first 8 steps, then an eighth of the distance apart (about the same angle seen from the
/// post). O(nx ny azimuths min(radiusM / spacingM, 8 + 8 ln(radiusM / 8 spacingM))). Errors: a
/// non-positive spacing, radius or azimuth count, an empty grid, a size that does not match nx ny,
/// a non-finite height.
Expected<std::vector<float>> SkyViewFactors(std::span<const float> heightsM, int nx, int ny,
                                            double spacingM, const SkyViewOptions& options = {});

/// The sky-view factor over the whole terrain at one post spacing (like ShadowField: a pinned
/// level, resident everywhere, or any spacing), for relief shading that makes valleys read from
/// far away. Computed once at start-up.
class SkyViewField {
  public:
    /// The field of the terrain whose height at world point (xM, yM) is `heightAtM(xM, yM)`
    /// (metres), on posts `spacingM` apart over the data's extent, `widthM` x `depthM` metres
    /// from the origin. Errors: those of SkyViewFactors and SampleHeightsM.
    static Expected<SkyViewField> Build(
        double widthM, double depthM, double spacingM,
        const std::function<double(double xM, double yM)>& heightAtM,
        const SkyViewOptions& options = {});

    /// Sky-view factor at world point (xM, yM), in [0, 1], bilinear between the field's posts
    /// (clamped to the data).
    float AtM(double xM, double yM) const { return factors_.AtM(xM, yM); }
    /// Post spacing of the field, metres.
    double SpacingM() const { return factors_.spacingM; }

  private:
    explicit SkyViewField(PostField factors) : factors_(std::move(factors)) {}
    PostField factors_;
};

}  // namespace bfv::raytracer
