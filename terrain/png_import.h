#pragma once

// Import of 16-bit greyscale PNG heightmaps (as game engines and terrain editors export them).

#include <string>

#include "common/expected.h"
#include "terrain/terrain.h"

namespace bfv::terrain {

/// Metres per unit of a PNG heightmap's 16-bit value: positive (0 would flatten the terrain,
/// a negative scale turn it upside down).
inline constexpr common::Range kHeightScaleRangeM = common::Range::AboveUpTo(0.0, 10.0, "m");

/// What a PNG heightmap does not carry: where its posts are and what its values mean.
struct PngHeightmapScale {
    double spacingM = 0.0;       // post spacing, east-west and south-north, metres; must be > 0
    double heightScaleM = 1.0;   // = 1.0 // metres per unit of the 16-bit value
    double heightOffsetM = 0.0;  // = 0.0 // height of value 0, metres
};

/// Most posts a PNG heightmap may hold (2^28, e.g. 16384 x 16384): stb_image decodes it whole
/// and sizes its buffers in int. Larger DEMs come in as GeoTIFF (GDAL).
inline constexpr long long kMaxPngPosts = 1LL << 28;

/// Reads the 16-bit greyscale PNG at `path` (stb_image) into a Terrain: post (i, j) is the
/// image's pixel at column i and row ny - 1 - j (the image's top row is the north edge), with
/// height heightOffsetM + value * heightScaleM metres for the pixel's value 0..65535. Both
/// spacings are `scale.spacingM`; GeoExtent stays all zero. Named after the file's stem.
///
/// Errors, each "png '<path>': <problem>": the file cannot be read or is not a PNG, is 8-bit
/// ("is 8-bit; a heightmap needs 16 bits"), has colour or alpha channels, has fewer than 2 or
/// more than 65536 pixels per side or more than kMaxPngPosts in all, `scale` is outside its ranges
/// (spacing kPostSpacingRangeM, height scale kHeightScaleRangeM, offset kPostHeightRangeM), or
/// heights that come out outside kPostHeightRangeM (how many, and the first pixel, row 0 at the
/// top).
Expected<Terrain> ImportPng16(const std::string& path, const PngHeightmapScale& scale);

}  // namespace bfv::terrain
