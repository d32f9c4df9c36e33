#include "terrain/gdal/gdal_module.h"

#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "terrain/equirectangular.h"

namespace bfv::terrain::gdal {
namespace {

void RegisterGdalDriversOnce() {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
}

/// Keeps GDAL's messages off stderr on this thread while alive; CPLGetLastErrorMsg still
/// holds the last one, which becomes our Error text instead.
class QuietGdalErrors {
  public:
    QuietGdalErrors() {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        CPLErrorReset();
    }
    ~QuietGdalErrors() { CPLPopErrorHandler(); }
    QuietGdalErrors(const QuietGdalErrors&) = delete;
    QuietGdalErrors& operator=(const QuietGdalErrors&) = delete;
};

/// GDAL's last error message, or `fallback` when GDAL left none.
std::string GdalMessage(const std::string& fallback) {
    std::string message = CPLGetLastErrorMsg();
    return message.empty() ? fallback : message;
}

using GeoTransform = std::array<double, 6>;  // GDAL's affine pixel-to-CRS transform

/// Where the posts are: spacing in metres, extent in degrees, and which way rows and columns
/// run in the file.
struct Placement {
    SpacingM spacing;
    GeoExtent geo;             // all zero when unknown
    bool flipRows = false;     // file row 0 is the north edge
    bool flipColumns = false;  // file column 0 is the east edge
};

Expected<GeoTransform> ReadGeoTransform(GDALDataset& dataset) {
    GeoTransform gt{};
    if (dataset.GetGeoTransform(gt.data()) != CE_None) {
        return Error{"has no georeference (no geotransform), so its post spacing is unknown"};
    }
    if (gt[2] != 0.0 || gt[4] != 0.0) {
        return Error{
            fmt::format("the raster is rotated or sheared (geotransform terms {}, {}); "
                        "warp it north-up first, e.g. with gdalwarp",
                        gt[2], gt[4])};
    }
    if (!std::isfinite(gt[1]) || !std::isfinite(gt[5]) || gt[1] == 0.0 || gt[5] == 0.0) {
        return Error{fmt::format("bad pixel size {} x {}", gt[1], gt[5])};
    }
    return gt;
}

/// The grid's outer edges in the CRS's units, sorted (x is easting or longitude).
GeoExtent EdgesOf(const GeoTransform& gt, int nx, int ny) {
    double x0 = gt[0], x1 = gt[0] + nx * gt[1], y0 = gt[3], y1 = gt[3] + ny * gt[5];
    return {std::min(x0, x1), std::max(x0, x1), std::min(y0, y1), std::max(y0, y1)};
}

/// Placement of a lon/lat grid in degrees. Latitudes are clamped to +-90 (a grid of posts on
/// the poles reaches half a pixel past them); further out is an error.
Expected<Placement> GeographicPlacement(const GeoTransform& gt, int nx, int ny,
                                        const OGRSpatialReference& srs) {
    if (std::abs(srs.GetAngularUnits() - std::numbers::pi / 180.0) > 1e-12) {
        return Error{"its geographic CRS is not in degrees"};
    }
    GeoExtent e = EdgesOf(gt, nx, ny);
    double tolerance = std::abs(gt[5]);
    if (e.latMinDeg < -90.0 - tolerance || e.latMaxDeg > 90.0 + tolerance) {
        return Error{
            fmt::format("latitudes {}..{} are outside -90..90 degrees", e.latMinDeg, e.latMaxDeg)};
    }
    e.latMinDeg = std::max(e.latMinDeg, -90.0);
    e.latMaxDeg = std::min(e.latMaxDeg, 90.0);
    if (e.lonMinDeg >= 180.0) {  // a 0..360 grid wholly east of 180 degrees
        e.lonMinDeg -= 360.0;
        e.lonMaxDeg -= 360.0;
    }
    Placement p;
    p.spacing = EquirectangularSpacingM(std::abs(gt[1]), std::abs(gt[5]),
                                        0.5 * (e.latMinDeg + e.latMaxDeg));
    p.geo = e;
    return p;
}

/// The WGS84 lon/lat bounding box of a projected grid's corners and edge midpoints, or all
/// zero when GDAL cannot transform them.
GeoExtent Wgs84BoundingBox(const GeoExtent& edges, const OGRSpatialReference& srs) {
    OGRSpatialReference source(srs), wgs84;
    source.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    wgs84.SetWellKnownGeogCS("WGS84");
    wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> toWgs84(
        OGRCreateCoordinateTransformation(&source, &wgs84));
    double xMid = 0.5 * (edges.lonMinDeg + edges.lonMaxDeg);
    double yMid = 0.5 * (edges.latMinDeg + edges.latMaxDeg);
    std::vector<double> x, y;
    for (double xe : {edges.lonMinDeg, xMid, edges.lonMaxDeg}) {
        for (double ye : {edges.latMinDeg, yMid, edges.latMaxDeg}) {
            x.push_back(xe);
            y.push_back(ye);
        }
    }
    if (!toWgs84 || !toWgs84->Transform(x.size(), x.data(), y.data())) return {};
    auto [lonMin, lonMax] = std::minmax_element(x.begin(), x.end());
    auto [latMin, latMax] = std::minmax_element(y.begin(), y.end());
    GeoExtent box{*lonMin, *lonMax, *latMin, *latMax};
    bool finite = std::isfinite(box.lonMinDeg) && std::isfinite(box.lonMaxDeg) &&
                  std::isfinite(box.latMinDeg) && std::isfinite(box.latMaxDeg);
    return finite ? box : GeoExtent{};
}

/// Placement of a grid in a projected or local CRS (`srs`), or with no CRS (null: metres).
Placement LinearPlacement(const GeoTransform& gt, int nx, int ny, const OGRSpatialReference* srs) {
    double metresPerUnit = srs != nullptr ? srs->GetLinearUnits() : 1.0;
    Placement p;
    p.spacing = {std::abs(gt[1]) * metresPerUnit, std::abs(gt[5]) * metresPerUnit};
    if (srs != nullptr) p.geo = Wgs84BoundingBox(EdgesOf(gt, nx, ny), *srs);
    return p;
}

Expected<Placement> Place(GDALDataset& dataset, int nx, int ny) {
    Expected<GeoTransform> gt = ReadGeoTransform(dataset);
    if (!gt) return gt.error();
    const OGRSpatialReference* srs = dataset.GetSpatialRef();
    Expected<Placement> p = srs != nullptr && srs->IsGeographic()
                                ? GeographicPlacement(*gt, nx, ny, *srs)
                                : Expected<Placement>(LinearPlacement(*gt, nx, ny, srs));
    if (!p) return p;
    p->flipRows = (*gt)[5] < 0.0;
    p->flipColumns = (*gt)[1] < 0.0;
    return p;
}

/// Metres per unit of the band's heights, from its unit name (empty: metres).
Expected<double> MetresPerHeightUnit(GDALRasterBand& band) {
    std::string unit = band.GetUnitType();
    std::transform(unit.begin(), unit.end(), unit.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* metre : {"", "m", "metre", "metres", "meter", "meters"}) {
        if (unit == metre) return 1.0;
    }
    for (const char* foot : {"ft", "foot", "feet", "international foot"}) {
        if (unit == foot) return 0.3048;
    }
    if (unit == "us survey foot" || unit == "us-ft" || unit == "ftus") return 1200.0 / 3937.0;
    return Error{
        fmt::format("heights in unit '{}' are not supported (metres or feet)", band.GetUnitType())};
}

/// Band 1 of an opened raster, checked, and what reading its heights takes.
struct HeightBand {
    GDALDatasetUniquePtr dataset;
    GDALRasterBand* band = nullptr;
    GDALRasterBand* mask = nullptr;  // GDAL's nodata mask; null when every post is valid
    int nx = 0;
    int ny = 0;
    Placement placement;
    double scaleM = 1.0;  // height = offsetM + scaleM * value, metres
    double offsetM = 0.0;
    int stripRows = 1;                // file rows read at a time: whole blocks where they fit
    bool anyRaster = false;           // read band 1 of what looks like no DEM (see CheckIsDem)
    std::vector<double> values;       // scratch: the raw values of a strip
    std::vector<std::uint8_t> valid;  // scratch: the mask of a strip
};

/// Rows to read at a time from a raster `nx` posts wide whose blocks are `blockRows` rows
/// high: as many as `stripPosts` posts hold (at least one), whole blocks where one fits.
int StripRowsFor(int nx, int ny, int blockRows, int stripPosts) {
    int rows = std::max(1, stripPosts / nx);
    if (blockRows > 0 && blockRows <= rows) rows = rows / blockRows * blockRows;
    return std::min(rows, ny);
}

/// Reads file rows r0 .. r0 + count - 1 into `heightsM` (count * nx, file order): metres, NaN
/// where the mask says nodata or the value is NaN. Returns the number of valid posts. Then
/// empties GDAL's block cache of the band, so a raster read strip by strip holds one strip.
/// Errors: "cannot read rows A to B: <GDAL's message>".
Expected<std::size_t> ReadFileRows(HeightBand& hb, int r0, int count, std::span<float> heightsM) {
    std::size_t n = static_cast<std::size_t>(hb.nx) * count;
    BFV_CHECK(heightsM.size() == n);
    hb.values.resize(n);
    hb.valid.assign(n, 1);
    bool read =
        hb.band->RasterIO(GF_Read, 0, r0, hb.nx, count, hb.values.data(), hb.nx, count, GDT_Float64,
                          0, 0) == CE_None &&
        (hb.mask == nullptr || hb.mask->RasterIO(GF_Read, 0, r0, hb.nx, count, hb.valid.data(),
                                                 hb.nx, count, GDT_Byte, 0, 0) == CE_None);
    std::string message = read ? "" : GdalMessage("read error");
    for (GDALRasterBand* band : {hb.band, hb.mask}) {
        if (band != nullptr && band->FlushCache() != CE_None) read = false;
    }
    if (!read) {
        return Error{fmt::format("cannot read rows {} to {}: {}", r0, r0 + count - 1,
                                 message.empty() ? GdalMessage("read error") : message)};
    }
    std::size_t validCount = 0;
    for (std::size_t k = 0; k < n; ++k) {
        bool ok = hb.valid[k] != 0 && !std::isnan(hb.values[k]);
        heightsM[k] = ok ? static_cast<float>(hb.offsetM + hb.scaleM * hb.values[k])
                         : std::numeric_limits<float>::quiet_NaN();
        validCount += ok ? 1 : 0;
    }
    return validCount;
}

/// The error of a step that its caller's `stop` ended.
constexpr const char* kStopped = "stopped";

/// Reads every row of `hb`, a strip at a time in file order, and gives each strip's heights
/// (as ReadFileRows) to `take(r0, heightsM)` when given, and `progress(rows done, ny)`; asks
/// `stop()`, when given, before each strip. Returns the number of valid posts. Errors: a read
/// error; a valid post outside kPostHeightRangeM (counted, the first named); every post
/// nodata; kStopped.
Expected<std::size_t> ScanHeights(
    HeightBand& hb, const std::function<void(int r0, std::span<float> heightsM)>& take,
    const BuildProgress& progress, const std::function<bool()>& stop = {}) {
    PostHeightCheck check(hb.nx, NanHeights::Nodata);
    std::vector<float> strip;
    std::size_t validCount = 0;
    for (int r0 = 0; r0 < hb.ny; r0 += hb.stripRows) {
        if (stop && stop()) return Error{kStopped};
        int count = std::min(hb.stripRows, hb.ny - r0);
        strip.resize(static_cast<std::size_t>(hb.nx) * count);
        Expected<std::size_t> valid = ReadFileRows(hb, r0, count, strip);
        if (!valid) return valid.error();
        validCount += *valid;
        check.Add(strip);
        if (take) take(r0, strip);
        if (progress) progress(r0 + count, hb.ny);
    }
    if (auto ok = check.Result(); !ok) {
        return Error{ok.error().message +
                     " (if that is the raster's nodata value, declare it, e.g. with "
                     "gdal_translate -a_nodata)"};
    }
    if (validCount == 0) return Error{"every post is nodata"};
    return validCount;
}

/// A single-band in-memory raster holding `values` (nx * ny of GDAL type `type`, row-major).
Expected<GDALDatasetUniquePtr> MemRaster(int nx, int ny, GDALDataType type, void* values) {
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDatasetUniquePtr raster(mem != nullptr ? mem->Create("", nx, ny, 1, type, nullptr)
                                               : nullptr);
    if (!raster || raster->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, nx, ny, values, nx, ny, type,
                                                      0, 0) != CE_None) {
        return Error{"cannot make an in-memory raster: " + GdalMessage("no MEM driver")};
    }
    return raster;
}

/// What FillBand's caller watches the fill with: its progress, and whether to stop it.
struct FillWatch {
    BuildProgress progress;      // (permille done, 1000), when given
    std::function<bool()> stop;  // asked as the fill goes, when given: true stops it
};

/// GDAL's progress callback for a FillWatch (`arg`): reports, and returns FALSE to stop.
int CPL_STDCALL WatchFill(double complete, const char*, void* arg) {
    const auto& watch = *static_cast<const FillWatch*>(arg);
    if (watch.progress) watch.progress(std::lround(1000.0 * complete), 1000);
    return watch.stop && watch.stop() ? FALSE : TRUE;
}

/// Runs GDALFillNodata on `target` (nx * ny), filling the posts `mask` gives as 0 by
/// inverse-distance interpolation of the others; the search reaches across the grid, so every
/// post is filled as long as one is valid. Errors: GDAL's; kStopped when `watch` stopped it.
Expected<void> FillBand(GDALRasterBand& target, GDALRasterBand& mask, int nx, int ny,
                        const FillWatch& watch = {}) {
    double maxSearchDistance = static_cast<double>(nx) + ny;  // in pixels
    if (GDALFillNodata(GDALRasterBand::ToHandle(&target), GDALRasterBand::ToHandle(&mask),
                       maxSearchDistance, 0, 0, nullptr, WatchFill,
                       const_cast<FillWatch*>(&watch)) != CE_None) {
        if (watch.stop && watch.stop()) return Error{kStopped};
        return Error{"cannot fill the nodata posts: " + GdalMessage("GDALFillNodata failed")};
    }
    return {};
}

/// Checks that rows of filled heights (`heightsM`, whole rows of `nx`, the first being file row
/// `r0`) are all finite. Errors: "nodata post at row R, column C was left unfilled".
Expected<void> CheckFilled(std::span<const float> heightsM, int r0, int nx) {
    auto unfilled =
        std::find_if(heightsM.begin(), heightsM.end(), [](float h) { return !std::isfinite(h); });
    if (unfilled == heightsM.end()) return {};
    auto k = static_cast<std::size_t>(unfilled - heightsM.begin());
    return Error{
        fmt::format("nodata post at row {}, column {} was left unfilled", r0 + k / nx, k % nx)};
}

/// Replaces the NaN posts of `heightsM` (nx * ny, row-major) by FillBand's interpolation of
/// the valid ones, in memory.
Expected<void> FillNodata(std::vector<float>& heightsM, int nx, int ny) {
    std::vector<std::uint8_t> valid(heightsM.size());
    for (std::size_t k = 0; k < heightsM.size(); ++k) valid[k] = std::isnan(heightsM[k]) ? 0 : 1;
    Expected<GDALDatasetUniquePtr> target = MemRaster(nx, ny, GDT_Float32, heightsM.data());
    if (!target) return target.error();
    Expected<GDALDatasetUniquePtr> mask = MemRaster(nx, ny, GDT_Byte, valid.data());
    if (!mask) return mask.error();
    GDALRasterBand* targetBand = (*target)->GetRasterBand(1);
    if (auto filled = FillBand(*targetBand, *(*mask)->GetRasterBand(1), nx, ny); !filled) {
        return filled;
    }
    if (targetBand->RasterIO(GF_Read, 0, 0, nx, ny, heightsM.data(), nx, ny, GDT_Float32, 0, 0) !=
        CE_None) {
        return Error{"cannot fill the nodata posts: " + GdalMessage("GDALFillNodata failed")};
    }
    return CheckFilled(heightsM, 0, nx);
}

/// A GeoTIFF of GDAL's made for a while, nameless: its file is removed as soon as GDAL has it
/// open (GDAL keeps reading and writing it through its open handle), so it goes when this dies
/// and also when the process is killed.
class ScratchRaster {
  public:
    /// Creates a single-band, tiled nx x ny raster of `type` at `path` and removes the name.
    /// Errors: "cannot create the temporary raster 'PATH': <GDAL's message>".
    static Expected<ScratchRaster> Create(const std::string& path, int nx, int ny,
                                          GDALDataType type) {
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        CPLStringList options;
        options.SetNameValue("TILED", "YES");
        options.SetNameValue("BIGTIFF", "IF_SAFER");
        GDALDatasetUniquePtr dataset(
            gtiff != nullptr ? gtiff->Create(path.c_str(), nx, ny, 1, type, options.List())
                             : nullptr);
        if (!dataset) {
            return Error{fmt::format("cannot create the temporary raster '{}': {}", path,
                                     GdalMessage("no GTiff driver"))};
        }
        VSIUnlink(path.c_str());
        return ScratchRaster(std::move(dataset));
    }
    GDALRasterBand& Band() const { return *dataset_->GetRasterBand(1); }

  private:
    explicit ScratchRaster(GDALDatasetUniquePtr dataset) : dataset_(std::move(dataset)) {}
    GDALDatasetUniquePtr dataset_;
};

/// Caps GDAL's block cache (process-wide) while alive: filling a raster on disk writes every
/// block, and GDAL keeps written blocks up to its cap, 5% of the machine's memory by default.
class GdalCacheCap {
  public:
    explicit GdalCacheCap(GIntBig bytes) : old_(GDALGetCacheMax64()) {
        GDALSetCacheMax64(std::min(old_, bytes));
    }
    ~GdalCacheCap() { GDALSetCacheMax64(old_); }
    GdalCacheCap(const GdalCacheCap&) = delete;
    GdalCacheCap& operator=(const GdalCacheCap&) = delete;

  private:
    GIntBig old_;
};

/// GDAL's block cache while a raster is filled on disk, bytes.
constexpr GIntBig kFillCacheBytes = GIntBig{64} << 20;

/// The private folder `kFillFolderPrefix<pid>` in a scratch directory that a fill's named
/// temporary files go to: GDALFillNodata's own work files (two the raster's size), through
/// GDAL's CPL_TMPDIR on this thread, and the ScratchRasters for the moment before they lose
/// their names. Made by Create, removed with all in it when this dies; a process killed
/// during a fill leaves it, and the next import removes it.
class FillFolder {
  public:
    /// Makes the folder in `dir` and points CPL_TMPDIR at it. Errors: "cannot make the
    /// temporary folder 'PATH': <reason>".
    static Expected<FillFolder> Create(const std::string& dir) {
        std::filesystem::path path =
            std::filesystem::path(dir) / (kFillFolderPrefix + std::to_string(::getpid()));
        std::error_code error;
        std::filesystem::remove_all(path, error);  // a stale one of an earlier process
        if (!std::filesystem::create_directory(path, error)) {
            return Error{fmt::format("cannot make the temporary folder '{}': {}", path.string(),
                                     error.message())};
        }
        return FillFolder(path.string());
    }
    FillFolder(FillFolder&& other) noexcept
        : path_(std::exchange(other.path_, {})), oldTempDir_(std::move(other.oldTempDir_)) {}
    FillFolder& operator=(FillFolder&&) = delete;
    ~FillFolder() {
        if (path_.empty()) return;
        CPLSetThreadLocalConfigOption("CPL_TMPDIR",
                                      oldTempDir_.empty() ? nullptr : oldTempDir_.c_str());
        std::error_code error;
        std::filesystem::remove_all(path_, error);
    }
    /// The path of `name` in the folder.
    std::string File(const std::string& name) const { return path_ + "/" + name; }

  private:
    explicit FillFolder(std::string path)
        : path_(std::move(path)), oldTempDir_(CPLGetThreadLocalConfigOption("CPL_TMPDIR", "")) {
        CPLSetThreadLocalConfigOption("CPL_TMPDIR", path_.c_str());
    }
    std::string path_;        // "" once moved from
    std::string oldTempDir_;  // CPL_TMPDIR before, "" when unset
};

/// Copies file rows r0 .. r0 + count - 1 (`fileHeightsM`, file order) into the same rows in
/// Terrain's order (j south to north, i west to east): `heightsM` holds Terrain rows
/// j0 .. j0 + count - 1, j0 being the southernmost of them.
void ToTerrainOrder(std::span<const float> fileHeightsM, int r0, int count, const HeightBand& hb,
                    std::span<float> heightsM) {
    int nx = hb.nx;
    int j0 = hb.placement.flipRows ? hb.ny - r0 - count : r0;
    for (int k = 0; k < count; ++k) {
        int r = r0 + k;
        int j = hb.placement.flipRows ? hb.ny - 1 - r : r;
        const float* in = &fileHeightsM[static_cast<std::size_t>(k) * nx];
        float* out = &heightsM[static_cast<std::size_t>(j - j0) * nx];
        if (hb.placement.flipColumns) {
            std::reverse_copy(in, in + nx, out);
        } else {
            std::copy(in, in + nx, out);
        }
    }
}

/// Success unless `validCount` of the nx x ny posts are under kMinValidPostShare of them or
/// under kMinValidPosts: filling the rest from them would make up the terrain.
Expected<void> CheckEnoughValidPosts(std::size_t validCount, int nx, int ny) {
    double share = static_cast<double>(validCount) / (static_cast<double>(nx) * ny);
    if (share >= kMinValidPostShare && validCount >= kMinValidPosts) return {};
    return Error{fmt::format(
        "only {} of its {} x {} posts ({:.2g}%) are valid, under {:g}% or {}: the rest would be "
        "made up by filling from them",
        validCount, nx, ny, 100.0 * share, 100.0 * kMinValidPostShare, kMinValidPosts)};
}

/// Success unless the raster has under kMinValidPostShare valid posts, or under
/// kMinValidPosts (and `hb.anyRaster` is off): filling the rest from them would make up the
/// terrain.
Expected<void> CheckValidShare(const HeightBand& hb, std::size_t validCount) {
    if (hb.anyRaster) return {};
    if (auto ok = CheckEnoughValidPosts(validCount, hb.nx, hb.ny); !ok) {
        return Error{ok.error().message + "; pass --any-raster to import it anyway"};
    }
    return {};
}

/// Every height of `hb` in Terrain's order, nodata posts filled (see ImportGdal).
Expected<std::vector<float>> ReadAllHeights(HeightBand& hb) {
    std::vector<float> fileHeightsM(static_cast<std::size_t>(hb.nx) * hb.ny);
    Expected<std::size_t> validCount =
        ScanHeights(hb,
                    [&](int r0, std::span<float> heightsM) {
                        std::copy(heightsM.begin(), heightsM.end(),
                                  fileHeightsM.begin() + static_cast<std::ptrdiff_t>(r0) * hb.nx);
                    },
                    {});
    if (!validCount) return validCount.error();
    if (auto ok = CheckValidShare(hb, *validCount); !ok) return ok.error();
    if (*validCount < fileHeightsM.size()) {
        if (Expected<void> filled = FillNodata(fileHeightsM, hb.nx, hb.ny); !filled) {
            return filled.error();
        }
    }
    std::vector<float> heightsM(fileHeightsM.size());
    ToTerrainOrder(fileHeightsM, 0, hb.ny, hb, heightsM);
    return heightsM;
}

/// Success unless `dataset` looks like an image rather than heights: 3 or more bands of which
/// band 1 is 8-bit or red (an RGB photo read as heights 0-255 m), or a band 1 of palette
/// indices; or an ESRI ASCII grid with a negative cellsize (GDAL reads it as a mirror image).
Expected<void> CheckIsDem(GDALDataset& dataset) {
    GDALRasterBand& band = *dataset.GetRasterBand(1);
    GDALColorInterp colour = band.GetColorInterpretation();
    if (dataset.GetRasterCount() >= 3 &&
        (band.GetRasterDataType() == GDT_Byte || colour == GCI_RedBand)) {
        return Error{fmt::format(
            "has {} bands of {}: an image, not heights (a DEM has one band of heights); drape it "
            "with --texture over a DEM, or pass --any-raster to read band 1 as heights",
            dataset.GetRasterCount(), GDALGetDataTypeName(band.GetRasterDataType()))};
    }
    if (colour == GCI_PaletteIndex) {
        return Error{
            "holds palette indices (a colour-mapped image), not heights; pass --any-raster to read "
            "them as heights"};
    }
    GeoTransform gt{};
    bool asciiGrid = std::string(dataset.GetDriver()->GetDescription()) == "AAIGrid";
    if (asciiGrid && dataset.GetGeoTransform(gt.data()) == CE_None && gt[1] < 0.0) {
        return Error{
            fmt::format("its cellsize {:g} is negative; an ESRI ASCII grid's must be > 0", gt[1])};
    }
    return {};
}

/// Band 1 of `dataset`, checked: its size, placement, height unit and CheckIsDem (unless
/// `anyRaster`); read `stripPosts` posts at a time. Errors: see ImportGdal.
Expected<HeightBand> CheckBand(GDALDatasetUniquePtr dataset, int stripPosts, bool anyRaster) {
    HeightBand hb;
    hb.nx = dataset->GetRasterXSize();
    hb.ny = dataset->GetRasterYSize();
    if (dataset->GetRasterCount() < 1) return Error{"has no raster band"};
    if (auto ok = CheckIsDem(*dataset); !ok && !anyRaster) return ok.error();
    auto bad = [](int n) { return n < 2 || n > kMaxPostsPerSide; };
    if (bad(hb.nx) || bad(hb.ny)) {
        return Error{fmt::format("is {} x {} posts; each side must be 2..{}", hb.nx, hb.ny,
                                 kMaxPostsPerSide)};
    }
    Expected<Placement> placement = Place(*dataset, hb.nx, hb.ny);
    if (!placement) return placement.error();
    hb.placement = *placement;
    hb.band = dataset->GetRasterBand(1);
    Expected<double> metresPerUnit = MetresPerHeightUnit(*hb.band);
    if (!metresPerUnit) return metresPerUnit.error();
    hb.scaleM = hb.band->GetScale() * *metresPerUnit;
    hb.offsetM = hb.band->GetOffset() * *metresPerUnit;
    hb.mask = (hb.band->GetMaskFlags() & GMF_ALL_VALID) != 0 ? nullptr : hb.band->GetMaskBand();
    int blockColumns = 0, blockRows = 0;
    hb.band->GetBlockSize(&blockColumns, &blockRows);
    hb.stripRows = StripRowsFor(hb.nx, hb.ny, blockRows, stripPosts);
    hb.anyRaster = anyRaster;
    hb.dataset = std::move(dataset);
    return hb;
}

/// Success unless `path` is an SRTM tile (.hgt) that GDAL's SRTMHGT driver will not read: one
/// not named for its south-west corner (N36W099.hgt), or of a size that is not 1201 x 1201
/// (3 arc-seconds) or 3601 x 3601 (1 arc-second) 16-bit posts. GDAL alone says "not
/// recognized as a supported file format".
Expected<void> CheckSrtmTile(const std::string& path) {
    std::filesystem::path file(path);
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (extension != ".hgt") return {};
    static const std::regex kTileName(R"([NSns]\d{2}[EWew]\d{3})");
    std::string name = file.stem().string();
    if (!std::regex_match(name, kTileName)) {
        return Error{fmt::format(
            "SRTM tile '{}': an .hgt file must be named for its south-west corner, latitude then "
            "longitude in whole degrees (N36W099.hgt, S01E010.hgt), as GDAL reads its position "
            "from the name; got '{}'",
            path, file.filename().string())};
    }
    std::error_code error;
    std::uintmax_t bytes = std::filesystem::file_size(file, error);
    if (error) return {};  // GDAL's open names what is wrong with the file
    for (std::uintmax_t side : {1201u, 3601u}) {
        if (bytes == side * side * 2) return {};
    }
    return Error{fmt::format(
        "SRTM tile '{}' is {} bytes; an .hgt tile holds 1201 x 1201 (3 arc-seconds, {} bytes) or "
        "3601 x 3601 (1 arc-second, {} bytes) big-endian 16-bit heights",
        path, bytes, 1201u * 1201u * 2, 3601u * 3601u * 2)};
}

GDALDatasetUniquePtr OpenRaster(const std::string& name) {
    return GDALDatasetUniquePtr(
        GDALDataset::Open(name.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
}

/// A raster a file holds as one of several (a netCDF variable): its name and GDAL's name
/// for opening it (e.g. NETCDF:"file.nc":z).
struct Variable {
    std::string name;
    std::string gdalName;
};

/// The rasters `dataset` holds as variables (GDAL's SUBDATASETS); empty for a plain raster.
std::vector<Variable> VariablesOf(GDALDataset& dataset) {
    std::vector<Variable> variables;
    CSLConstList metadata = dataset.GetMetadata("SUBDATASETS");
    for (int i = 0; metadata != nullptr && metadata[i] != nullptr; ++i) {
        std::string entry = metadata[i];
        std::size_t equals = entry.find('=');
        if (equals == std::string::npos || !entry.substr(0, equals).ends_with("_NAME")) continue;
        std::string gdalName = entry.substr(equals + 1);
        std::size_t colon = gdalName.rfind(':');
        std::string name = colon == std::string::npos ? gdalName : gdalName.substr(colon + 1);
        variables.push_back({name, gdalName});
    }
    return variables;
}

/// The name a plain raster's band goes by in its file (netCDF's variable), or "".
std::string BandVariable(GDALDataset& dataset) {
    if (dataset.GetRasterCount() < 1) return "";
    const char* name = dataset.GetRasterBand(1)->GetMetadataItem("NETCDF_VARNAME");
    return name != nullptr ? name : "";
}

/// GDAL's name of the raster to read from `dataset` (see ImportGdal): "" for the dataset
/// itself.
Expected<std::string> ChooseVariable(GDALDataset& dataset, const std::string& requested) {
    std::vector<Variable> variables = VariablesOf(dataset);
    std::vector<std::string> names;
    for (const Variable& v : variables) names.push_back(v.name);
    if (variables.empty()) {
        std::string own = BandVariable(dataset);
        if (requested.empty() || requested == own) return std::string();
        return Error{fmt::format("no variable '{}' (variables present: {})", requested,
                                 own.empty() ? "none named" : own)};
    }
    auto named = [&](const std::string& name) {
        return std::find_if(variables.begin(), variables.end(),
                            [&](const Variable& v) { return v.name == name; });
    };
    if (!requested.empty()) {
        if (auto it = named(requested); it != variables.end()) return it->gdalName;
        return Error{fmt::format("no variable '{}' (variables present: {})", requested,
                                 fmt::join(names, ", "))};
    }
    for (const char* name : kElevationArrayNames) {
        if (auto it = named(name); it != variables.end()) return it->gdalName;
    }
    if (variables.size() == 1) return variables.front().gdalName;
    return Error{fmt::format(
        "no elevation variable: none is named {} (variables present: {}); name it with --array "
        "NAME",
        fmt::join(kElevationArrayNames, ", "), fmt::join(names, ", "))};
}

/// Opens band 1 of the raster at `path` (`variable` of a file of several), to be read
/// `stripPosts` posts at a time, and checks it. Errors: see ImportGdal. Call with GDAL's
/// messages quiet.
Expected<HeightBand> OpenHeightBand(const std::string& path, const std::string& variable,
                                    int stripPosts, bool anyRaster) {
    RegisterGdalDriversOnce();
    if (auto ok = CheckSrtmTile(path); !ok) return ok.error();
    GDALDatasetUniquePtr dataset = OpenRaster(path);
    if (!dataset) {
        return Error{fmt::format("GDAL could not open '{}': {}", path,
                                 GdalMessage("not a raster format GDAL reads"))};
    }
    Expected<std::string> chosen = ChooseVariable(*dataset, variable);
    if (!chosen) return Error{fmt::format("raster '{}': {}", path, chosen.error().message)};
    if (!chosen->empty()) {
        dataset = OpenRaster(*chosen);
        if (!dataset) {
            return Error{fmt::format("GDAL could not open '{}': {}", *chosen,
                                     GdalMessage("not a raster GDAL reads"))};
        }
    }
    Expected<HeightBand> hb = CheckBand(std::move(dataset), stripPosts, anyRaster);
    if (!hb) return Error{fmt::format("raster '{}': {}", path, hb.error().message)};
    return hb;
}

/// A GDAL raster read a strip of rows at a time (see OpenGdalRows).
class GdalRows final : public PostRowSource {
  public:
    GdalRows(std::string path, HeightBand hb) : path_(std::move(path)), hb_(std::move(hb)) {
        grid_.name = std::filesystem::path(path_).stem().string();
        grid_.nx = hb_.nx;
        grid_.ny = hb_.ny;
        grid_.spacingXM = hb_.placement.spacing.xM;
        grid_.spacingYM = hb_.placement.spacing.yM;
        grid_.geo = hb_.placement.geo;
    }

    /// Checks every height; when some posts are nodata, fills them (FillOnDisk).
    Expected<void> Scan(const GdalRowsOptions& options) {
        Expected<std::size_t> validCount = ScanHeights(hb_, {}, options.progress, options.stop);
        if (!validCount) return Named(validCount.error());
        if (auto ok = CheckValidShare(hb_, *validCount); !ok) return Named(ok.error());
        if (*validCount == static_cast<std::size_t>(hb_.nx) * hb_.ny) return {};
        if (auto filled = FillOnDisk(options.scratchDir, {options.fillProgress, options.stop});
            !filled) {
            return Named(filled.error());
        }
        return {};
    }

    const SourceGrid& Grid() const override { return grid_; }

    /// Whole strips of the file where they fit: the strip's far edge on a block boundary.
    int StripRows(int j0) const override {
        int rows = hb_.stripRows, ny = hb_.ny;
        if (!hb_.placement.flipRows) {
            int end = std::min(ny, (j0 + rows) / rows * rows);
            return end > j0 ? end - j0 : std::min(rows, ny - j0);
        }
        int fileEnd = ny - j0;  // Terrain rows j0.. are file rows ..fileEnd - 1
        int start = std::max(0, (fileEnd - rows + rows - 1) / rows * rows);
        return start < fileEnd ? fileEnd - start : std::min(rows, fileEnd);
    }

    Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) override {
        std::size_t nx = static_cast<std::size_t>(hb_.nx);
        BFV_CHECK(j0 >= 0 && count >= 1 && j0 + count <= hb_.ny);
        BFV_CHECK(heightsM.size() == nx * count);
        QuietGdalErrors quiet;
        int r0 = hb_.placement.flipRows ? hb_.ny - j0 - count : j0;
        strip_.resize(heightsM.size());
        if (auto read = ReadFileRows(hb_, r0, count, strip_); !read) return Named(read.error());
        ToTerrainOrder(strip_, r0, count, hb_, heightsM);
        return {};
    }

  private:
    Error Named(const Error& error) const {
        return Error{fmt::format("raster '{}': {}", path_, error.message)};
    }

    /// Fills the nodata posts as ImportGdal does (FillBand), but on disk: the heights and their
    /// mask are copied a strip at a time into nameless scratch GeoTIFFs (ScratchRaster) in
    /// `scratchDir` (the system's temporary directory when empty), GDALFillNodata fills the
    /// heights in place with GDAL's block cache capped, its work files in a FillFolder there
    /// (`watch` follows it, and can stop it), and the reads then come from the filled raster,
    /// which goes when this source does.
    Expected<void> FillOnDisk(const std::string& scratchDir, const FillWatch& watch) {
        std::string dir =
            scratchDir.empty() ? std::filesystem::temp_directory_path().string() : scratchDir;
        Expected<FillFolder> folder = FillFolder::Create(dir);
        if (!folder) return folder.error();
        GdalCacheCap cap(kFillCacheBytes);
        Expected<ScratchRaster> heights =
            ScratchRaster::Create(folder->File("heights.tif"), hb_.nx, hb_.ny, GDT_Float32);
        if (!heights) return heights.error();
        if (auto filled = CopyAndFill(*heights, folder->File("mask.tif"), watch); !filled) {
            return filled;
        }
        HeightBand filled;
        filled.band = &heights->Band();
        filled.nx = hb_.nx;
        filled.ny = hb_.ny;
        filled.placement = hb_.placement;
        filled.stripRows = hb_.stripRows;
        if (auto complete = CheckEveryPostFilled(filled); !complete) return complete;
        filled_.emplace(std::move(*heights));
        hb_ = std::move(filled);  // closes the raster itself
        return {};
    }

    /// FillOnDisk's copy and fill: the raster's heights into `heights` and their validity into
    /// a scratch mask made at `maskPath` (gone on return), then `heights`' nodata posts filled
    /// in place (FillBand).
    Expected<void> CopyAndFill(ScratchRaster& heights, const std::string& maskPath,
                               const FillWatch& watch) {
        Expected<ScratchRaster> mask = ScratchRaster::Create(maskPath, hb_.nx, hb_.ny, GDT_Byte);
        if (!mask) return mask.error();
        std::vector<std::uint8_t> valid;
        Expected<void> written;
        auto copy = [&](int r0, std::span<float> heightsM) {
            int count = static_cast<int>(heightsM.size() / hb_.nx);
            valid.resize(heightsM.size());
            for (std::size_t k = 0; k < heightsM.size(); ++k) {
                valid[k] = std::isnan(heightsM[k]) ? 0 : 1;
            }
            if (written && (heights.Band().RasterIO(GF_Write, 0, r0, hb_.nx, count, heightsM.data(),
                                                    hb_.nx, count, GDT_Float32, 0, 0) != CE_None ||
                            mask->Band().RasterIO(GF_Write, 0, r0, hb_.nx, count, valid.data(),
                                                  hb_.nx, count, GDT_Byte, 0, 0) != CE_None)) {
                written = Error{"cannot write the temporary rasters to fill the nodata posts: " +
                                GdalMessage("write error")};
            }
        };
        if (auto copied = ScanHeights(hb_, copy, {}, watch.stop); !copied) return copied.error();
        if (!written) return written;
        return FillBand(heights.Band(), mask->Band(), hb_.nx, hb_.ny, watch);
    }

    /// Whether every post of `filled` (FillOnDisk's filled raster) holds a height
    /// (CheckFilled's error names the first that does not).
    static Expected<void> CheckEveryPostFilled(HeightBand& filled) {
        Expected<void> complete;
        auto check = [&](int r0, std::span<float> heightsM) {
            if (complete) complete = CheckFilled(heightsM, r0, filled.nx);
        };
        if (auto checked = ScanHeights(filled, check, {}); !checked && complete) {
            return checked.error();
        }
        return complete;
    }

    std::string path_;
    HeightBand hb_;  // the raster, or once its nodata posts are filled, filled_
    SourceGrid grid_;
    std::optional<ScratchRaster> filled_;  // the filled raster, when the raster had nodata
    std::vector<float> strip_;             // scratch: a strip in file order
};

/// How one axis of a DEM's unit square (u east, or v north, 0..1) falls on an imagery raster's
/// pixels: pixel coordinate = offset + scale * u (scale < 0 where the raster runs the other way).
struct ImageryAxis {
    double offset = 0.0;
    double scale = 0.0;
    int pixels = 0;

    double PixelAt(double u) const { return offset + scale * u; }
};

/// How imagery lies over a DEM: its axes, and in words.
struct ImageryPlacement {
    ImageryAxis u, v;
    std::string how;
};

/// Which cells of a row (or column) of `count` cells `du` wide from `u0` an ImageryAxis reads:
/// cells lo..hi, whose centres lie on the raster, from the pixel window [start, start + size);
/// the cells off the raster take the nearest of those (or, with none on it, the edge pixel
/// nearest the nearest cell).
struct AxisCells {
    int lo = 0;
    int hi = 0;
    double start = 0.0;
    double size = 0.0;
    bool reversed = false;  // pixels run against the cells

    /// Index along this axis, in the window read, of the pixel block of cell `c`.
    int BufferIndex(int c) const {
        int on = std::clamp(c, lo, hi);
        return reversed ? hi - on : on - lo;
    }
};

AxisCells CellsOn(const ImageryAxis& axis, double u0, double du, int count) {
    auto centre = [&](int c) { return axis.PixelAt(u0 + (c + 0.5) * du); };
    AxisCells cells;
    cells.reversed = axis.scale < 0.0;
    cells.lo = count;
    cells.hi = -1;
    for (int c = 0; c < count; ++c) {
        if (centre(c) >= 0.0 && centre(c) < axis.pixels) {
            cells.lo = std::min(cells.lo, c);
            cells.hi = c;
        }
    }
    if (cells.lo > cells.hi) {
        auto off = [&](double p) { return p < 0.0 ? -p : p - axis.pixels; };
        int nearest = off(centre(0)) <= off(centre(count - 1)) ? 0 : count - 1;
        cells.lo = cells.hi = nearest;
        cells.start = std::floor(std::clamp(centre(nearest), 0.0, axis.pixels - 1.0));
        cells.size = 1.0;
        return cells;
    }
    double e0 = axis.PixelAt(u0 + cells.lo * du), e1 = axis.PixelAt(u0 + (cells.hi + 1) * du);
    cells.start = std::max(0.0, std::min(e0, e1));
    cells.size = std::min<double>(axis.pixels, std::max(e0, e1)) - cells.start;
    return cells;
}

/// GDAL's block cache while imagery is read: a coarse tile's cells average the whole image,
/// whose blocks GDAL would otherwise keep up to 5% of the machine's memory.
constexpr GIntBig kImageryCacheBytes = GIntBig{64} << 20;

/// Bands 1-3 of an 8-bit RGB(A) raster placed over a DEM's data area (OpenGdalImagery); caps
/// GDAL's block cache at kImageryCacheBytes while alive.
class GdalImagery final : public Imagery {
  public:
    GdalImagery(std::string path, GDALDatasetUniquePtr dataset, ImageryPlacement placed)
        : path_(std::move(path)),
          dataset_(std::move(dataset)),
          u_(placed.u),
          v_(placed.v),
          how_(std::move(placed.how)) {}

    std::string Placement() const override { return how_; }
    std::array<double, 2> PixelsAcross() const override {
        return {std::abs(u_.scale), std::abs(v_.scale)};
    }

    Expected<void> Sample(double u0, double v0, double du, double dv, int columns, int rows,
                          std::vector<common::Rgb>& out) override {
        QuietGdalErrors quiet;
        AxisCells x = CellsOn(u_, u0, du, columns), y = CellsOn(v_, v0, dv, rows);
        int bufferX = x.hi - x.lo + 1, bufferY = y.hi - y.lo + 1;
        // GDAL averages a window in memory whole: where a cell spans more than
        // kAveragedPixels pixels, read kSupersamples x kSupersamples of them (nearest) and
        // average those instead, so that memory stays bounded whatever the imagery's size.
        int sx = x.size > kAveragedPixels * bufferX ? kSupersamples : 1;
        int sy = y.size > kAveragedPixels * bufferY ? kSupersamples : 1;
        int readX = bufferX * sx, readY = bufferY * sy;
        read_.resize(std::size_t(readX) * readY * 3);
        GDALRasterIOExtraArg extra;
        INIT_RASTERIO_EXTRA_ARG(extra);
        extra.eResampleAlg = sx * sy > 1 ? GRIORA_NearestNeighbour : GRIORA_Average;
        extra.bFloatingPointWindowValidity = TRUE;
        extra.dfXOff = x.start;
        extra.dfYOff = y.start;
        extra.dfXSize = x.size;
        extra.dfYSize = y.size;
        auto whole = [](const AxisCells& cells, int pixels) {
            int first = std::clamp(static_cast<int>(std::floor(cells.start)), 0, pixels - 1);
            int last = static_cast<int>(std::ceil(cells.start + cells.size));
            return std::pair{first, std::clamp(last - first, 1, pixels - first)};
        };
        auto [xOff, xSize] = whole(x, u_.pixels);
        auto [yOff, ySize] = whole(y, v_.pixels);
        int bands[3] = {1, 2, 3};
        if (dataset_->RasterIO(GF_Read, xOff, yOff, xSize, ySize, read_.data(), readX, readY,
                               GDT_Byte, 3, bands, 3, 3 * readX, 1, &extra) != CE_None) {
            return Error{fmt::format("imagery '{}': cannot read pixels {}..{} x {}..{}: {}", path_,
                                     xOff, xOff + xSize - 1, yOff, yOff + ySize - 1,
                                     GdalMessage("read failed"))};
        }
        out.resize(std::size_t(columns) * rows);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < columns; ++c) {
                out[std::size_t(r) * columns + c] =
                    MeanOf(x.BufferIndex(c) * sx, y.BufferIndex(r) * sy, sx, sy, readX);
            }
        }
        return {};
    }

  private:
    /// A cell averaged by GDAL spans at most this many pixels along each axis ...
    static constexpr int kAveragedPixels = 8;
    /// ... beyond which it is the mean of this many pixels along each axis.
    static constexpr int kSupersamples = 8;

    /// The mean colour of the sx x sy samples of read_ (readX wide) from (x0, y0).
    common::Rgb MeanOf(int x0, int y0, int sx, int sy, int readX) const {
        std::array<int, 3> sum{};
        for (int j = 0; j < sy; ++j) {
            const std::uint8_t* p = &read_[(std::size_t(y0 + j) * readX + x0) * 3];
            for (int i = 0; i < 3 * sx; ++i) sum[i % 3] += p[i];
        }
        int n = sx * sy;
        auto mean = [n](int total) { return static_cast<std::uint8_t>((total + n / 2) / n); };
        return {mean(sum[0]), mean(sum[1]), mean(sum[2])};
    }

    GdalCacheCap cacheCap_{kImageryCacheBytes};
    std::string path_;
    GDALDatasetUniquePtr dataset_;
    ImageryAxis u_, v_;
    std::string how_;                 // ImageryPlacement::how
    std::vector<std::uint8_t> read_;  // scratch: one window's samples, RGB
};

bool Known(const GeoExtent& g) {
    return g.lonMinDeg != 0.0 || g.lonMaxDeg != 0.0 || g.latMinDeg != 0.0 || g.latMaxDeg != 0.0;
}

/// The axes of imagery `dataset` (nx x ny pixels) over a DEM at `demGeo`: by the two rasters'
/// lon/lat extents when both have one, else stretched over the DEM. Errors: the DEM's area is
/// not inside the imagery's.
Expected<ImageryPlacement> PlaceImagery(GDALDataset& dataset, int nx, int ny,
                                        const GeoExtent& demGeo) {
    GeoTransform gt{};
    bool imageGeo = dataset.GetGeoTransform(gt.data()) == CE_None;
    Expected<Placement> placed = imageGeo ? Place(dataset, nx, ny) : Placement{};
    if (!placed) return placed.error();
    const GeoExtent& t = placed->geo;
    if (!Known(t) || !Known(demGeo)) {  // row 0 north, column 0 west, as a photograph
        return ImageryPlacement{{0.0, double(nx), nx},
                                {double(ny), -double(ny), ny},
                                fmt::format("stretched over the DEM ({})",
                                            Known(t)        ? "the DEM has no georeference"
                                            : Known(demGeo) ? "the image has no georeference"
                                                            : "neither has a georeference")};
    }
    double pixelLonDeg = (t.lonMaxDeg - t.lonMinDeg) / nx,
           pixelLatDeg = (t.latMaxDeg - t.latMinDeg) / ny;
    if (demGeo.lonMinDeg < t.lonMinDeg - pixelLonDeg ||
        demGeo.lonMaxDeg > t.lonMaxDeg + pixelLonDeg ||
        demGeo.latMinDeg < t.latMinDeg - pixelLatDeg ||
        demGeo.latMaxDeg > t.latMaxDeg + pixelLatDeg) {
        return Error{fmt::format(
            "it covers lon {:.5f} to {:.5f}, lat {:.5f} to {:.5f} deg, which does not hold the "
            "DEM's area (lon {:.5f} to {:.5f}, lat {:.5f} to {:.5f} deg)",
            t.lonMinDeg, t.lonMaxDeg, t.latMinDeg, t.latMaxDeg, demGeo.lonMinDeg, demGeo.lonMaxDeg,
            demGeo.latMinDeg, demGeo.latMaxDeg)};
    }
    // pixel = (degrees - west or south edge) / degrees per pixel, with degrees linear in u or v.
    ImageryAxis u{(demGeo.lonMinDeg - t.lonMinDeg) / pixelLonDeg,
                  (demGeo.lonMaxDeg - demGeo.lonMinDeg) / pixelLonDeg, nx};
    ImageryAxis v{(demGeo.latMinDeg - t.latMinDeg) / pixelLatDeg,
                  (demGeo.latMaxDeg - demGeo.latMinDeg) / pixelLatDeg, ny};
    if (placed->flipColumns) u = {nx - u.offset, -u.scale, nx};
    if (placed->flipRows) v = {ny - v.offset, -v.scale, ny};
    return ImageryPlacement{u, v, "placed by its georeference"};
}

}  // namespace

Expected<void> FillNanPosts(std::vector<float>& heightsM, int columns, int rows) {
    auto valid = static_cast<std::size_t>(
        std::count_if(heightsM.begin(), heightsM.end(), [](float h) { return !std::isnan(h); }));
    if (valid == heightsM.size()) return {};
    if (auto ok = CheckEnoughValidPosts(valid, columns, rows); !ok) return ok;
    RegisterGdalDriversOnce();
    QuietGdalErrors quiet;
    return FillNodata(heightsM, columns, rows);
}

Expected<Terrain> ImportGdal(const std::string& path, const std::string& variable) {
    QuietGdalErrors quiet;
    Expected<HeightBand> hb = OpenHeightBand(path, variable, kGdalStripPosts, false);
    if (!hb) return hb.error();
    Expected<std::vector<float>> heightsM = ReadAllHeights(*hb);
    if (!heightsM) return Error{fmt::format("raster '{}': {}", path, heightsM.error().message)};
    Terrain t;
    t.name = std::filesystem::path(path).stem().string();
    t.nx = hb->nx;
    t.ny = hb->ny;
    t.spacingXM = hb->placement.spacing.xM;
    t.spacingYM = hb->placement.spacing.yM;
    t.geo = hb->placement.geo;
    t.heightsM = std::move(*heightsM);
    return t;
}

Expected<std::unique_ptr<PostRowSource>> OpenGdalRows(const std::string& path,
                                                      const std::string& variable,
                                                      const GdalRowsOptions& options) {
    QuietGdalErrors quiet;
    Expected<HeightBand> hb = OpenHeightBand(path, variable, options.stripPosts, options.anyRaster);
    if (!hb) return hb.error();
    auto rows = std::make_unique<GdalRows>(path, std::move(*hb));
    if (auto scanned = rows->Scan(options); !scanned) return scanned.error();
    return std::unique_ptr<PostRowSource>(std::move(rows));
}

Expected<std::unique_ptr<Imagery>> OpenGdalImagery(const std::string& path,
                                                   const GeoExtent& demGeo) {
    RegisterGdalDriversOnce();
    QuietGdalErrors quiet;
    GDALDatasetUniquePtr dataset = OpenRaster(path);
    if (!dataset) {
        return Error{fmt::format("GDAL could not open '{}': {}", path,
                                 GdalMessage("not a raster GDAL reads"))};
    }
    auto problem = [&](const std::string& what) {
        return Error{fmt::format("imagery '{}': {}", path, what)};
    };
    int bands = dataset->GetRasterCount();
    if (bands < 3) {
        return problem(
            fmt::format("{} band{}, expected 3 (RGB) or 4 (RGBA); a paletted image converts with "
                        "`gdal_translate -expand rgb`",
                        bands, bands == 1 ? "" : "s"));
    }
    for (int b = 1; b <= 3; ++b) {
        GDALDataType type = dataset->GetRasterBand(b)->GetRasterDataType();
        if (type != GDT_Byte) {
            return problem(fmt::format(
                "band {} is {}, expected 8-bit colour (convert with `gdal_translate -ot Byte "
                "-scale`)",
                b, GDALGetDataTypeName(type)));
        }
    }
    int nx = dataset->GetRasterXSize(), ny = dataset->GetRasterYSize();
    auto placed = PlaceImagery(*dataset, nx, ny, demGeo);
    if (!placed) return problem(placed.error().message);
    return std::unique_ptr<Imagery>(
        std::make_unique<GdalImagery>(path, std::move(dataset), std::move(*placed)));
}

}  // namespace bfv::terrain::gdal

const bfv::terrain::gdal::Functions kBfvGdalFunctions{
    bfv::terrain::gdal::ImportGdal, bfv::terrain::gdal::FillNanPosts,
    bfv::terrain::gdal::OpenGdalRows, bfv::terrain::gdal::OpenGdalImagery};
