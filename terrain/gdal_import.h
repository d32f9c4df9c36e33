#pragma once

// Import of the raster DEMs GIS users have (GeoTIFF, SRTM .hgt, ESRI ASCII grid, USGS DEM,
// Erdas Imagine, ...) through GDAL. GDAL is in a module, libbfv_gdal.so (terrain/gdal/), loaded
// at the first call of any function here (FillNanPosts: the first with a NaN post); when it
// cannot be loaded each returns common::ModuleSymbol's error.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "common/expected.h"
#include "terrain/drape.h"
#include "terrain/pyramid_builder.h"
#include "terrain/terrain.h"

namespace bfv::terrain {

/// Reads band 1 of the raster at `path`, in any format GDAL reads, into a Terrain, heights in
/// metres. The terrain is named after the file's stem.
///
/// Heights: the band's values times its scale plus its offset (GDAL's scale/offset metadata,
/// 1 and 0 when absent); a band whose unit is feet (ft, foot, feet, US survey foot) is converted
/// to metres, any other non-empty unit than metres is an error. Negative heights (bathymetry)
/// are kept. Posts equal to the band's nodata value, and NaN posts, are filled by GDAL's
/// GDALFillNodata (inverse-distance weighting of the nearest valid posts, no smoothing).
///
/// Georeference, from the geotransform and the CRS:
/// - a geographic CRS (lon/lat): the geotransform's outer edges, in degrees, become GeoExtent
///   (the datum is taken as WGS84: the shift, at most a few hundred metres, is ignored), and the
///   spacing in metres comes from EquirectangularSpacingM at the centre latitude;
/// - a projected or local CRS: the pixel size times the CRS's linear unit (metres, feet) is the
///   spacing, and GeoExtent is the WGS84 lon/lat bounding box of the raster's corners and edge
///   midpoints, transformed by OGRCoordinateTransformation; when that transformation fails,
///   GeoExtent stays all zero;
/// - no CRS (e.g. an ESRI ASCII grid without its .prj): the pixel size is taken as metres and
///   GeoExtent stays all zero.
/// A north-up raster (row 0 north, the usual case) is flipped to Terrain's south-to-north j;
/// likewise a raster whose column 0 is its east edge.
///
/// Errors: "GDAL could not open '<path>': <GDAL's message>" when no GDAL driver reads the file;
/// otherwise "raster '<path>': <problem>": no geotransform (so no post spacing), a rotated or
/// sheared geotransform, fewer than 2 or more than 65536 posts per side, a geographic CRS not
/// in degrees, latitudes more than a post beyond -90..90 (up to that they are clamped, as a
/// grid of posts on a pole reaches half a post past it), an unsupported height unit, every post
/// nodata or under kMinValidPostShare or kMinValidPosts of them valid, a post GDALFillNodata left
/// unfilled, valid posts whose height (after scaling) is infinite or outside kPostHeightRangeM (how
/// many, and the first), or a read failure (with GDAL's message). What looks like an image rather
/// than heights is refused too: 3 or more bands with an 8-bit or red band 1 ("has 3 bands of Byte:
/// an image, not heights ..."), a band of palette indices, or an ESRI ASCII grid with a negative
/// cellsize. An .hgt file is checked against SRTM's naming (N36W099.hgt) and sizes (1201 or 3601
/// posts square) before GDAL opens it: "SRTM tile '<path>': ...". GDAL's own messages never reach
/// stderr.
///
/// A file that holds several rasters as variables (netCDF and GMT grids, HDF) is read from one
/// of them: `variable` when given, else the first of kElevationArrayNames it holds, else its
/// only one; otherwise "no elevation variable: ... (variables present: ...); name it with
/// --array NAME". A `variable` the file does not hold: "no variable 'NAME' (variables present:
/// ...)". Longitudes of a grid wholly east of 180 degrees (0..360 grids) are moved to
/// -180..180.
Expected<Terrain> ImportGdal(const std::string& path, const std::string& variable = "");

/// Fewest valid (not nodata) posts of a raster ImportGdal takes, as a share of its posts: under
/// it the heights would be mostly made up by the fill.
inline constexpr double kMinValidPostShare = 0.01;

/// Fewest valid posts of a raster ImportGdal takes: a 2 x 2 cell's worth.
inline constexpr std::size_t kMinValidPosts = 4;

/// Fills the NaN posts of `heightsM` (`rows` x `columns`, row-major) as ImportGdal fills a
/// raster's nodata posts (GDALFillNodata: inverse-distance weighting of the nearest valid
/// posts); heights without NaN are left as they are. Errors: under kMinValidPostShare or
/// kMinValidPosts valid posts ("only V of its C x R posts (S%) are valid, under 1% or 4: the rest
/// would be made up by filling from them"), or GDAL's.
Expected<void> FillNanPosts(std::vector<float>& heightsM, int columns, int rows);

/// Posts OpenGdalRows reads at a time, at most (about 13 bytes each while read, 100 MiB).
inline constexpr int kGdalStripPosts = 1 << 23;

/// The name of the private folder, followed by the process id, in which OpenGdalRows fills a
/// raster's nodata posts (in GdalRowsOptions::scratchDir); a process killed during the fill
/// leaves it behind.
inline constexpr const char* kFillFolderPrefix = ".bfv-fill.";

/// How OpenGdalRows reads a raster.
struct GdalRowsOptions {
    int stripPosts = kGdalStripPosts;  // posts read at a time, at most (at least a row)
    std::string scratchDir;            // where nodata posts are filled; "": the temp directory
    BuildProgress progress;            // (rows done, rows) while the heights are checked
    BuildProgress fillProgress;        // (permille done, 1000) while nodata posts are filled
    std::function<bool()> stop;        // asked as the check and the fill go: true ends them
    bool anyRaster = false;  // read band 1 of what ImportGdal refuses as no DEM (--any-raster)
};

/// ImportGdal's raster as a PostRowSource, for building the pyramid of a DEM too large to hold
/// in memory (WritePyramidFileFromRows): the same raster, checks, errors and heights, row for
/// row, read a strip of rows at a time with GDAL's windowed reads (RasterIO): as many rows as
/// `options.stripPosts` posts hold, whole blocks of the file where they fit, and GDAL's block
/// cache emptied after each strip. Opening reads the raster once to check every height,
/// calling `options.progress(rows done, rows)`. A raster with nodata posts is then filled as
/// ImportGdal fills it (GDALFillNodata, same heights), but on disk: a Float32 copy and a mask
/// are written to nameless GeoTIFFs in `options.scratchDir` (5 bytes a post), filled with
/// GDAL's block cache capped at 64 MiB (calling `options.fillProgress`; GDALFillNodata's own
/// work files, about as large, go to the folder kFillFolderPrefix<pid> there until the fill
/// ends), and read from until the source dies, which frees them. Errors:
/// ImportGdal's (of an image or a raster of few valid posts, none with `options.anyRaster`);
/// "cannot make the temporary folder 'PATH': ...", "cannot create the temporary raster
/// 'PATH': ..." and "cannot write the
/// temporary rasters ..." for the fill; "raster '<path>': stopped" when `options.stop` said
/// so; read errors later name the raster: "raster '<path>': cannot read rows A to B: <GDAL's
/// message>".
Expected<std::unique_ptr<PostRowSource>> OpenGdalRows(const std::string& path,
                                                      const std::string& variable = "",
                                                      const GdalRowsOptions& options = {});

/// Opens an RGB raster (bands 1-3 of any raster GDAL reads, 8-bit: GeoTIFF, PNG, JPEG, ...) to
/// drape over a DEM whose data area is `demGeo` (SourceGrid::geo; all zero when unknown): when
/// both have a georeference the imagery is placed by the two lon/lat extents (exact for rasters
/// in one geographic CRS; for projected ones the extents are bounding boxes, so the placement
/// is off by the grid's convergence, a few pixels at most over a DEM of tens of kilometres),
/// else it is stretched over the DEM's area, row 0 north. Errors: "GDAL could not open 'PATH':
/// ..." or "imagery 'PATH': ...": fewer than 3 bands, a colour band not 8-bit, a geotransform
/// that is rotated or sheared, or an imagery extent that does not hold the DEM's area (both
/// named, a pixel of slack).
Expected<std::unique_ptr<Imagery>> OpenGdalImagery(const std::string& path,
                                                   const GeoExtent& demGeo);

}  // namespace bfv::terrain
