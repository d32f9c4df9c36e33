#include "terrain/npz_import.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zip.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "terrain/equirectangular.h"
#include "tests/npy_image.h"
#include "tests/temp_dir.h"
#include "tests/tools/subprocess.h"

namespace bfv::terrain {
namespace {

namespace fs = std::filesystem;

// Debian's python3-matplotlib-data sample DEM.
const std::string jacksboroPath =
    "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz";
// The same package's topography and bathymetry off Vancouver Island: `topo` (91 x 120 <f4),
// `longitude` (120, 234.02..237.98, 0..360 degrees) and `latitude` (91, 48.02..49.98,
// increasing, evenly spaced in Mercator y).
const std::string topobathyPath = "/usr/share/matplotlib/mpl-data/sample_data/topobathy.npz";

using test_support::Npy;
using test_support::RawBytes;
using test_support::Slurp;
using test_support::TempDir;

std::string Scalar(double v) { return Npy("<f8", "()", RawBytes(std::vector{v})); }

using Arrays = std::vector<std::pair<std::string, std::string>>;  // name, .npy image

/// Writes `arrays` as a deflated .npz archive at `path`.
void WriteNpz(const std::string& path, const Arrays& arrays) {
    int error = 0;
    zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    ASSERT_NE(archive, nullptr) << "zip_open error " << error;
    for (const auto& [name, image] : arrays) {
        zip_source_t* source = zip_source_buffer(archive, image.data(), image.size(), 0);
        ASSERT_NE(source, nullptr);
        zip_int64_t index = zip_file_add(archive, (name + ".npy").c_str(), source, 0);
        ASSERT_GE(index, 0) << zip_strerror(archive);
        zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 0);
    }
    ASSERT_EQ(zip_close(archive), 0) << zip_strerror(archive);
}

/// Georeference scalars like the Jacksboro file's: row 0 north, column 0 west.
Arrays Georef() {
    return {{"xmin", Scalar(-84.0)},
            {"xmax", Scalar(-83.5)},
            {"ymin", Scalar(37.0)},
            {"ymax", Scalar(36.5)}};
}

/// A 2 x 3 int16 elevation array plus georeference.
Arrays SmallArrays() {
    Arrays arrays = Georef();
    arrays.emplace_back("elevation",
                        Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})));
    return arrays;
}

/// The error of importing `arrays` written as an .npz with `options`, or "" if the import
/// succeeds.
std::string ImportError(const TempDir& dir, const Arrays& arrays,
                        const NpzImportOptions& options = {}) {
    std::string path = dir.File("a.npz");
    WriteNpz(path, arrays);
    Expected<Terrain> t = ImportNpz(path, options);
    return t.ok() ? "" : t.error().message;
}

/// The error of importing Georef() with `elevationNpy` as its elevation array, or "".
std::string ElevationError(const std::string& elevationNpy) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation", elevationNpy);
    return ImportError(dir, arrays);
}

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

Terrain ImportJacksboro() {
    Expected<Terrain> t = ImportNpz(jacksboroPath);
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? *t : Terrain{};
}

TEST(NpzImport, ReadsTheJacksboroGrid) {
    Terrain t = ImportJacksboro();
    EXPECT_EQ(t.nx, 403);
    EXPECT_EQ(t.ny, 344);
    EXPECT_EQ(t.heightsM.size(), 138632u);
    HeightRange range = ComputeHeightRange(t);
    EXPECT_EQ(range.minM, 236.0f);
    EXPECT_EQ(range.maxM, 1076.0f);
}

TEST(NpzImport, ReadsTheJacksboroExtent) {
    Terrain t = ImportJacksboro();
    EXPECT_DOUBLE_EQ(t.geo.lonMinDeg, -84.41375);
    EXPECT_NEAR(t.geo.lonMaxDeg, -84.0779167, 1e-7);
    EXPECT_DOUBLE_EQ(t.geo.latMinDeg, 36.44625);
    EXPECT_NEAR(t.geo.latMaxDeg, 36.7329167, 1e-7);
    // The extent is the outer edges: 344 rows of 3 arc-seconds.
    EXPECT_NEAR(t.geo.latMaxDeg - t.geo.latMinDeg, 344 * 3.0 / 3600, 1e-9);
}

TEST(NpzImport, ComputesJacksboroSpacingInMetres) {
    Terrain t = ImportJacksboro();
    double centreLatRad = 0.5 * (36.44625 + 36.7329167) * std::numbers::pi / 180;
    EXPECT_NEAR(t.spacingYM, 92.7667, 1e-3);  // 3 arc-seconds * 111320 m/deg
    EXPECT_NEAR(t.spacingXM, 3.0 / 3600 * metresPerDegreeLat * std::cos(centreLatRad), 1e-6);
    EXPECT_NEAR(t.spacingXM, 74.485, 1e-3);
}

// Expected heights read from the file with Python's zipfile and struct (numpy is not
// installed): elevation.npy has a 128-byte header, then 344 x 403 '<i2' values, row 0 first.
//   row 0:   column 0 = 483, column 1 = 487, column 200 = 534, column 402 = 444
//   row 100: column 50 = 479
//   row 343: column 0 = 545, column 200 = 850, column 402 = 272
TEST(NpzImport, PutsTheNorthRowLast) {
    Terrain t = ImportJacksboro();
    ASSERT_EQ(t.ny, 344);
    EXPECT_EQ(t.HeightAt(0, 343), 483.0f);  // file row 0 is the north edge
    EXPECT_EQ(t.HeightAt(1, 343), 487.0f);
    EXPECT_EQ(t.HeightAt(200, 343), 534.0f);
    EXPECT_EQ(t.HeightAt(402, 343), 444.0f);
    EXPECT_EQ(t.HeightAt(50, 343 - 100), 479.0f);
    EXPECT_EQ(t.HeightAt(0, 0), 545.0f);  // file row 343 is the south edge
    EXPECT_EQ(t.HeightAt(200, 0), 850.0f);
    EXPECT_EQ(t.HeightAt(402, 0), 272.0f);
}

TEST(NpzImport, NamesTheTerrainAfterTheFileStem) {
    EXPECT_EQ(ImportJacksboro().name, "jacksboro_fault_dem");
}

TEST(NpzImport, ReadsFloatElevationAndDerivesSpacingFromTheExtent) {
    TempDir dir;
    Arrays arrays = {{"xmin", Scalar(10.0)},
                     {"xmax", Scalar(10.3)},
                     {"ymin", Scalar(0.0)},
                     {"ymax", Scalar(0.2)},  // row 0 south: no flip
                     {"elevation", Npy("<f8", "(2, 3)", RawBytes<double>({1, 2, 3, 4, 5, 6.5}))}};
    WriteNpz(dir.File("f.npz"), arrays);
    Expected<Terrain> t = ImportNpz(dir.File("f.npz"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_NEAR(t->spacingYM, 0.1 * metresPerDegreeLat, 1e-6);
    EXPECT_NEAR(t->spacingXM, 0.1 * metresPerDegreeLat * std::cos(0.1 * std::numbers::pi / 180),
                1e-6);
    EXPECT_EQ(t->HeightAt(0, 0), 1.0f);
    EXPECT_EQ(t->HeightAt(2, 1), 6.5f);
    EXPECT_EQ(t->name, "f");
}

TEST(NpzImport, FlipsRowsAndColumnsWhenTheyRunSouthAndWest) {
    TempDir dir;
    Arrays arrays = {
        {"xmin", Scalar(-83.5)},
        {"xmax", Scalar(-84.0)},
        {"ymin", Scalar(37.0)},
        {"ymax", Scalar(36.5)},
        {"elevation", Npy("<i4", "(2, 3)", RawBytes<std::int32_t>({1, 2, 3, 4, 5, 6}))}};
    WriteNpz(dir.File("f.npz"), arrays);
    Expected<Terrain> t = ImportNpz(dir.File("f.npz"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->heightsM, (std::vector<float>{6, 5, 4, 3, 2, 1}));
    EXPECT_EQ(t->geo.lonMinDeg, -84.0);
}

TEST(NpzImport, ReportsAMissingFile) {
    TempDir dir;
    std::string path = dir.File("none.npz");
    Expected<Terrain> t = ImportNpz(path);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(t.error().message.starts_with("npz '" + path + "': ")) << t.error().message;
    EXPECT_TRUE(Contains(t.error().message, "No such file")) << t.error().message;
}

TEST(NpzImport, ReportsAFileThatIsNotAZip) {
    TempDir dir;
    std::string path = dir.File("text.npz");
    std::ofstream(path) << "this is not a zip archive, just some text\n";
    Expected<Terrain> t = ImportNpz(path);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message,
              "npz '" + path + "': not a zip archive (an .npz file is a zip of .npy arrays)");
}

TEST(NpzImport, ReportsAMissingElevationArray) {
    TempDir dir;
    std::string error = ImportError(dir, Georef());
    EXPECT_EQ(error, "npz '" + dir.File("a.npz") +
                         "': no elevation array: none is named elevation, topo, z, height, dem, "
                         "heights, elev and none is 2-D (arrays present: xmin, xmax, ymin, "
                         "ymax); name it with --array NAME");
}

TEST(NpzImport, ImportsTheSmallArchive) {
    TempDir dir;
    EXPECT_EQ(ImportError(dir, SmallArrays()), "");
}

TEST(NpzImport, RejectsFortranOrder) {
    std::string error =
        ElevationError(Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}), true));
    EXPECT_TRUE(Contains(error, "Fortran")) << error;
}

TEST(NpzImport, RejectsUnsupportedDtypes) {
    std::string error =
        ElevationError(Npy(">i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})));
    EXPECT_TRUE(Contains(error, "unsupported dtype '>i2'")) << error;
}

TEST(NpzImport, RejectsOneDimensionalElevation) {
    std::string error =
        ElevationError(Npy("<i2", "(6,)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})));
    EXPECT_TRUE(Contains(error, "shape (6,); expected 2-D")) << error;
}

TEST(NpzImport, RejectsDataSizeMismatch) {
    std::string error =
        ElevationError(Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5})));
    EXPECT_TRUE(Contains(error,
                         "data size mismatch: shape (2, 3) of <i2 needs "
                         "12 bytes, found 10"))
        << error;
}

// NaN marks nodata in numpy's DEMs: such posts are filled from their neighbours, as a GIS
// raster's nodata (here a hole in a plane rising 1 m a column: filled between its edges).
TEST(NpzImport, FillsNanHeightsAsNodata) {
    TempDir dir;
    float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> heights;
    for (int row = 0; row < 5; ++row) {
        for (int column = 0; column < 6; ++column) {
            bool hole = row >= 1 && row <= 3 && column >= 2 && column <= 3;
            heights.push_back(hole ? nan : static_cast<float>(column));
        }
    }
    Arrays arrays = Georef();
    arrays.emplace_back("elevation", Npy("<f4", "(5, 6)", RawBytes<float>(heights)));
    WriteNpz(dir.File("holes.npz"), arrays);
    Expected<Terrain> t = ImportNpz(dir.File("holes.npz"));
    ASSERT_TRUE(t.ok()) << t.error().message;
    for (int j = 0; j < 5; ++j) {
        for (int i = 0; i < 6; ++i) {
            SCOPED_TRACE(testing::Message() << "post " << i << ", " << j);
            float h = t->HeightAt(i, j);
            ASSERT_TRUE(std::isfinite(h));
            if (i < 2 || i > 3 || j == 0 || j == 4) {
                EXPECT_EQ(h, static_cast<float>(i));
            } else {
                EXPECT_GT(h, 1.0f);
                EXPECT_LT(h, 4.0f);
            }
        }
    }
}

// Mostly NaN is mostly made up: refused, as a GIS raster with as few valid posts is.
TEST(NpzImport, RefusesAnArrayOfTooFewValidHeights) {
    float nan = std::numeric_limits<float>::quiet_NaN();
    std::string error =
        ElevationError(Npy("<f4", "(2, 3)", RawBytes<float>({1, nan, nan, 4, nan, 6})));
    EXPECT_TRUE(Contains(error,
                         "array 'elevation': only 3 of its 3 x 2 posts (50%) are valid, under 1% "
                         "or 4: the rest would be made up by filling from them"))
        << error;
}

// Infinite and absurd heights (1e300 is infinite as a float; 1e6 m is no terrain) are counted,
// and the first is named, instead of being imported.
TEST(NpzImport, RejectsInfiniteAndOutOfRangeHeightsCountingThem) {
    std::string error =
        ElevationError(Npy("<f8", "(2, 3)", RawBytes<double>({1, 1e300, 3, -2e5, 5, 1e6})));
    EXPECT_TRUE(Contains(error,
                         "3 posts are not nodata or heights >= -100000 and <= 100000 m; the "
                         "first is inf at row 0, column 1"))
        << error;
}

TEST(NpzImport, RejectsABadNpyHeader) {
    std::string image = Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}));
    image[10] = '[';  // the dict's opening brace
    std::string error = ElevationError(image);
    EXPECT_TRUE(Contains(error, "array 'elevation': bad .npy header")) << error;
}

TEST(NpzImport, RejectsABadNpyMagic) {
    std::string error = ElevationError("not an npy array at all");
    EXPECT_TRUE(Contains(error, "not a .npy array")) << error;
}

TEST(NpzImport, RequiresAGeoreference) {
    TempDir dir;
    Arrays arrays = SmallArrays();
    arrays.erase(arrays.begin());  // xmin
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "scalar 'xmin' is missing"))
        << ImportError(dir, arrays);
}

/// Rewrites the uncompressed size of entry `name` in the zip at `path`, in its local header and
/// in the central directory, to `sizeBytes`: an archive that claims more than it holds.
void ClaimEntrySize(const std::string& path, const std::string& name, std::uint32_t sizeBytes) {
    std::string zip = Slurp(path);
    struct Header {
        const char* signature;
        std::size_t nameAt, sizeAt;
    };
    for (Header h : {Header{"PK\x03\x04", 30, 22}, Header{"PK\x01\x02", 46, 24}}) {
        for (std::size_t at = zip.find(h.signature); at != std::string::npos;
             at = zip.find(h.signature, at + 4)) {
            if (zip.compare(at + h.nameAt, name.size(), name) == 0)
                std::memcpy(&zip[at + h.sizeAt], &sizeBytes, 4);
        }
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << zip;
}

/// Peak resident memory of this process so far, bytes (getrusage).
long long PeakRssBytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss * 1024LL;
}

// Found by fuzz/npz_import_fuzz.cpp: the entry's size in the zip directory is only a claim, and
// the importer allocated (and zeroed) all of it before reading: 4 GiB for a 1 KiB file.
TEST(NpzImport, AnEntryClaimingGigabytesCostsWhatItHolds) {
    TempDir dir;
    std::string path = dir.File("a.npz");
    WriteNpz(path, SmallArrays());
    ClaimEntrySize(path, "elevation.npy", 0xFFFFFFF0u);
    long long before = PeakRssBytes();
    Expected<Terrain> t = ImportNpz(path);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(t.error().message.starts_with("npz '" + path + "': array 'elevation': "))
        << t.error().message;
    EXPECT_LT(PeakRssBytes() - before, 256LL << 20) << "allocated the claimed size";
}

// ---------------------------------------------------------------------------------------------
// Any DEM layout: the elevation array's name, coordinate arrays, bare .npy files.

/// The 2 x 3 int16 heights 1..6 as .npy, row 0 first: asymmetric, so any flip shows.
std::string SmallGrid() { return Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})); }

/// A 1-D float64 coordinate array.
std::string Coordinates(const std::vector<double>& values) {
    std::string shape = "(";  // not "(" + std::to_string(...): GCC 12's -Wrestrict misfires
    shape += std::to_string(values.size());
    shape += ",)";
    return Npy("<f8", shape, RawBytes(values));
}

/// Imports `arrays` written as an .npz with `options`; fails the test on an error.
Terrain ImportArrays(const TempDir& dir, const Arrays& arrays,
                     const NpzImportOptions& options = {}) {
    std::string path = dir.File("a.npz");
    WriteNpz(path, arrays);
    Expected<Terrain> t = ImportNpz(path, options);
    EXPECT_TRUE(t.ok()) << t.error().message;
    return t.ok() ? *t : Terrain{};
}

TEST(NpzImport, FindsTheElevationArrayNamedTopo) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("topo", SmallGrid());
    Terrain t = ImportArrays(dir, arrays);
    EXPECT_EQ(t.nx, 3);
    EXPECT_EQ(t.heightsM, (std::vector<float>{4, 5, 6, 1, 2, 3}));  // row 0 north, as Georef()
}

TEST(NpzImport, PrefersTheEarlierNameOfTheList) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("dem", Npy("<i2", "(1, 1)", RawBytes<std::int16_t>({7})));
    arrays.emplace_back("z", SmallGrid());  // z comes before dem
    EXPECT_EQ(ImportArrays(dir, arrays).nx, 3);
}

TEST(NpzImport, TakesTheOnlyTwoDimensionalArrayWhateverItsName) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("weights", Coordinates({1, 2, 3}));  // 1-D: not a candidate
    arrays.emplace_back("bathymetry", SmallGrid());
    Terrain t = ImportArrays(dir, arrays);
    EXPECT_EQ(t.heightsM.size(), 6u);
}

TEST(NpzImport, SeveralTwoDimensionalArraysNeedTheArrayOption) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("a", SmallGrid());
    arrays.emplace_back("b", SmallGrid());
    std::string error = ImportError(dir, arrays);
    EXPECT_TRUE(Contains(error,
                         "no elevation array: none is named elevation, topo, z, height, "
                         "dem, heights, elev and 2 are 2-D (arrays present: xmin, xmax, "
                         "ymin, ymax, a, b); name it with --array NAME"))
        << error;
}

TEST(NpzImport, TheArrayOptionChoosesTheArray) {
    TempDir dir;
    Arrays arrays = SmallArrays();  // has "elevation"
    arrays.emplace_back("smooth", Npy("<f4", "(2, 3)", RawBytes<float>({0, 0, 0, 9, 9, 9})));
    Terrain t = ImportArrays(dir, arrays, {.array = "smooth"});
    EXPECT_EQ(t.heightsM, (std::vector<float>{9, 9, 9, 0, 0, 0}));
    EXPECT_EQ(ImportArrays(dir, arrays, {.array = "smooth.npy"}).heightsM, t.heightsM);
}

TEST(NpzImport, AnUnknownArrayIsOneErrorListingTheArrays) {
    TempDir dir;
    EXPECT_EQ(ImportError(dir, SmallArrays(), {.array = "bathy"}),
              "npz '" + dir.File("a.npz") +
                  "': no array 'bathy' (arrays present: xmin, xmax, ymin, ymax, "
                  "elevation)");
}

TEST(NpzImport, TheArrayOptionStillChecksTheShape) {
    TempDir dir;
    std::string error = ImportError(dir, SmallArrays(), {.array = "xmin"});
    EXPECT_TRUE(Contains(error, "array 'xmin' has shape (); expected 2-D")) << error;
}

/// SmallGrid() as `topo` with 1-D coordinate arrays: longitudes 234.0, 234.1, 234.2 (0..360
/// degrees) and latitudes `lats`.
Arrays WithCoordinates(const std::vector<double>& lats, const std::string& lonName = "longitude",
                       const std::string& latName = "latitude") {
    return {{"topo", SmallGrid()},
            {lonName, Coordinates({234.0, 234.1, 234.2})},
            {latName, Coordinates(lats)}};
}

TEST(NpzImport, CoordinateArraysGiveTheExtentFromPostCentres) {
    TempDir dir;
    Terrain t = ImportArrays(dir, WithCoordinates({48.0, 48.2}));
    // Centres -126.0..-125.8 (234..234.2 less 360) and 48.0..48.2, half a step beyond.
    EXPECT_NEAR(t.geo.lonMinDeg, -126.05, 1e-9);
    EXPECT_NEAR(t.geo.lonMaxDeg, -125.75, 1e-9);
    EXPECT_NEAR(t.geo.latMinDeg, 47.9, 1e-9);
    EXPECT_NEAR(t.geo.latMaxDeg, 48.3, 1e-9);
    EXPECT_NEAR(t.spacingYM, 0.2 * metresPerDegreeLat, 1e-6);
    EXPECT_NEAR(t.spacingXM, EquirectangularSpacingM(0.1, 0.2, 48.1).xM, 1e-6);
    EXPECT_EQ(t.heightsM, (std::vector<float>{1, 2, 3, 4, 5, 6}));  // row 0 south: as stored
}

TEST(NpzImport, DecreasingLatitudesPutRowZeroNorth) {
    TempDir dir;
    Terrain t = ImportArrays(dir, WithCoordinates({48.2, 48.0}));
    EXPECT_EQ(t.heightsM, (std::vector<float>{4, 5, 6, 1, 2, 3}));  // file row 0 is now j = 1
    EXPECT_NEAR(t.geo.latMinDeg, 47.9, 1e-9);
    EXPECT_NEAR(t.geo.latMaxDeg, 48.3, 1e-9);
}

TEST(NpzImport, DecreasingLongitudesPutColumnZeroEast) {
    TempDir dir;
    Arrays arrays = {{"topo", SmallGrid()},
                     {"lon", Coordinates({-120.0, -120.5, -121.0})},
                     {"lat", Coordinates({10.0, 11.0})}};
    Terrain t = ImportArrays(dir, arrays);
    EXPECT_EQ(t.heightsM, (std::vector<float>{3, 2, 1, 6, 5, 4}));
    EXPECT_NEAR(t.geo.lonMinDeg, -121.25, 1e-9);
    EXPECT_NEAR(t.geo.lonMaxDeg, -119.75, 1e-9);
}

TEST(NpzImport, XAndYServeAsCoordinateArrays) {
    TempDir dir;
    Terrain t = ImportArrays(dir, WithCoordinates({-30.0, -29.0}, "x", "y"));
    EXPECT_NEAR(t.geo.latMinDeg, -30.5, 1e-9);
}

TEST(NpzImport, ScalarsComeBeforeCoordinateArrays) {
    TempDir dir;
    Arrays arrays = WithCoordinates({48.0, 48.2});
    for (auto& a : Georef()) arrays.push_back(a);
    EXPECT_EQ(ImportArrays(dir, arrays).geo.lonMinDeg, -84.0);
}

/// Latitude (degrees) of Mercator y.
double InverseMercator(double y) {
    return (2 * std::atan(std::exp(y)) - std::numbers::pi / 2) * 180 / std::numbers::pi;
}

// topobathy.npz's latitudes are evenly spaced in Mercator y: the rows are resampled onto even
// latitudes. Heights proportional to latitude come out proportional to the even latitudes.
TEST(NpzImport, MercatorSpacedLatitudesAreResampledToEvenOnes) {
    TempDir dir;
    auto y = [](double lat) {
        return std::log(std::tan(std::numbers::pi / 4 + lat * std::numbers::pi / 360));
    };
    std::vector<double> lats;
    for (int k = 0; k <= 8; ++k) lats.push_back(InverseMercator(y(40) + k * (y(60) - y(40)) / 8));
    std::vector<double> heights;
    for (double lat : lats) heights.insert(heights.end(), {100 * lat, 100 * lat});
    Arrays arrays = {{"z", Npy("<f8", "(9, 2)", RawBytes(heights))},
                     {"lon", Coordinates({5.0, 5.5})},
                     {"lat", Coordinates(lats)}};
    Terrain t = ImportArrays(dir, arrays);
    ASSERT_EQ(t.ny, 9);
    EXPECT_NEAR(t.geo.latMinDeg, 40 - 1.25, 1e-9);  // even steps of 2.5 degrees
    EXPECT_NEAR(t.geo.latMaxDeg, 60 + 1.25, 1e-9);
    for (int j = 0; j < 9; ++j) EXPECT_NEAR(t.HeightAt(1, j), 100 * (40 + 2.5 * j), 1e-2) << j;
}

TEST(NpzImport, RefusesUnevenlySpacedCoordinates) {
    TempDir dir;
    Arrays arrays = {{"topo", SmallGrid()},
                     {"lon", Coordinates({10.0, 10.1, 10.3})},
                     {"lat", Coordinates({0.0, 1.0})}};
    std::string error = ImportError(dir, arrays);
    EXPECT_TRUE(Contains(error,
                         "': coordinate array 'lon' is not evenly spaced: value 1 (10.1) "
                         "lies 0.333 steps from its even place between the first and the "
                         "last (at most 0.01)"))
        << error;
    // A little off (0.005 of a step), as float32 coordinates can be, is fine.
    arrays[1].second = Coordinates({10.0, 10.15075, 10.3});
    EXPECT_EQ(ImportError(dir, arrays), "");
}

TEST(NpzImport, RefusesLatitudesEvenInNeitherDegreesNorMercator) {
    TempDir dir;
    Arrays arrays = {{"topo", Npy("<i2", "(3, 2)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}))},
                     {"lon", Coordinates({10.0, 11.0})},
                     {"lat", Coordinates({0.0, 1.0, 3.0})}};
    std::string error = ImportError(dir, arrays);
    EXPECT_TRUE(Contains(error,
                         "coordinate array 'lat' is not evenly spaced in degrees nor in "
                         "Mercator y: value 1 (1)"))
        << error;
}

TEST(NpzImport, RefusesCoordinatesThatAreNotMonotonic) {
    TempDir dir;
    Arrays arrays = {{"topo", SmallGrid()},
                     {"lon", Coordinates({10.0, 10.2, 10.1})},
                     {"lat", Coordinates({0.0, 1.0})}};
    EXPECT_TRUE(Contains(ImportError(dir, arrays),
                         "coordinate array 'lon' is not monotonic: value 2 is 10.1 after 10.2"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RefusesCoordinatesOfTheWrongLength) {
    TempDir dir;
    std::string error = ImportError(dir, WithCoordinates({48.0, 48.1, 48.2}));
    EXPECT_TRUE(Contains(error,
                         "coordinate array 'latitude' has shape (3,); expected (2,), one "
                         "value for each of the 2 rows of 'topo'"))
        << error;
}

TEST(NpzImport, RefusesALongitudeWithoutLatitude) {
    TempDir dir;
    Arrays arrays = WithCoordinates({48.0, 48.2});
    arrays.pop_back();
    EXPECT_TRUE(Contains(ImportError(dir, arrays),
                         "no georeference: coordinate array 'longitude' has no 'latitude'"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, ReportsNoGeoreferenceNamingBothKinds) {
    TempDir dir;
    EXPECT_TRUE(Contains(ImportError(dir, {{"topo", SmallGrid()}}),
                         "no georeference: needs the scalars xmin, xmax, ymin, ymax or 1-D "
                         "coordinate arrays longitude and latitude (or lon and lat, x and y), "
                         "in degrees (arrays present: topo)"))
        << ImportError(dir, {{"topo", SmallGrid()}});
}

TEST(NpzImport, ImportsTopobathy) {
    if (!fs::exists(topobathyPath)) GTEST_SKIP() << topobathyPath << " is not installed";
    Expected<Terrain> t = ImportNpz(topobathyPath);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->nx, 120);
    EXPECT_EQ(t->ny, 91);
    EXPECT_EQ(t->name, "topobathy");
    // Centres 234.0167..237.9834 and 48.0164..49.9842 degrees, half a step beyond.
    EXPECT_NEAR(t->geo.lonMinDeg, -126.0, 1e-3);
    EXPECT_NEAR(t->geo.lonMaxDeg, -122.0, 1e-3);
    EXPECT_NEAR(t->geo.latMinDeg, 48.0055, 1e-3);
    EXPECT_NEAR(t->geo.latMaxDeg, 49.9951, 1e-3);
    EXPECT_NEAR(t->spacingYM, 0.021865 * metresPerDegreeLat, 1.0);
    HeightRange range = ComputeHeightRange(*t);
    EXPECT_LT(range.minM, -1000.0f);  // the sea floor is kept
    EXPECT_GT(range.maxM, 2000.0f);
    // Read with Python's zipfile and struct: file row 0 (48.02 N) starts -1405, -1437 (sea,
    // west of Vancouver Island); row 0 is south, and the first and last rows keep their heights.
    EXPECT_EQ(t->HeightAt(0, 0), -1405.0f);
    EXPECT_EQ(t->HeightAt(1, 0), -1437.0f);
    EXPECT_EQ(t->HeightAt(119, 90), 1015.0f);
}

TEST(NpyImport, ReadsABareArrayNorthRowFirst) {
    TempDir dir;
    std::string path = dir.File("hill.npy");
    std::ofstream(path, std::ios::binary) << SmallGrid();
    Expected<Terrain> t = ImportNpy(path, 2.5);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->name, "hill");
    EXPECT_EQ(t->spacingXM, 2.5);
    EXPECT_EQ(t->spacingYM, 2.5);
    EXPECT_EQ(t->heightsM, (std::vector<float>{4, 5, 6, 1, 2, 3}));
    EXPECT_EQ(t->geo.lonMaxDeg, 0.0);
}

TEST(NpyImport, ReportsABadArrayAndABadSpacing) {
    TempDir dir;
    std::string path = dir.File("line.npy");
    std::ofstream(path, std::ios::binary) << Coordinates({1, 2, 3});
    Expected<Terrain> t = ImportNpy(path, 1.0);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message,
              "npy '" + path + "': array 'line' has shape (3,); expected 2-D (rows, columns)");
    t = ImportNpy(path, 0.0);
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.error().message, "post spacing")) << t.error().message;
}

}  // namespace
}  // namespace bfv::terrain
