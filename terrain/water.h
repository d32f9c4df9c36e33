#pragma once

#include <limits>
#include <optional>

#include "terrain/tile_pyramid.h"

namespace bfv::terrain {

/// A water level that means "no water": nothing is raised, no pixel is water.
inline constexpr double kNoWaterM = -std::numeric_limits<double>::infinity();

/// The level of the water surface a render draws, in metres: `seaLevelM` when given, else
/// 0 m when the terrain's stored levels go below 0 m (a DEM with sea floor, such as
/// bathymetry), otherwise kNoWaterM; always kNoWaterM when `water` is false (--no-water).
/// Terrain below the level is drawn as a flat water surface at it: the ray tracers' tiles and
/// the flight's ground are raised to it (max(height, level)).
double WaterLevelM(std::optional<double> seaLevelM, bool water, const PyramidInfo& info);

}  // namespace bfv::terrain
