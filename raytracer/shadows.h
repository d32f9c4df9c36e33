#pragma once

#include <functional>
#include <span>
#include <vector>

#include "raytracer/post_field.h"

namespace bfv::raytracer {

/// Where the sun is, for cast shadows.
struct Sun {
    double towardX = 0.0, towardY = 1.0;  // unit horizontal direction toward the sun (east, north)
    double tanElevation = 1.0;            // rise of a sunbeam per metre of horizontal distance
};

/// The sun of an azimuth (radians from north, clockwise) and an elevation (radians).
Sun SunAt(double azimuthRad, double elevationRad);

/// Shadow heights of a grid of posts (nx x ny, row-major from the south-west, spacingM apart):
/// for each post, the height in metres of the highest sunbeam that passes over it after
/// grazing the terrain on its way from the sun; a post lower than its shadow height is in cast
/// shadow. One sweep from the sun's side: one post toward the sun along the sun's direction,
/// max(height, shadow height) interpolated between the two nearest posts, less the beam's fall
/// over that step; where that step leaves the grid, seed(i, j), the shadow height arriving from
/// beyond it (the lowest float: none). O(nx * ny); the sun must be above the horizon.
std::vector<float> ShadowHeightsM(std::span<const float> heightsM, int nx, int ny, double spacingM,
                                  const Sun& sun, const std::function<float(int, int)>& seed);

/// Shadow heights over the whole terrain at one level (the finest pinned level: every tracer
/// holds it), so that tiles of any level see the shadows of terrain far outside them.
class ShadowField {
  public:
    /// The field of the terrain whose height at world point (xM, yM) is `heightAtM(xM, yM)`
    /// (metres), on posts `spacingM` apart over the data's extent, `widthM` x `depthM` metres
    /// from the origin (TileCache::CastShadows samples a pinned level, resident everywhere).
    ShadowField(double widthM, double depthM, double spacingM, const Sun& sun,
                const std::function<double(double xM, double yM)>& heightAtM);

    /// Shadow height at world point (xM, yM), bilinear between the field's posts (clamped to
    /// the data), metres.
    float AtM(double xM, double yM) const;
    /// Post spacing of the field, metres.
    double SpacingM() const { return shadowM_.spacingM; }

  private:
    PostField shadowM_;
};

/// Lit share of a post (0: in cast shadow, 1: in sunlight) whose height is `heightM` under
/// shadow height `shadowM`: sunlight fades out over `softM` metres below the shadow height, so
/// that shadow edges are not jagged at the posts.
float LitShare(float heightM, float shadowM, float softM);

}  // namespace bfv::raytracer
