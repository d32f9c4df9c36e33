// Runs the real `bfv import` (BFV_BINARY) as a child process and checks exit codes, messages
// and the files it leaves.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "terrain/pyramid_file.h"
#include "tests/npy_image.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::TempDir;

const std::string jacksboroPath =
    "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz";
// Arrays `topo`, `longitude` (0..360 degrees), `latitude` (Mercator-spaced), no `elevation`.
const std::string topobathyPath = "/usr/share/matplotlib/mpl-data/sample_data/topobathy.npz";

/// Runs `bfv import ARGUMENTS OUTPUT`, the output t.bfvp in `dir`.
RunResult ImportIntoDir(const TempDir& dir, const std::string& arguments) {
    return RunBfv("import " + arguments + " " + Quote(dir.File("t.bfvp")));
}

/// Runs `bfv import ARGUMENTS OUTPUT` as ImportIntoDir does, expects it to fail, and returns
/// what it printed on standard error.
std::string RefusedImport(const TempDir& dir, const std::string& arguments) {
    RunResult run = ImportIntoDir(dir, arguments);
    EXPECT_NE(run.exitCode, 0) << arguments;
    return run.err;
}

/// Writes `contents` as the file `name` in `dir` and returns its path.
std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& contents) {
    std::string path = dir.File(name);
    std::ofstream(path) << contents;
    return path;
}

TEST(ImportCommand, BinaryExists) {
    ASSERT_TRUE(fs::exists(BFV_BINARY)) << "build the bfv target first: " << BFV_BINARY;
}

TEST(ImportCommand, ImportsTheJacksboroDem) {
    TempDir dir;
    std::string output = dir.File("jacksboro.bfvp");
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "403 x 344")) << run.out;
    EXPECT_TRUE(Contains(run.out, "236.0 to 1076.0 m")) << run.out;
    EXPECT_TRUE(Contains(run.out, "10 levels, 512 m to 1 m post spacing")) << run.out;
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().name, "jacksboro_fault_dem");
    EXPECT_EQ(file->Info().geometry.levelCount, 10);
    EXPECT_EQ(file->Info().storedLevels, 4);
    EXPECT_EQ(file->TileCount(), 85);
    EXPECT_TRUE(file->VerifyAllTiles().ok());
    EXPECT_EQ(dir.EntryCount(), 1);  // no temporary file left
}

TEST(ImportCommand, FinestSpacingSetsTheLevelCountAndMustBePositive) {
    TempDir dir;
    std::string output = dir.File("coarse.bfvp");
    RunResult run =
        RunBfv("import --finest-spacing 4 " + Quote(jacksboroPath) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().geometry.levelCount, 8);  // 256 m down to 4 m posts
    EXPECT_DOUBLE_EQ(file->Info().geometry.SpacingM(7), 4.0);
    run = RunBfv("import --finest-spacing 0 " + Quote(jacksboroPath) + " " +
                 Quote(dir.File("bad.bfvp")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "--finest-spacing: must be > 0 and <= 100000 m, got 0"))
        << run.err;
    EXPECT_EQ(dir.EntryCount(), 1);  // nothing half-written
}

// A pyramid no finer than the DEM's stored levels has nothing refined, and says so.
TEST(ImportCommand, TheSummaryNamesRefinedLevelsOnlyWhenThereAreAny) {
    TempDir dir;
    RunResult fine = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(dir.File("a.bfvp")));
    ASSERT_EQ(fine.exitCode, 0) << fine.err;
    EXPECT_TRUE(Contains(fine.out, "levels 0-3 from the DEM, 4-9 refined fractally")) << fine.out;
    RunResult coarse = RunBfv("import --finest-spacing 64 " + Quote(jacksboroPath) + " " +
                              Quote(dir.File("b.bfvp")));
    ASSERT_EQ(coarse.exitCode, 0) << coarse.err;
    EXPECT_TRUE(Contains(coarse.out, "64 m post spacing; levels 0-")) << coarse.out;
    EXPECT_FALSE(Contains(coarse.out, "refined")) << coarse.out;
}

// Finer than 20 levels allow for this terrain: the error gives the finest spacing it allows.
TEST(ImportCommand, AFinestSpacingNeedingTooManyLevelsIsRefusedWithTheLimit) {
    TempDir dir;
    std::string err = RefusedImport(dir, "--finest-spacing 0.0001 " + Quote(jacksboroPath));
    EXPECT_TRUE(Contains(err,
                         "needs more than 20 levels at a finest spacing of 0.0001 m: "
                         "the finest spacing must be >= "))
        << err;
    EXPECT_EQ(dir.EntryCount(), 0);
}

// Each numeric option is refused outside its range with the option, the range and the value,
// before any input is read or output written.
TEST(ImportCommand, OutOfRangeOptionsNameTheirRange) {
    TempDir dir;
    std::string input = WriteFile(dir, "h.png", "never read");
    struct Case {
        const char* options;
        const char* message;
    } cases[] = {
        {"--spacing 2 --height-scale 0", "--height-scale: must be > 0 and <= 10 m, got 0"},
        {"--spacing 2 --height-scale nan", "--height-scale: must be > 0 and <= 10 m, got nan"},
        {"--spacing 2 --height-scale -0.5", "--height-scale: must be > 0 and <= 10 m, got -0.5"},
        {"--spacing 2 --height-offset 1e9",
         "--height-offset: must be >= -100000 and <= 100000 m, got 1e9"},
        {"--spacing inf", "--spacing: must be > 0 and <= 100000 m, got inf"},
        {"--spacing 2 --finest-spacing -3",
         "--finest-spacing: must be > 0 and <= 100000 m, got -3"},
        {"--spacing 2 --roughness-scale 1e300",
         "--roughness-scale: must be >= 0 and <= 100, got 1e300"},
    };
    for (const Case& c : cases) {
        RunResult run = ImportIntoDir(dir, std::string(c.options) + " " + Quote(input));
        EXPECT_NE(run.exitCode, 0) << c.options;
        EXPECT_TRUE(Contains(run.err, c.message)) << c.options << ": " << run.err;
        EXPECT_EQ(dir.EntryCount(), 1) << c.options;  // only the input
    }
}

TEST(ImportCommand, ForceOverwritesAnExistingOutput) {
    TempDir dir;
    std::string output = WriteFile(dir, "t.bfvp", "old");
    RunResult run = ImportIntoDir(dir, "--force " + Quote(jacksboroPath));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(terrain::PyramidFile::Open(output).ok());
}

TEST(ImportCommand, RefusesToOverwriteWithoutForce) {
    TempDir dir;
    std::string output = WriteFile(dir, "t.bfvp", "old");
    std::string err = RefusedImport(dir, Quote(jacksboroPath));
    EXPECT_TRUE(Contains(err, "bfv import: output '" + output + "' already exists")) << err;
    EXPECT_EQ(test_support::Slurp(output), "old");
}

TEST(ImportCommand, RejectsAnUnknownExtension) {
    TempDir dir;
    std::string input = WriteFile(dir, "cloud.las", "a point cloud");
    std::string err = RefusedImport(dir, Quote(input));
    EXPECT_TRUE(Contains(err, "bfv import: input '" + input + "': unsupported format '.las'"))
        << err;
    EXPECT_TRUE(Contains(err, "supported: .npz")) << err;
    EXPECT_TRUE(Contains(err, ".tif (GeoTIFF)")) << err;
    EXPECT_EQ(dir.EntryCount(), 1);  // only the input
}

TEST(ImportCommand, RejectsAMissingInput) {
    TempDir dir;
    std::string err = RefusedImport(dir, Quote(dir.File("none.npz")));
    EXPECT_TRUE(Contains(err, "does not exist")) << err;
    EXPECT_EQ(dir.EntryCount(), 0);
}

TEST(ImportCommand, ReportsACorruptInputAndWritesNothing) {
    TempDir dir;
    std::string input = WriteFile(dir, "bad.npz", "not a zip");
    std::string err = RefusedImport(dir, Quote(input));
    EXPECT_TRUE(Contains(err, "bfv import: npz '" + input + "': not a zip archive")) << err;
    EXPECT_EQ(dir.EntryCount(), 1);
}

/// Writes a 3 x 2 ESRI ASCII grid of 10 m cells (no .prj: metres) at `path`.
void WriteAsciiGrid(const std::string& path) {
    std::ofstream(path) << "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 10\n"
                           "NODATA_value -9999\n1 2 3\n4 -9999 -6\n";
}

TEST(ImportCommand, ImportsAnEsriAsciiGridThroughGdal) {
    TempDir dir;
    std::string input = dir.File("grid.asc");
    WriteAsciiGrid(input);
    std::string output = dir.File("grid.bfvp");
    RunResult run = RunBfv("import " + Quote(input) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "3 x 2")) << run.out;
    EXPECT_TRUE(Contains(run.out, "10.00 m east-west, 10.00 m south-north")) << run.out;
    EXPECT_TRUE(Contains(run.out, "-6.0 to")) << run.out;  // bathymetry kept
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().name, "grid");
}

// GDAL is a module (common/module.h) that only what reads through it loads: the dynamic
// loader's own record (LD_DEBUG=files) shows it opened for a raster, and not for `bfv info`.
TEST(ImportCommand, OnlyAnImportThroughGdalLoadsGdal) {
    TempDir dir;
    std::string input = dir.File("grid.asc");
    WriteAsciiGrid(input);
    std::string output = dir.File("grid.bfvp");
    std::string traced = "env LD_DEBUG=files " + Quote(BFV_BINARY);
    RunResult import = RunCommand(traced + " import " + Quote(input) + " " + Quote(output));
    ASSERT_EQ(import.exitCode, 0) << import.err;
    EXPECT_TRUE(Contains(import.err, "libbfv_gdal.so")) << import.err;
    EXPECT_TRUE(Contains(import.err, "libgdal.so")) << import.err;
    EXPECT_FALSE(Contains(import.err, "libsimgrid")) << import.err;
    RunResult info = RunCommand(traced + " info " + Quote(output));
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_FALSE(Contains(info.err, "libgdal")) << info.err;
    EXPECT_FALSE(Contains(info.err, "libsimgrid")) << info.err;
}

TEST(ImportCommand, ReportsGdalsMessageForAnUnreadableRaster) {
    TempDir dir;
    std::string input = WriteFile(dir, "fake.tif", "not really a tiff");
    std::string err = RefusedImport(dir, Quote(input));
    EXPECT_TRUE(err.starts_with("bfv import: GDAL could not open '" + input + "': ")) << err;
    EXPECT_TRUE(Contains(err, "not recognized as a supported file format")) << err;
    EXPECT_EQ(test_support::Occurrences(err, "\n"), 1) << err;  // no GDAL chatter
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(ImportCommand, APngOrNpyNeedsSpacing) {
    for (auto [name, what] : {std::pair{"h.png", "a PNG heightmap"}, {"h.npy", "a .npy array"}}) {
        TempDir dir;
        std::string input = WriteFile(dir, name, "never read");
        std::string err = RefusedImport(dir, Quote(input));
        EXPECT_TRUE(Contains(err, "bfv import: input '" + input + "': " + what +
                                      " has no georeference: give --spacing METRES"))
            << err;
        EXPECT_EQ(dir.EntryCount(), 1);
    }
}

// --spacing and the other PNG options, and --array, are refused for formats they do not
// apply to, before anything is written.
TEST(ImportCommand, FormatSpecificOptionsAreRejectedForOtherFormats) {
    TempDir dir;
    std::string input = dir.File("grid.asc");
    WriteAsciiGrid(input);
    for (auto [options, message] :
         {std::pair{"--spacing 5",
                    "--spacing, --height-scale and --height-offset apply to PNG "
                    "heightmaps only"},
          {"--array z", "--array applies to .npz, .nc and .grd files only"}}) {
        std::string err = RefusedImport(dir, std::string(options) + " " + Quote(input));
        EXPECT_TRUE(Contains(err, "bfv import: input '" + input + "': " + message)) << err;
        EXPECT_EQ(dir.EntryCount(), 1);
    }
}

TEST(ImportCommand, RejectsANonPositiveSpacing) {
    TempDir dir;
    std::string input = WriteFile(dir, "h.png", "never read");
    std::string err = RefusedImport(dir, "--spacing -1 " + Quote(input));
    EXPECT_TRUE(Contains(err, "--spacing: must be > 0 and <= 100000 m, got -1")) << err;
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(ImportCommand, RefusesImageryItCannotDrapeAndWritesNothing) {
    TempDir dir;
    std::string grey = dir.File("grey.pgm");  // one band: not colour
    std::ofstream(grey, std::ios::binary) << "P5\n4 4\n255\n" << std::string(16, char(90));
    std::string output = dir.File("t.bfvp");
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output) + " --texture " +
                           Quote(grey));
    EXPECT_EQ(run.exitCode, 1);
    EXPECT_EQ(run.err, "bfv import: imagery '" + grey +
                           "': 1 band, expected 3 (RGB) or 4 (RGBA); a paletted image converts "
                           "with `gdal_translate -expand rgb`\n");
    EXPECT_FALSE(fs::exists(output));
    run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output) + " --texture " +
                 Quote(dir.File("none.tif")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "--texture: File does not exist")) << run.err;
    EXPECT_FALSE(fs::exists(output));
    EXPECT_EQ(dir.EntryCount(), 1);  // the image only
}

TEST(ImportCommand, DrapesImageryAndBfvInfoShowsItsPalette) {
    TempDir dir;
    std::string image = dir.File("halves.ppm");  // west half wheat, east half forest
    std::string pixels;
    for (int y = 0; y < 8; ++y) {
        for (int x = 0; x < 8; ++x) {
            pixels += x < 4 ? std::string{char(200), char(180), char(110)}
                            : std::string{char(30), char(70), char(35)};
        }
    }
    std::ofstream(image, std::ios::binary) << "P6\n8 8\n255\n" << pixels;
    std::string output = dir.File("draped.bfvp");
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output) + " --texture " +
                           Quote(image));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(
        Contains(run.out, "imagery  " + image +
                              " draped, stretched over the DEM (the image has no "
                              "georeference), over levels 0-3 (to 64 m posts); palette of "))
        << run.out;
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_TRUE(file->Info().Textured());
    auto root = file->ReadTile({0, 0, 0});
    ASSERT_TRUE(root.ok());
    // The root tile's posts a quarter of the data area in from the west and east edges.
    double spacingM = file->Info().geometry.SpacingM(0);
    auto colourAt = [&](double xM) {
        int i = static_cast<int>(std::lround(xM / spacingM)) + terrain::kTileBorder;
        std::uint8_t index = root->materials[(terrain::kTileBorder + 20) * terrain::kTilePosts + i];
        return common::HexColour(file->Info().landColours.at(index));
    };
    EXPECT_EQ(colourAt(0.25 * file->Info().dataWidthM), "#c8b46e");  // wheat
    EXPECT_EQ(colourAt(0.75 * file->Info().dataWidthM), "#1e4623");  // forest
    RunResult info = RunBfv("info " + Quote(output));
    ASSERT_EQ(info.exitCode, 0) << info.err;
    EXPECT_TRUE(Contains(info.out, "version 3")) << info.out;
    EXPECT_TRUE(Contains(info.out, "imagery      draped, palette of ")) << info.out;
}

// Imagery finer than the DEM is kept down to the level whose posts match its pixels: a
// 2048-pixel image over the 30 km DEM (15 m pixels) drapes levels 4 and 5 (32 and 16 m posts)
// beyond the 4 stored ones, their tiles holding the image's colours.
TEST(ImportCommand, ImageryFinerThanTheDemIsKeptDownToItsPixels) {
    TempDir dir;
    std::string image = dir.File("stripes.ppm");  // 64-pixel (about 1 km) stripes, west to east
    constexpr int kSide = 2048;
    std::string row;
    for (int x = 0; x < kSide; ++x) {
        row += x / 64 % 2 == 0 ? std::string{char(220), char(200), char(60)}
                               : std::string{char(30), char(60), char(140)};
    }
    std::ofstream out(image, std::ios::binary);
    out << "P6\n" << kSide << " " << kSide << "\n255\n";
    for (int y = 0; y < kSide; ++y) out << row;
    out.close();
    std::string output = dir.File("fine.bfvp");
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output) + " --texture " +
                           Quote(image));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "over levels 0-5 (to 16 m posts)")) << run.out;
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().drapedLevels, 6);
    EXPECT_EQ(file->TileCount(), 1 + 4 + 16 + 64 + 256 + 1024);
    // Level 5's posts take the stripe they stand in: yellow or blue, exactly.
    auto tile = file->ReadTile({5, 3, 10});
    ASSERT_TRUE(tile.ok()) << tile.error().message;
    EXPECT_TRUE(tile->codes.empty());
    double spacingM = file->Info().geometry.SpacingM(5), widthM = file->Info().dataWidthM;
    int checked = 0;
    for (int i = 0; i < terrain::kTilePosts; ++i) {
        double xM = terrain::TileOriginM(3, spacingM) + i * spacingM;
        double pixel = xM / widthM * kSide;
        if (std::abs(std::fmod(pixel, 64.0)) < 4 || std::abs(std::fmod(pixel, 64.0)) > 60) continue;
        bool yellow = static_cast<int>(pixel) / 64 % 2 == 0;
        std::uint8_t index = tile->materials[30 * terrain::kTilePosts + i];
        EXPECT_EQ(common::HexColour(file->Info().landColours.at(index)),
                  yellow ? "#dcc83c" : "#1e3c8c")
            << "post " << i;
        ++checked;
    }
    EXPECT_GT(checked, 40);
    RunResult info = RunBfv("info " + Quote(output));
    EXPECT_TRUE(Contains(info.out, "5          16.000              32  fractal, imagery"))
        << info.out;
    EXPECT_TRUE(Contains(
        info.out, "stored tiles 1365 (85 of the DEM's levels, 1280 of draped fractal levels)"))
        << info.out;
}

TEST(ImportCommand, HelpListsFormatsAndPngOptions) {
    RunResult run = RunBfv("import --help");
    EXPECT_EQ(run.exitCode, 0);
    for (const char* part :
         {".tif (GeoTIFF)", ".hgt", ".asc", ".png", ".npy", "--spacing", "--height-scale",
          "--height-offset", "--array", "elevation, topo, z, height, dem, heights, elev"}) {
        EXPECT_TRUE(Contains(run.out, part)) << part << " missing from:\n" << run.out;
    }
}

TEST(ImportCommand, HelpShowsAnExample) {
    RunResult run = RunBfv("import --help");
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.out, "bfv import /usr/share/matplotlib")) << run.out;
}

// matplotlib's topobathy.npz: the elevation array found by its name `topo`, the georeference
// from its longitude and latitude arrays.
TEST(ImportCommand, ImportsTopobathyFromItsCoordinateArrays) {
    if (!fs::exists(topobathyPath)) GTEST_SKIP() << topobathyPath << " is not installed";
    TempDir dir;
    std::string output = dir.File("topobathy.bfvp");
    RunResult run = RunBfv("import " + Quote(topobathyPath) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "120 x 91")) << run.out;
    EXPECT_TRUE(Contains(run.out, "lon -125.99997 to -121.99993 deg, lat 48.00544 to 49.99511"))
        << run.out;
    auto file = terrain::PyramidFile::Open(output);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const terrain::PyramidInfo& info = file->Info();
    EXPECT_EQ(info.name, "topobathy");
    EXPECT_NEAR(info.geo.lonMinDeg, -126.0, 1e-3);
    EXPECT_NEAR(info.geo.lonMaxDeg, -122.0, 1e-3);
    EXPECT_NEAR(info.geo.latMinDeg, 48.005, 1e-3);
    EXPECT_NEAR(info.geo.latMaxDeg, 49.995, 1e-3);
    // 4 degrees of longitude at 49 N, 2 degrees of latitude: about 292 x 222 km.
    EXPECT_NEAR(info.dataWidthM, 292e3, 2e3);
    EXPECT_NEAR(info.dataDepthM, 221.5e3, 2e3);
    EXPECT_LT(info.minHeightM, -1000.0f);  // sea floor
    EXPECT_GT(info.maxHeightM, 2000.0f);
    EXPECT_TRUE(file->VerifyAllTiles().ok());
}

TEST(ImportCommand, AnUnknownArrayIsRefusedListingTheArraysAndWritesNothing) {
    if (!fs::exists(topobathyPath)) GTEST_SKIP() << topobathyPath << " is not installed";
    TempDir dir;
    std::string err = RefusedImport(dir, "--array bathy " + Quote(topobathyPath));
    EXPECT_EQ(err, "bfv import: npz '" + topobathyPath +
                       "': no array 'bathy' (arrays present: topo, longitude, latitude)\n");
    EXPECT_EQ(dir.EntryCount(), 0);
}

TEST(ImportCommand, TheArrayOptionNamesTheElevationArray) {
    if (!fs::exists(topobathyPath)) GTEST_SKIP() << topobathyPath << " is not installed";
    TempDir dir;
    RunResult run = ImportIntoDir(dir, "--array topo " + Quote(topobathyPath));
    EXPECT_EQ(run.exitCode, 0) << run.err;
}

TEST(ImportCommand, ImportsABareNpyArrayWithSpacing) {
    TempDir dir;
    std::string input = dir.File("h.npy");
    std::ofstream(input, std::ios::binary)
        << test_support::Npy("<f4", "(2, 3)", test_support::RawBytes<float>({1, 2, 3, 4, 5, -6}));
    std::string output = dir.File("h.bfvp");
    RunResult run = RunBfv("import --spacing 10 " + Quote(input) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "3 x 2")) << run.out;
    EXPECT_TRUE(Contains(run.out, "-6.0 to 5.0 m")) << run.out;
    EXPECT_TRUE(terrain::PyramidFile::Open(output).ok());
}

// A raster of almost no valid posts is refused naming --any-raster, and imported with it; a
// negative cellsize and a misnamed SRTM tile are named too, and nothing is written.
TEST(ImportCommand, RastersThatAreNoDemAreRefusedUnlessAnyRaster) {
    TempDir dir;
    std::string sparse =
        "ncols 20\nnrows 20\nxllcorner 0\nyllcorner 0\ncellsize 30\n"
        "NODATA_value -9999\n5 6";
    for (int k = 2; k < 400; ++k) sparse += k % 20 == 0 ? "\n-9999" : " -9999";
    std::string input = WriteFile(dir, "sparse.asc", sparse + "\n");
    std::string err = RefusedImport(dir, Quote(input));
    EXPECT_TRUE(Contains(
        err, "bfv import: raster '" + input + "': only 2 of its 20 x 20 posts (0.5%) are valid"))
        << err;
    EXPECT_TRUE(Contains(err, "pass --any-raster to import it anyway")) << err;
    EXPECT_EQ(dir.EntryCount(), 1);
    RunResult forced = ImportIntoDir(dir, "--any-raster " + Quote(input));
    EXPECT_EQ(forced.exitCode, 0) << forced.err;
    TempDir other;
    std::string negative = WriteFile(other, "neg.asc",
                                     "ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -30\n"
                                     "1 2\n3 4\n");
    EXPECT_TRUE(Contains(RefusedImport(other, Quote(negative)), "its cellsize -30 is negative"));
    std::string tile = WriteFile(other, "tile.hgt", "short");
    EXPECT_TRUE(Contains(RefusedImport(other, Quote(tile)), "bfv import: SRTM tile '" + tile +
                                                                "': an .hgt file must be named for "
                                                                "its south-west corner"));
    EXPECT_EQ(other.EntryCount(), 2);
}

}  // namespace
}  // namespace bfv::tools
