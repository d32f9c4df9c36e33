// OpenGdalRows, the streaming import of GDAL rasters: the same heights and the same pyramid
// file, byte for byte, as ImportGdal + BuildPyramid + WritePyramidFile, read a few rows at a
// time; and its errors.

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "terrain/gdal_import.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_pyramid.h"
#include "tests/gdal_raster.h"
#include "tests/temp_dir.h"

namespace bfv::terrain {
namespace {

namespace fs = std::filesystem;

using test_support::GeoTransform;
using test_support::RasterSpec;
using test_support::TempDir;
using test_support::WriteGeoTiff;

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

/// 150 x 110 posts of 30 m in UTM 13N, north-up, in 16 x 16 tiles: hills, a slope and
/// deterministic noise, some of it below sea level.
RasterSpec HillsSpec() {
    RasterSpec spec;
    spec.nx = 150;
    spec.ny = 110;
    spec.geoTransform = GeoTransform{500000.0, 30.0, 0.0, 4003300.0, 0.0, -30.0};
    spec.epsg = 32613;
    spec.tileSide = 16;
    std::uint32_t state = 12345;
    for (int r = 0; r < spec.ny; ++r) {
        for (int c = 0; c < spec.nx; ++c) {
            state = state * 1664525u + 1013904223u;
            double noiseM = (state >> 8) * (8.0 / (1u << 24)) - 4.0;
            spec.values.push_back(300.0 * std::sin(c / 17.0) * std::cos(r / 11.0) + 2.0 * c - 40.0 +
                                  noiseM);
        }
    }
    return spec;
}

/// The options the tests build with: 4 m finest posts, so that 4 levels are stored.
PyramidBuildOptions TestOptions() {
    PyramidBuildOptions options;
    options.finestSpacingM = 4.0;
    options.seed = 7;
    return options;
}

/// The rows of `source` as it serves them, strip by strip from the south edge.
std::vector<float> ReadAllRows(PostRowSource& source) {
    const SourceGrid& grid = source.Grid();
    std::vector<float> heightsM(static_cast<std::size_t>(grid.nx) * grid.ny);
    for (int j0 = 0; j0 < grid.ny;) {
        int count = source.StripRows(j0);
        EXPECT_GE(count, 1);
        EXPECT_LE(j0 + count, grid.ny);
        std::span<float> strip = std::span(heightsM).subspan(
            static_cast<std::size_t>(j0) * grid.nx, static_cast<std::size_t>(count) * grid.nx);
        Expected<void> read = source.ReadRows(j0, count, strip);
        EXPECT_TRUE(read.ok()) << read.error().message;
        j0 += count;
    }
    return heightsM;
}

/// Reading `stripPosts` posts at a time, filling nodata in `dir`.
GdalRowsOptions Options(int stripPosts, const TempDir& dir) {
    GdalRowsOptions options;
    options.stripPosts = stripPosts;
    options.scratchDir = dir.File("");
    return options;
}

/// The named files and folders of nodata filling in `dir` (none: the filled raster has no
/// name, and GDAL's work files go with their folder once the fill ends).
int ScratchFiles(const TempDir& dir) {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(dir.File(""))) {
        count += Contains(entry.path().filename().string(), ".fill") ? 1 : 0;
    }
    return count;
}

/// Imports `path` both ways, reading `stripPosts` posts at a time when streaming, and expects
/// the same terrain, the same rows and the same file, byte for byte; the nodata posts filled
/// when `filled`; and no named scratch file in `dir`, while the raster is open or after.
void ExpectStreamingMatchesInMemory(const TempDir& dir, const std::string& path, int stripPosts,
                                    bool filled = false) {
    Expected<Terrain> terrain = ImportGdal(path);
    ASSERT_TRUE(terrain.ok()) << terrain.error().message;
    Expected<Pyramid> pyramid = BuildPyramid(*terrain, TestOptions());
    ASSERT_TRUE(pyramid.ok()) << pyramid.error().message;
    ASSERT_GE(pyramid->info.storedLevels, 3);
    std::string inMemory = dir.File("in-memory.bfvp"), streamed = dir.File("streamed.bfvp");
    ASSERT_TRUE(WritePyramidFile(inMemory, *pyramid).ok());

    GdalRowsOptions options = Options(stripPosts, dir);
    long long filledPermille = 0;
    options.fillProgress = [&](long long done, long long total) {
        EXPECT_EQ(total, 1000);
        filledPermille = done;
    };
    Expected<std::unique_ptr<PostRowSource>> rows = OpenGdalRows(path, "", options);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(ScratchFiles(dir), 0);
    EXPECT_EQ(filledPermille, filled ? 1000 : 0) << "fill progress";
    const SourceGrid& grid = (*rows)->Grid();
    EXPECT_EQ(grid.name, terrain->name);
    EXPECT_EQ(grid.nx, terrain->nx);
    EXPECT_EQ(grid.ny, terrain->ny);
    EXPECT_EQ(grid.spacingXM, terrain->spacingXM);
    EXPECT_EQ(grid.spacingYM, terrain->spacingYM);
    EXPECT_EQ(grid.geo.lonMinDeg, terrain->geo.lonMinDeg);
    EXPECT_EQ(grid.geo.latMaxDeg, terrain->geo.latMaxDeg);
    EXPECT_EQ(ReadAllRows(**rows), terrain->heightsM);

    Expected<PyramidBuild> built = WritePyramidFileFromRows(streamed, **rows, TestOptions());
    ASSERT_TRUE(built.ok()) << built.error().message;
    HeightRange range = ComputeHeightRange(*terrain);
    EXPECT_EQ(built->sourceHeightsM.minM, range.minM);
    EXPECT_EQ(built->sourceHeightsM.maxM, range.maxM);
    EXPECT_EQ(built->info.coding.offsetM, pyramid->info.coding.offsetM);
    Expected<std::vector<std::byte>> expected = common::ReadFileBytes(inMemory);
    Expected<std::vector<std::byte>> actual = common::ReadFileBytes(streamed);
    ASSERT_TRUE(expected.ok() && actual.ok());
    EXPECT_EQ(actual->size(), expected->size());
    EXPECT_TRUE(*actual == *expected) << "the streamed pyramid file differs";
    EXPECT_TRUE(PyramidFile::Open(streamed).ok());
    rows->reset();
    EXPECT_EQ(ScratchFiles(dir), 0);
}

// North-up in 16-row tiles, read 20 rows at a time: strips of whole blocks, their north edges
// on block edges although the raster's 110 rows are not a whole number of blocks.
TEST(GdalRows, ANorthUpTiledRasterStreamsToTheSameFileAsInMemory) {
    TempDir dir;
    std::string path = dir.File("hills.tif");
    WriteGeoTiff(path, HillsSpec());
    ExpectStreamingMatchesInMemory(dir, path, 150 * 20);
}

// Row 0 south and column 0 east (a positive north-south and a negative east-west pixel size),
// GDAL's strips, read 7 rows at a time.
TEST(GdalRows, ASouthUpEastToWestRasterStreamsToTheSameFileAsInMemory) {
    TempDir dir;
    std::string path = dir.File("mirrored.tif");
    RasterSpec spec = HillsSpec();
    spec.tileSide = 0;
    spec.geoTransform = GeoTransform{504500.0, -30.0, 0.0, 4000000.0, 0.0, 30.0};
    WriteGeoTiff(path, spec);
    ExpectStreamingMatchesInMemory(dir, path, 150 * 7);
}

// Nodata posts are filled as ImportGdal fills them, but in a raster on disk, in the scratch
// directory, without a name (a killed import leaves nothing), which goes with the source.
TEST(GdalRows, ARasterWithNodataStreamsToTheSameFileAsInMemory) {
    TempDir dir;
    std::string path = dir.File("holes.tif");
    RasterSpec spec = HillsSpec();
    spec.nodata = -9999.0;
    for (int r = 40; r < 55; ++r) {
        for (int c = 60; c < 90; ++c)
            spec.values[static_cast<std::size_t>(r) * spec.nx + c] = -9999.0;
    }
    spec.values[0] = -9999.0;
    WriteGeoTiff(path, spec);
    ExpectStreamingMatchesInMemory(dir, path, 150 * 16, true);
}

// Checking the heights at open reports rows done out of all rows, ending at all of them.
TEST(GdalRows, OpeningReportsProgressOverTheRows) {
    TempDir dir;
    std::string path = dir.File("hills.tif");
    WriteGeoTiff(path, HillsSpec());
    long long last = 0, calls = 0;
    GdalRowsOptions options;
    options.stripPosts = 150 * 32;
    options.progress = [&](long long done, long long total) {
        EXPECT_GT(done, last);
        EXPECT_EQ(total, 110);
        last = done;
        ++calls;
    };
    Expected<std::unique_ptr<PostRowSource>> rows = OpenGdalRows(path, "", options);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(last, 110);
    EXPECT_EQ(calls, 4) << "110 rows in strips of 32";
}

// `stop` ends the opening, while the heights are checked or while the nodata posts are
// filled (GDALFillNodata's progress asks it); the error says so and no scratch file is left.
TEST(GdalRows, StopEndsTheCheckOrTheFillAndLeavesNoScratchFile) {
    TempDir dir;
    std::string path = dir.File("holes.tif");
    RasterSpec spec = HillsSpec();
    spec.nodata = -9999.0;
    for (int c = 10; c < 30; ++c) spec.values[static_cast<std::size_t>(50) * spec.nx + c] = -9999.0;
    WriteGeoTiff(path, spec);
    for (bool duringFill : {false, true}) {
        GdalRowsOptions options = Options(150 * 8, dir);
        bool filling = false;
        options.fillProgress = [&](long long, long long) { filling = true; };
        options.stop = [&] { return !duringFill || filling; };
        Expected<std::unique_ptr<PostRowSource>> rows = OpenGdalRows(path, "", options);
        ASSERT_FALSE(rows.ok());
        EXPECT_EQ(rows.error().message, "raster '" + path + "': stopped");
        EXPECT_EQ(filling, duringFill);
        EXPECT_EQ(dir.EntryCount(), 1) << "only the raster";
    }
}

// The errors are ImportGdal's, for the same rasters.
TEST(GdalRows, RefusesWhatImportGdalRefusesWithTheSameError) {
    TempDir dir;
    std::string notRaster = dir.File("fake.tif");
    std::ofstream(notRaster) << "not really a tiff";
    std::string tooHigh = dir.File("too-high.tif");
    RasterSpec spec = HillsSpec();
    spec.values[5 * spec.nx + 3] = 3e38;
    WriteGeoTiff(tooHigh, spec);
    std::string allNodata = dir.File("all-nodata.tif");
    spec = HillsSpec();
    spec.nodata = -9999.0;
    spec.values.assign(spec.values.size(), -9999.0);
    WriteGeoTiff(allNodata, spec);
    for (const std::string& path : {notRaster, tooHigh, allNodata, dir.File("missing.tif")}) {
        Expected<Terrain> terrain = ImportGdal(path);
        Expected<std::unique_ptr<PostRowSource>> rows =
            OpenGdalRows(path, "", Options(150 * 8, dir));
        ASSERT_FALSE(terrain.ok()) << path;
        ASSERT_FALSE(rows.ok()) << path;
        EXPECT_EQ(rows.error().message, terrain.error().message);
    }
    EXPECT_TRUE(Contains(OpenGdalRows(tooHigh).error().message,
                         "1 post is not nodata or heights >= -100000 and <= 100000 m; the first "
                         "is 3e+38 at row 5, column 3"))
        << OpenGdalRows(tooHigh).error().message;
    EXPECT_TRUE(Contains(OpenGdalRows(allNodata).error().message, "every post is nodata"));
}

// A GeoTIFF cut short: its header and first rows read, then GDAL fails; the error names the
// raster, the rows and GDAL's reason.
TEST(GdalRows, ATruncatedGeoTiffIsAReadErrorNamingTheRows) {
    TempDir dir;
    std::string path = dir.File("cut.tif");
    RasterSpec spec = HillsSpec();
    spec.tileSide = 0;
    WriteGeoTiff(path, spec);
    fs::resize_file(path, fs::file_size(path) / 2);
    Expected<std::unique_ptr<PostRowSource>> rows = OpenGdalRows(path, "", Options(150 * 8, dir));
    ASSERT_FALSE(rows.ok());
    EXPECT_TRUE(Contains(rows.error().message, "raster '" + path + "': cannot read rows "))
        << rows.error().message;
}

}  // namespace
}  // namespace bfv::terrain
