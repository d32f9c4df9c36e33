#pragma once

// Import of numpy .npz DEMs (a zip of .npy arrays), such as matplotlib's sample
// jacksboro_fault_dem.npz.

#include <string>

#include "common/expected.h"
#include "terrain/terrain.h"

namespace bfv::terrain {

/// Reads the .npz archive at `path` into a Terrain, heights in metres.
///
/// Arrays used: `elevation`, 2-D (rows, columns), C order, dtype <i2, <i4, <f4 or <f8, in
/// metres; and scalars (<f8, shape ()) `xmin`, `xmax`, `ymin`, `ymax` in degrees, optional `dx`,
/// `dy` in degrees (else extent / shape). Convention (matplotlib's sample data): row 0 lies at
/// latitude `ymin` and column 0 at longitude `xmin`, which are the outer edges of the grid; when
/// ymin > ymax row 0 is the north edge, so rows are flipped to Terrain's south-to-north j
/// (likewise columns when xmin > xmax). The extent becomes GeoExtent (sorted), and spacing in
/// metres comes from the equirectangular approximation at the centre latitude
/// (EquirectangularSpacingM).
/// The terrain is named after the file's stem.
///
/// Errors, each "npz '<path>': <problem>": the file cannot be read, is not a zip archive, has no
/// `elevation` array or georeference, a bad .npy header, an unsupported dtype, Fortran order,
/// not 2-D, a data size that does not match the shape, more than 65536 posts per side, or
/// heights that are NaN, infinite or outside kPostHeightRangeM (how many, and the first).
Expected<Terrain> ImportNpz(const std::string& path);

}  // namespace bfv::terrain
