#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/ranges.h"

namespace bfv::terrain {

/// Geographic bounds of a dataset's post grid in degrees (WGS84): the outer edges of the
/// area the posts cover, not the post centres.
struct GeoExtent {
    double lonMinDeg = 0.0;  // west edge
    double lonMaxDeg = 0.0;  // east edge
    double latMinDeg = 0.0;  // south edge
    double latMaxDeg = 0.0;  // north edge
};

/// Names taken for a DEM's elevation array or variable in a file that holds several (an .npz
/// archive, a netCDF file), in the order they are looked for.
inline constexpr std::array<const char*, 7> kElevationArrayNames = {
    "elevation", "topo", "z", "height", "dem", "heights", "elev"};

/// Most posts per side a DEM may have on import.
inline constexpr int kMaxPostsPerSide = 65536;

/// Heights a DEM's posts may have, metres: Earth's span (-11 km to 9 km) and more (Mars, made
/// up worlds), short of absurd values such as an undeclared nodata of -3.4e38.
inline constexpr common::Range kPostHeightRangeM = common::Range::Closed(-1e5, 1e5, "m");

/// Post spacings, metres (a DEM's, a PNG heightmap's --spacing, a pyramid's finest level).
inline constexpr common::Range kPostSpacingRangeM = common::Range::AboveUpTo(0.0, 1e5, "m");

/// Whether a NaN height is a nodata post (GIS rasters, which fill them) or an error.
enum class NanHeights { Refused, Nodata };

/// Checks the heights of a raster as its file stores them (row-major, `columns` per row):
/// every one within kPostHeightRangeM (NaN allowed when `nan` is Nodata). Errors count the
/// bad posts and give the first: "2 posts are not finite heights >= -100000 and <= 100000 m;
/// the first is inf at row 1, column 3" (with Nodata: "not nodata or heights ...").
Expected<void> CheckPostHeights(std::span<const float> heightsM, int columns, NanHeights nan);

/// CheckPostHeights over a raster fed a strip of rows at a time (top row first), for rasters
/// read without holding them whole: the same rule and the same error, counted over every strip.
class PostHeightCheck {
  public:
    PostHeightCheck(int columns, NanHeights nan) : columns_(columns), nan_(nan) {}
    /// Checks the next rows of the raster (whole rows, `columns` heights each, metres).
    void Add(std::span<const float> heightsM);
    /// The verdict on every row added so far (see CheckPostHeights).
    Expected<void> Result() const;

  private:
    int columns_;
    NanHeights nan_;
    std::size_t seen_ = 0;   // heights added
    std::size_t bad_ = 0;    // bad heights among them
    std::size_t first_ = 0;  // index of the first bad one
    float firstValue_ = 0.0f;
};

/// A regular grid of terrain posts in a local east/north/up frame, in metres.
/// Post (i, j) stands at x = (i + 0.5) * spacingXM east and y = (j + 0.5) * spacingYM north of
/// the dataset's south-west corner; i runs 0..nx-1 west to east, j runs 0..ny-1 south to north.
struct Terrain {
    std::string name;             // = "" // dataset name, e.g. "jacksboro_fault"
    int nx = 0;                   // posts per row (east-west)
    int ny = 0;                   // rows (south-north)
    double spacingXM = 0.0;       // post spacing east-west, metres
    double spacingYM = 0.0;       // post spacing south-north, metres
    GeoExtent geo;                // georeference; all zero when the source had none
    std::vector<float> heightsM;  // nx*ny heights in metres, index j*nx + i

    /// Height of post (i, j) in metres; i in [0, nx), j in [0, ny).
    float HeightAt(int i, int j) const { return heightsM[static_cast<std::size_t>(j) * nx + i]; }
    /// Size of the covered area in metres (east-west, south-north).
    double WidthM() const { return nx * spacingXM; }
    double DepthM() const { return ny * spacingYM; }
};

/// Lowest and highest post of a terrain, in metres. Requires a non-empty terrain.
struct HeightRange {
    float minM = 0.0f;
    float maxM = 0.0f;
};
HeightRange ComputeHeightRange(const Terrain& terrain);

/// Where a coordinate falls among a row or column of `n` posts `spacingM` apart, the first
/// centred at spacingM / 2: between post `index` and index + 1 (index in [0, n - 2]),
/// `fraction` (in [0, 1]) of the way; outside the posts, clamped to the edge post.
struct PostSpan {
    int index = 0;
    double fraction = 0.0;
};
/// The PostSpan of coordinate `m` (metres from the grid's edge) for n >= 2 posts.
PostSpan PostSpanAt(double m, double spacingM, int n);

/// Bilinear interpolation between two rows of posts, `south` and the row north of it, at
/// `x` along them and `fy` (in [0, 1]) of the way north: what BilinearPosts computes once it has
/// found the rows, so a grid held a few rows at a time interpolates to the same bits.
double BilinearRows(const float* south, const float* north, PostSpan x, double fy);

/// Bilinear interpolation of per-post values (`values`, nx*ny, index j*nx + i, posts laid out
/// like Terrain's) at world position (xM, yM); outside the posts the nearest edge post's value.
/// Requires nx, ny >= 2.
double BilinearPosts(const float* values, int nx, int ny, double spacingXM, double spacingYM,
                     double xM, double yM);

/// Bilinear height in metres at world position (xM, yM) (BilinearPosts over the heights).
double BilinearHeightM(const Terrain& terrain, double xM, double yM);

/// Mean of bilinear heights over a 3x3 grid of points `radiusM` apart centred on (xM, yM):
/// the ground a flight follows without bobbing over every post.
double SmoothedHeightM(const Terrain& terrain, double xM, double yM, double radiusM);

}  // namespace bfv::terrain
