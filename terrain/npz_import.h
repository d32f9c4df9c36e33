#pragma once

// Import of numpy .npz DEMs (a zip of .npy arrays), such as matplotlib's sample
// jacksboro_fault_dem.npz and topobathy.npz, and of bare .npy height arrays.

#include <array>
#include <string>

#include "common/expected.h"
#include "terrain/terrain.h"

namespace bfv::terrain {

/// Choices for ImportNpz.
struct NpzImportOptions {
    std::string array;  // the elevation array's name (".npy" optional); "" = detect it
};

/// Reads the .npz archive at `path` into a Terrain, heights in metres.
///
/// The elevation array: `options.array` if given, else the first of kElevationArrayNames the
/// archive has, else its only 2-D array (of a supported dtype). It must be 2-D (rows, columns),
/// C order, dtype <i2, <i4, <f4 or <f8, in metres.
///
/// The georeference, in degrees, either
/// - scalars (<f8, shape ()) `xmin`, `xmax`, `ymin`, `ymax`, optional `dx`, `dy` (else extent /
///   shape). Convention (matplotlib's sample data): row 0 lies at latitude `ymin` and column 0
///   at longitude `xmin`, which are the outer edges of the grid; when ymin > ymax row 0 is the
///   north edge, so rows are flipped to Terrain's south-to-north j (likewise columns when
///   xmin > xmax); or, when there are none of these scalars,
/// - 1-D coordinate arrays of the posts' centres, `longitude` and `latitude` (else `lon` and
///   `lat`, else `x` and `y`), one value per column and per row, strictly monotonic (either
///   way: decreasing latitudes mean row 0 is north, and rows are flipped) and evenly spaced to
///   within 0.01 of a step. The extent reaches half a step beyond the first and last centres.
///   Longitudes all above 180 (0..360 convention) are moved to -180..180. Latitudes evenly
///   spaced in Mercator y instead (as in topobathy.npz) are accepted: the rows are resampled,
///   by linear interpolation, onto as many rows evenly spaced in latitude between the same
///   first and last.
/// The extent becomes GeoExtent (sorted), and spacing in metres comes from the equirectangular
/// approximation at the centre latitude (EquirectangularSpacingM).
/// The terrain is named after the file's stem.
///
/// Errors, each "npz '<path>': <problem>": the file cannot be read, is not a zip archive, has no
/// array `options.array` or, without it, no elevation array found (both list the arrays
/// present), no georeference or only part of one, coordinate arrays of the wrong shape, not
/// finite, not monotonic or not evenly spaced (naming the array and the value), a bad .npy
/// header, an unsupported dtype, Fortran order, not 2-D, a data size that does not match the
/// shape, more than 65536 posts per side, heights that are infinite or outside
/// kPostHeightRangeM (how many, and the first), or too few valid ones to fill the rest from.
/// NaN heights are nodata, filled from the valid posts around them as ImportGdal fills a
/// raster's (FillNanPosts).
Expected<Terrain> ImportNpz(const std::string& path, const NpzImportOptions& options = {});

/// Reads the bare .npy array at `path` (2-D, as ImportNpz's elevation array, heights in
/// metres) into a Terrain with both post spacings `spacingM` metres and no georeference
/// (GeoExtent all zero). Row 0 is the north edge, as in an image. Named after the file's stem.
///
/// Errors, each "npy '<path>': <problem>": `spacingM` outside kPostSpacingRangeM, and those of
/// ImportNpz's elevation array.
Expected<Terrain> ImportNpy(const std::string& path, double spacingM);

}  // namespace bfv::terrain
