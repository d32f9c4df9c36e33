#pragma once

// Degrees to metres for DEMs on a lon/lat grid: the local equirectangular approximation.

#include <cmath>
#include <numbers>

namespace bfv::terrain {

/// Metres per degree of latitude used to turn degrees into metres: 111320 m, the common round
/// figure (a degree of the equator, 40075 km / 360). The true length of a degree of latitude
/// runs from 110574 m at the equator to 111694 m at the poles (mean 111132 m), so this is
/// within 0.7% everywhere; the renderer needs plausible proportions, not survey accuracy.
inline constexpr double metresPerDegreeLat = 111320.0;

/// Post spacing in metres, east-west and south-north.
struct SpacingM {
    double xM = 0.0;  // east-west
    double yM = 0.0;  // south-north
};

/// Spacing in metres of a grid whose posts are `dxDeg` degrees of longitude and `dyDeg` degrees
/// of latitude apart, by the equirectangular approximation at latitude `centreLatDeg` (use the
/// grid's centre): yM = dyDeg * metresPerDegreeLat, xM = dxDeg * metresPerDegreeLat *
/// cos(centreLatDeg). Good to well under 1% across a tile of a few degrees.
inline SpacingM EquirectangularSpacingM(double dxDeg, double dyDeg, double centreLatDeg) {
    double centreLatRad = centreLatDeg * std::numbers::pi / 180.0;
    return {dxDeg * metresPerDegreeLat * std::cos(centreLatRad), dyDeg * metresPerDegreeLat};
}

}  // namespace bfv::terrain
