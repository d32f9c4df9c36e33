#include "terrain/gdal_import.h"

#include <gdal_priv.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "terrain/equirectangular.h"
#include "tests/gdal_raster.h"
#include "tests/temp_dir.h"

namespace bfv::terrain {
namespace {

using test_support::TempDir;

using test_support::CreateGeoTiff;
using test_support::GeoTransform;
using test_support::RasterSpec;
using test_support::WriteGeoTiff;

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

std::string ImportError(const std::string& path) {
    Expected<Terrain> t = ImportGdal(path);
    return t.ok() ? "" : t.error().message;
}

/// 4 x 3 posts of 0.01 degrees, north-up, EPSG:4326, west edge -99, south edge 36: one nodata
/// post (row 1, column 1) and one negative height (row 2, column 0, the south-west post).
RasterSpec GeographicSpec() {
    RasterSpec spec;
    spec.nx = 4;
    spec.ny = 3;
    spec.values = {10, 20,    30,  40,  //
                   50, -9999, 70,  80,  //
                   -5, 100,   110, 120};
    spec.geoTransform = GeoTransform{-99.0, 0.01, 0.0, 36.03, 0.0, -0.01};
    spec.epsg = 4326;
    spec.nodata = -9999.0;
    return spec;
}

TEST(GdalImport, ReadsAGeographicGeoTiffSouthRowFirst) {
    TempDir dir;
    std::string path = dir.File("mesa.tif");
    WriteGeoTiff(path, GeographicSpec());
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->name, "mesa");
    EXPECT_EQ(t->nx, 4);
    EXPECT_EQ(t->ny, 3);
    EXPECT_EQ(t->HeightAt(0, 0), -5.0f);  // the file's last row is the south edge; kept negative
    EXPECT_EQ(t->HeightAt(3, 0), 120.0f);
    EXPECT_EQ(t->HeightAt(0, 2), 10.0f);  // the file's first row is the north edge
    EXPECT_EQ(t->HeightAt(3, 2), 40.0f);
    EXPECT_EQ(t->HeightAt(2, 1), 70.0f);
}

// GeographicSpec without its nodata post (60 m there), for netCDF files.
RasterSpec GeographicSpecAllValid() {
    RasterSpec spec = GeographicSpec();
    spec.nodata.reset();
    spec.values[5] = 60.0;
    return spec;
}

// A netCDF grid on 0..360 longitudes (as GMT and CF grids of the Pacific often are): read
// like the GeoTIFF, its longitudes moved to -180..180.
TEST(GdalImport, ReadsANetcdfGridOnLongitudesPast180) {
    TempDir dir;
    std::string path = dir.File("pacific.nc");
    RasterSpec spec = GeographicSpecAllValid();
    spec.geoTransform = GeoTransform{200.0, 0.01, 0.0, 36.03, 0.0, -0.01};
    CreateGeoTiff(path, spec, "netCDF");
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->HeightAt(0, 0), -5.0f);
    EXPECT_EQ(t->HeightAt(3, 2), 40.0f);
    EXPECT_NEAR(t->geo.lonMinDeg, -160.0, 1e-9);
    EXPECT_NEAR(t->geo.lonMaxDeg, -159.96, 1e-9);
    EXPECT_TRUE(ImportGdal(path, "Band1").ok()) << "its one variable, named";
    EXPECT_TRUE(Contains(ImportGdal(path, "z").error().message,
                         "no variable 'z' (variables present: Band1)"))
        << ImportGdal(path, "z").error().message;
}

// A netCDF file of several variables: none has an elevation name, so the choice is the
// user's (--array), and the error lists them.
TEST(GdalImport, ANetcdfVariableIsChosenByName) {
    TempDir dir;
    std::string path = dir.File("two.nc");
    CreateGeoTiff(path, GeographicSpecAllValid(), "netCDF", 2);
    std::string unnamed = ImportError(path);
    EXPECT_TRUE(Contains(unnamed, "no elevation variable")) << unnamed;
    EXPECT_TRUE(Contains(unnamed, "variables present: Band1, Band2")) << unnamed;
    EXPECT_TRUE(Contains(unnamed, "--array NAME")) << unnamed;
    Expected<Terrain> second = ImportGdal(path, "Band2");
    ASSERT_TRUE(second.ok()) << second.error().message;
    EXPECT_EQ(second->HeightAt(0, 0), 995.0f) << "band 2 holds the values plus 1000";
    std::string unknown = ImportGdal(path, "nope").error().message;
    EXPECT_TRUE(Contains(unknown, "no variable 'nope' (variables present: Band1, Band2)"))
        << unknown;
}

TEST(GdalImport, SpacingOfAGeographicGridIsEquirectangular) {
    TempDir dir;
    std::string path = dir.File("mesa.tif");
    WriteGeoTiff(path, GeographicSpec());
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    double centreLatRad = 36.015 * std::numbers::pi / 180.0;
    EXPECT_NEAR(t->spacingYM, 0.01 * metresPerDegreeLat, 1e-6);
    EXPECT_NEAR(t->spacingXM, 0.01 * metresPerDegreeLat * std::cos(centreLatRad), 1e-6);
    EXPECT_NEAR(t->geo.lonMinDeg, -99.0, 1e-12);
    EXPECT_NEAR(t->geo.lonMaxDeg, -98.96, 1e-12);
    EXPECT_NEAR(t->geo.latMinDeg, 36.0, 1e-12);
    EXPECT_NEAR(t->geo.latMaxDeg, 36.03, 1e-12);
}

TEST(GdalImport, FillsANodataPostFromItsNeighbours) {
    TempDir dir;
    std::string path = dir.File("mesa.tif");
    WriteGeoTiff(path, GeographicSpec());
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    // Its neighbours: 50 west, 70 east, 20 north, 100 south.
    float filled = t->HeightAt(1, 1);
    EXPECT_GE(filled, 20.0f);
    EXPECT_LE(filled, 100.0f);
}

TEST(GdalImport, ReadsAProjectedGeoTiffInMetres) {
    TempDir dir;
    std::string path = dir.File("utm.tif");
    RasterSpec spec;
    spec.nx = 5;
    spec.ny = 4;
    for (int k = 0; k < 20; ++k) spec.values.push_back(1000.0 + k);
    spec.geoTransform = GeoTransform{500000.0, 30.0, 0.0, 4000000.0, 0.0, -30.0};
    spec.epsg = 32614;  // UTM zone 14N, central meridian 99 W
    WriteGeoTiff(path, spec);
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->spacingXM, 30.0);
    EXPECT_EQ(t->spacingYM, 30.0);
    EXPECT_EQ(t->HeightAt(0, 0), 1015.0f);  // south-west: the file's last row
    // Easting 500000 is the central meridian; northing 4000000 m is near 36.1 N.
    EXPECT_NEAR(t->geo.lonMinDeg, -99.0, 1e-6);
    EXPECT_GT(t->geo.latMinDeg, 36.0);
    EXPECT_LT(t->geo.latMaxDeg, 36.2);
    double metresPerDegreeLon = metresPerDegreeLat * std::cos(36.1 * std::numbers::pi / 180.0);
    EXPECT_NEAR((t->geo.lonMaxDeg - t->geo.lonMinDeg) * metresPerDegreeLon, 150.0, 1.5);
    EXPECT_NEAR((t->geo.latMaxDeg - t->geo.latMinDeg) * metresPerDegreeLat, 120.0, 1.2);
}

TEST(GdalImport, ConvertsFeetAndAppliesTheBandScaleAndOffset) {
    TempDir dir;
    std::string path = dir.File("feet.tif");
    RasterSpec spec = GeographicSpec();
    spec.nodata.reset();
    spec.values[1 * 4 + 1] = 60.0;
    {
        GDALDatasetUniquePtr ds = CreateGeoTiff(path, spec);
        GDALRasterBand* band = ds->GetRasterBand(1);
        band->SetUnitType("ft");
        band->SetScale(0.5);
        band->SetOffset(10.0);
    }
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_NEAR(t->HeightAt(3, 2), (10.0 + 0.5 * 40.0) * 0.3048, 1e-5);
    EXPECT_NEAR(t->HeightAt(0, 0), (10.0 + 0.5 * -5.0) * 0.3048, 1e-5);
}

/// Writes an SRTM3 tile (1201 x 1201 big-endian int16, row 0 north) with height row + column
/// and a void (-32768) at row 600, column 600.
void WriteSrtm3(const std::string& path) {
    constexpr int n = 1201;
    std::vector<char> bytes(2 * n * n);
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            auto v = static_cast<std::uint16_t>(r == 600 && c == 600 ? -32768 : r + c);
            bytes[2 * (r * n + c)] = static_cast<char>(v >> 8);
            bytes[2 * (r * n + c) + 1] = static_cast<char>(v & 0xFF);
        }
    }
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::ssize(bytes));
}

TEST(GdalImport, ReadsAnSrtmTileAndFillsItsVoid) {
    TempDir dir;
    std::string path = dir.File("N36W099.hgt");
    WriteSrtm3(path);
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->name, "N36W099");
    EXPECT_EQ(t->nx, 1201);
    EXPECT_EQ(t->ny, 1201);
    // 3 arc-second posts centred on whole degrees: the outer edges are half a post further.
    double halfPostDeg = 0.5 / 1200;
    EXPECT_NEAR(t->geo.lonMinDeg, -99.0 - halfPostDeg, 1e-9);
    EXPECT_NEAR(t->geo.latMaxDeg, 37.0 + halfPostDeg, 1e-9);
    SpacingM expected = EquirectangularSpacingM(3.0 / 3600, 3.0 / 3600, 36.5);
    EXPECT_NEAR(t->spacingXM, expected.xM, 1e-6);
    EXPECT_NEAR(t->spacingYM, expected.yM, 1e-6);
    EXPECT_EQ(t->HeightAt(10, 1200 - 5), 15.0f);  // row 5, column 10
    // The void's neighbours are 1199 and 1201 on each side: the plane is filled back in.
    EXPECT_NEAR(t->HeightAt(600, 600), 1200.0f, 1.0f);
}

TEST(GdalImport, ReadsAnEsriAsciiGridWithoutCrsInMetres) {
    TempDir dir;
    std::string path = dir.File("grid.asc");
    std::ofstream(path) << "ncols 3\nnrows 2\nxllcorner 500000\nyllcorner 4000000\n"
                           "cellsize 10\nNODATA_value -9999\n"
                           "1 2 3\n"
                           "4 -9999 6\n";
    Expected<Terrain> t = ImportGdal(path);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->nx, 3);
    EXPECT_EQ(t->ny, 2);
    EXPECT_EQ(t->spacingXM, 10.0);
    EXPECT_EQ(t->spacingYM, 10.0);
    EXPECT_EQ(t->geo.lonMinDeg, 0.0);  // no CRS: no geographic extent
    EXPECT_EQ(t->geo.latMaxDeg, 0.0);
    EXPECT_EQ(t->HeightAt(0, 0), 4.0f);  // the last line is the south row
    EXPECT_EQ(t->HeightAt(2, 1), 3.0f);
    EXPECT_GE(t->HeightAt(1, 0), 2.0f);  // filled from 4, 6 and 2
    EXPECT_LE(t->HeightAt(1, 0), 6.0f);
}

TEST(GdalImport, RejectsAnAllNodataRaster) {
    TempDir dir;
    std::string path = dir.File("empty.asc");
    std::ofstream(path) << "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 10\n"
                           "NODATA_value -9999\n-9999 -9999\n-9999 -9999\n";
    EXPECT_EQ(ImportError(path), "raster '" + path + "': every post is nodata");
}

// A NaN post is nodata (filled like a declared one); infinite or absurd heights are refused,
// counted, with the first named, as an undeclared nodata value would be.
TEST(GdalImport, NanIsNodataButInfiniteAndAbsurdHeightsAreRefused) {
    TempDir dir;
    RasterSpec spec = GeographicSpec();
    spec.values[5] = std::numeric_limits<double>::quiet_NaN();
    std::string path = dir.File("nan.tif");
    WriteGeoTiff(path, spec);
    EXPECT_EQ(ImportError(path), "");
    spec.values[2] = std::numeric_limits<double>::infinity();
    spec.values[7] = -3.4e38;
    path = dir.File("inf.tif");
    WriteGeoTiff(path, spec);
    std::string message = ImportError(path);
    EXPECT_TRUE(Contains(message, "raster '" + path +
                                      "': 2 posts are not nodata or heights >= -100000 and <= "
                                      "100000 m; the first is inf at row 0, column 2"))
        << message;
    EXPECT_TRUE(Contains(message, "gdal_translate -a_nodata")) << message;
}

TEST(GdalImport, RejectsAMissingFileQuietly) {
    TempDir dir;
    std::string path = dir.File("none.tif");
    testing::internal::CaptureStderr();
    std::string error = ImportError(path);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_TRUE(error.starts_with("GDAL could not open '" + path + "': ")) << error;
    EXPECT_TRUE(Contains(error, "No such file or directory")) << error;
}

TEST(GdalImport, RejectsATextFileNamedTif) {
    TempDir dir;
    std::string path = dir.File("fake.tif");
    std::ofstream(path) << "not really a tiff\n";
    testing::internal::CaptureStderr();
    std::string error = ImportError(path);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_TRUE(error.starts_with("GDAL could not open '" + path + "': ")) << error;
    EXPECT_TRUE(Contains(error, "not recognized as a supported file format")) << error;
}

TEST(GdalImport, RejectsARasterWithoutGeoTransform) {
    TempDir dir;
    std::string path = dir.File("plain.tif");
    RasterSpec spec = GeographicSpec();
    spec.geoTransform.reset();
    spec.epsg = 0;
    WriteGeoTiff(path, spec);
    EXPECT_TRUE(Contains(ImportError(path), "has no georeference (no geotransform)"))
        << ImportError(path);
}

TEST(GdalImport, RejectsARotatedRaster) {
    TempDir dir;
    std::string path = dir.File("rotated.tif");
    RasterSpec spec = GeographicSpec();
    spec.geoTransform = GeoTransform{-99.0, 0.01, 0.001, 36.03, 0.001, -0.01};
    WriteGeoTiff(path, spec);
    EXPECT_TRUE(Contains(ImportError(path), "is rotated or sheared")) << ImportError(path);
}

TEST(GdalImport, RejectsASingleRow) {
    TempDir dir;
    std::string path = dir.File("row.tif");
    RasterSpec spec = GeographicSpec();
    spec.ny = 1;
    spec.values.resize(4);
    WriteGeoTiff(path, spec);
    EXPECT_EQ(ImportError(path),
              "raster '" + path + "': is 4 x 1 posts; each side must be 2..65536");
}

// An RGB photo was imported as heights 0-255 m: 3 or more 8-bit bands are refused as an image,
// as is a band of palette indices; a multi-band float raster (a netCDF series) is not.
TEST(GdalImport, RefusesAnImageAsHeights) {
    TempDir dir;
    RasterSpec spec = GeographicSpec();
    spec.nodata.reset();
    std::string rgb = dir.File("photo.tif");
    test_support::WriteImage(rgb, spec, [](int x, int y) {
        return std::array<int, 3>{10 * x, 20 * y, 30};
    });
    EXPECT_EQ(ImportError(rgb),
              "raster '" + rgb +
                  "': has 3 bands of Byte: an image, not heights (a DEM has one band of heights); "
                  "drape it with --texture over a DEM, or pass --any-raster to read band 1 as "
                  "heights");
    std::string paletted = dir.File("paletted.tif");
    {
        spec.type = GDT_Byte;
        GDALDatasetUniquePtr ds = CreateGeoTiff(paletted, spec);
        GDALColorTable table;
        ds->GetRasterBand(1)->SetColorTable(&table);
        ds->GetRasterBand(1)->SetColorInterpretation(GCI_PaletteIndex);
    }
    EXPECT_TRUE(Contains(ImportError(paletted), "holds palette indices")) << ImportError(paletted);
    std::string bands = dir.File("series.tif");
    spec.type = GDT_Float32;
    CreateGeoTiff(bands, spec, "GTiff", 3);
    EXPECT_EQ(ImportError(bands), "");
    GdalRowsOptions any;
    any.anyRaster = true;
    EXPECT_TRUE(OpenGdalRows(rgb, "", any).ok()) << "--any-raster reads band 1";
}

// A raster of one valid post was imported, the rest made up by the fill: under 1% valid posts,
// or under 4, is refused unless asked for.
TEST(GdalImport, RefusesARasterOfAlmostNoValidPosts) {
    TempDir dir;
    RasterSpec spec = GeographicSpec();
    spec.nx = spec.ny = 20;
    spec.values.assign(400, -9999.0);
    spec.values[7] = 50.0;
    spec.values[8] = 60.0;
    spec.geoTransform = GeoTransform{-99.0, 0.01, 0.0, 36.2, 0.0, -0.01};
    std::string path = dir.File("sparse.tif");
    WriteGeoTiff(path, spec);
    EXPECT_EQ(ImportError(path), "raster '" + path +
                                     "': only 2 of its 20 x 20 posts (0.5%) are valid, under 1% "
                                     "or 4: the rest would be made up by filling from them; pass "
                                     "--any-raster to import it anyway");
    Expected<std::unique_ptr<PostRowSource>> rows = OpenGdalRows(path, "", {});
    ASSERT_FALSE(rows.ok());
    EXPECT_TRUE(Contains(rows.error().message, "only 2 of its 20 x 20 posts")) << "streamed too";
    GdalRowsOptions any;
    any.anyRaster = true;
    any.scratchDir = dir.File("");
    EXPECT_TRUE(OpenGdalRows(path, "", any).ok());
}

// GDAL said only "not recognized as a supported file format" of a misnamed or mis-sized .hgt.
TEST(GdalImport, AnSrtmTileOfTheWrongNameOrSizeIsNamed) {
    TempDir dir;
    std::string misnamed = dir.File("tile.hgt");
    WriteSrtm3(misnamed);
    EXPECT_EQ(ImportError(misnamed),
              "SRTM tile '" + misnamed +
                  "': an .hgt file must be named for its south-west corner, latitude then "
                  "longitude in whole degrees (N36W099.hgt, S01E010.hgt), as GDAL reads its "
                  "position from the name; got 'tile.hgt'");
    std::string cut = dir.File("N36W099.hgt");
    std::ofstream(cut, std::ios::binary) << std::string(1000, '\0');
    EXPECT_EQ(ImportError(cut),
              "SRTM tile '" + cut +
                  "' is 1000 bytes; an .hgt tile holds 1201 x 1201 (3 arc-seconds, 2884802 "
                  "bytes) or 3601 x 3601 (1 arc-second, 25934402 bytes) big-endian 16-bit "
                  "heights");
}

// A negative cellsize was read as a mirror image of the grid; the format has no such thing.
TEST(GdalImport, RefusesANegativeCellSize) {
    TempDir dir;
    std::string path = dir.File("grid.asc");
    std::ofstream(path) << "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -30\n"
                           "1 2\n3 4\n";
    EXPECT_EQ(ImportError(path), "raster '" + path +
                                     "': its cellsize -30 is negative; an ESRI ASCII grid's "
                                     "must be > 0");
}

}  // namespace
}  // namespace bfv::terrain
