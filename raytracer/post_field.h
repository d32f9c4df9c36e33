#pragma once

#include <functional>
#include <span>
#include <vector>

#include "common/expected.h"

namespace bfv::raytracer {

/// A field of values on a grid of posts over the whole terrain: nx x ny posts, row-major from
/// the south-west, post (i, j) at world point (i spacingM, j spacingM) metres. The whole-terrain
/// fields (ShadowField, SkyViewField, DrainageField) keep theirs in one.
struct PostField {
    int nx = 0, ny = 0;
    double spacingM = 0.0;
    std::vector<float> values;  // nx * ny, index j * nx + i

    /// The value at world point (xM, yM), bilinear between the posts (clamped to the grid), in
    /// the field's own units. Needs at least 2 x 2 posts.
    float AtM(double xM, double yM) const;
};

/// Heights in metres of the terrain whose height at world point (xM, yM) is `heightAtM(xM, yM)`,
/// on posts `spacingM` apart over the data's extent, `widthM` x `depthM` metres from the origin
/// (the last row and column on the data's far edges): ceil(extent / spacing) + 1 posts a side,
/// at least 2 x 2. The whole-terrain fields sample a pinned level of the tile cache (resident
/// everywhere) through it. Errors, naming `what` ("drainage"): a non-positive or non-finite
/// width, depth or spacing; a height that is not finite.
Expected<PostField> SampleHeightsM(const char* what, double widthM, double depthM, double spacingM,
                                   const std::function<double(double xM, double yM)>& heightAtM);

/// The first of a grid's problems as an Error naming `what` ("sky-view factor"), or none: a
/// non-positive or non-finite spacing, an empty grid, a size that is not nx ny, a non-finite
/// height (shared by the whole-terrain fields that take grids of heights).
Expected<void> CheckHeightGrid(const char* what, std::span<const float> heightsM, int nx, int ny,
                               double spacingM);

}  // namespace bfv::raytracer
