#include "terrain/gdal_import.h"

#include <cpl_error.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <numbers>
#include <vector>

#include "terrain/equirectangular.h"

namespace bfv::terrain {
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

/// The raster's heights in metres in file order (row 0 first), NaN where GDAL's mask says
/// nodata or the value is NaN, and the number of valid posts. Errors: a valid post outside
/// kPostHeightRangeM (counted, the first named).
struct RawHeights {
    std::vector<float> heightsM;
    std::size_t validCount = 0;
};

Expected<RawHeights> ReadHeights(GDALRasterBand& band, int nx, int ny) {
    Expected<double> metresPerUnit = MetresPerHeightUnit(band);
    if (!metresPerUnit) return metresPerUnit.error();
    double scale = band.GetScale() * *metresPerUnit, offset = band.GetOffset() * *metresPerUnit;
    GDALRasterBand* mask = band.GetMaskBand();
    std::vector<double> row(static_cast<std::size_t>(nx));
    std::vector<std::uint8_t> valid(static_cast<std::size_t>(nx));
    RawHeights raw;
    raw.heightsM.resize(static_cast<std::size_t>(nx) * ny);
    for (int r = 0; r < ny; ++r) {
        if (band.RasterIO(GF_Read, 0, r, nx, 1, row.data(), nx, 1, GDT_Float64, 0, 0) != CE_None ||
            mask->RasterIO(GF_Read, 0, r, nx, 1, valid.data(), nx, 1, GDT_Byte, 0, 0) != CE_None) {
            return Error{fmt::format("cannot read row {}: {}", r, GdalMessage("read error"))};
        }
        for (int c = 0; c < nx; ++c) {
            bool ok = valid[c] != 0 && !std::isnan(row[c]);
            float h = ok ? static_cast<float>(offset + scale * row[c])
                         : std::numeric_limits<float>::quiet_NaN();
            raw.heightsM[static_cast<std::size_t>(r) * nx + c] = h;
            raw.validCount += ok ? 1 : 0;
        }
    }
    if (auto ok = CheckPostHeights(raw.heightsM, nx, NanHeights::Nodata); !ok) {
        return Error{ok.error().message +
                     " (if that is the raster's nodata value, declare it, e.g. with "
                     "gdal_translate -a_nodata)"};
    }
    return raw;
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

/// Replaces the NaN posts of `heightsM` (nx * ny, row-major) by GDALFillNodata's
/// inverse-distance interpolation of the valid ones; the search reaches across the grid, so
/// every post is filled as long as one is valid.
Expected<void> FillNodata(std::vector<float>& heightsM, int nx, int ny) {
    std::vector<std::uint8_t> valid(heightsM.size());
    for (std::size_t k = 0; k < heightsM.size(); ++k) valid[k] = std::isnan(heightsM[k]) ? 0 : 1;
    Expected<GDALDatasetUniquePtr> target = MemRaster(nx, ny, GDT_Float32, heightsM.data());
    if (!target) return target.error();
    Expected<GDALDatasetUniquePtr> mask = MemRaster(nx, ny, GDT_Byte, valid.data());
    if (!mask) return mask.error();
    GDALRasterBand* targetBand = (*target)->GetRasterBand(1);
    double maxSearchDistance = static_cast<double>(nx) + ny;  // in pixels
    if (GDALFillNodata(GDALRasterBand::ToHandle(targetBand),
                       GDALRasterBand::ToHandle((*mask)->GetRasterBand(1)), maxSearchDistance, 0, 0,
                       nullptr, nullptr, nullptr) != CE_None ||
        targetBand->RasterIO(GF_Read, 0, 0, nx, ny, heightsM.data(), nx, ny, GDT_Float32, 0, 0) !=
            CE_None) {
        return Error{"cannot fill the nodata posts: " + GdalMessage("GDALFillNodata failed")};
    }
    auto unfilled =
        std::find_if(heightsM.begin(), heightsM.end(), [](float h) { return !std::isfinite(h); });
    if (unfilled != heightsM.end()) {
        auto k = static_cast<std::size_t>(unfilled - heightsM.begin());
        return Error{
            fmt::format("nodata post at row {}, column {} was left unfilled", k / nx, k % nx)};
    }
    return {};
}

/// Reorders file-order heights into Terrain's order (j south to north, i west to east).
std::vector<float> ToTerrainOrder(const std::vector<float>& fileHeightsM, int nx, int ny,
                                  const Placement& p) {
    std::vector<float> heightsM(fileHeightsM.size());
    for (int r = 0; r < ny; ++r) {
        int j = p.flipRows ? ny - 1 - r : r;
        for (int c = 0; c < nx; ++c) {
            int i = p.flipColumns ? nx - 1 - c : c;
            heightsM[static_cast<std::size_t>(j) * nx + i] =
                fileHeightsM[static_cast<std::size_t>(r) * nx + c];
        }
    }
    return heightsM;
}

Expected<Terrain> ImportDataset(const std::string& path, GDALDataset& dataset) {
    int nx = dataset.GetRasterXSize(), ny = dataset.GetRasterYSize();
    if (dataset.GetRasterCount() < 1) return Error{"has no raster band"};
    auto bad = [](int n) { return n < 2 || n > kMaxPostsPerSide; };
    if (bad(nx) || bad(ny)) {
        return Error{
            fmt::format("is {} x {} posts; each side must be 2..{}", nx, ny, kMaxPostsPerSide)};
    }
    Expected<Placement> placement = Place(dataset, nx, ny);
    if (!placement) return placement.error();
    Expected<RawHeights> raw = ReadHeights(*dataset.GetRasterBand(1), nx, ny);
    if (!raw) return raw.error();
    if (raw->validCount == 0) return Error{"every post is nodata"};
    if (raw->validCount < raw->heightsM.size()) {
        if (Expected<void> filled = FillNodata(raw->heightsM, nx, ny); !filled) {
            return filled.error();
        }
    }
    Terrain t;
    t.name = std::filesystem::path(path).stem().string();
    t.nx = nx;
    t.ny = ny;
    t.spacingXM = placement->spacing.xM;
    t.spacingYM = placement->spacing.yM;
    t.geo = placement->geo;
    t.heightsM = ToTerrainOrder(raw->heightsM, nx, ny, *placement);
    return t;
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

}  // namespace

Expected<Terrain> ImportGdal(const std::string& path, const std::string& variable) {
    RegisterGdalDriversOnce();
    QuietGdalErrors quiet;
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
    Expected<Terrain> terrain = ImportDataset(path, *dataset);
    if (!terrain) return Error{fmt::format("raster '{}': {}", path, terrain.error().message)};
    return terrain;
}

}  // namespace bfv::terrain
