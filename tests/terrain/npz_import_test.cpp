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

/// The error of importing `arrays` written as an .npz, or "" if the import succeeds.
std::string ImportError(const TempDir& dir, const Arrays& arrays) {
    std::string path = dir.File("a.npz");
    WriteNpz(path, arrays);
    Expected<Terrain> t = ImportNpz(path);
    return t.ok() ? "" : t.error().message;
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
    EXPECT_TRUE(error.starts_with("npz '" + dir.File("a.npz") + "': ")) << error;
    EXPECT_TRUE(Contains(error, "no 'elevation' array (arrays present: xmin, xmax")) << error;
}

TEST(NpzImport, ImportsTheSmallArchive) {
    TempDir dir;
    EXPECT_EQ(ImportError(dir, SmallArrays()), "");
}

TEST(NpzImport, RejectsFortranOrder) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation",
                        Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}), true));
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "Fortran")) << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsUnsupportedDtypes) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation",
                        Npy(">i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})));
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "unsupported dtype '>i2'"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsOneDimensionalElevation) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation",
                        Npy("<i2", "(6,)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6})));
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "shape (6,); expected 2-D"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsDataSizeMismatch) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation", Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5})));
    EXPECT_TRUE(Contains(ImportError(dir, arrays),
                         "data size mismatch: shape (2, 3) of <i2 needs "
                         "12 bytes, found 10"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsNanHeights) {
    TempDir dir;
    float nan = std::numeric_limits<float>::quiet_NaN();
    Arrays arrays = Georef();
    arrays.emplace_back("elevation", Npy("<f4", "(2, 3)", RawBytes<float>({1, 2, 3, 4, nan, 6})));
    EXPECT_TRUE(Contains(ImportError(dir, arrays),
                         "array 'elevation': 1 post is not finite heights >= -100000 and <= "
                         "100000 m; the first is nan at row 1, column 1"))
        << ImportError(dir, arrays);
}

// Infinite and absurd heights (1e300 is infinite as a float; 1e6 m is no terrain) are counted,
// and the first is named, instead of being imported.
TEST(NpzImport, RejectsInfiniteAndOutOfRangeHeightsCountingThem) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation",
                        Npy("<f8", "(2, 3)", RawBytes<double>({1, 1e300, 3, -2e5, 5, 1e6})));
    EXPECT_TRUE(Contains(ImportError(dir, arrays),
                         "3 posts are not finite heights >= -100000 and <= 100000 m; the first "
                         "is inf at row 0, column 1"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsABadNpyHeader) {
    TempDir dir;
    Arrays arrays = Georef();
    std::string image = Npy("<i2", "(2, 3)", RawBytes<std::int16_t>({1, 2, 3, 4, 5, 6}));
    image[10] = '[';  // the dict's opening brace
    arrays.emplace_back("elevation", image);
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "array 'elevation': bad .npy header"))
        << ImportError(dir, arrays);
}

TEST(NpzImport, RejectsABadNpyMagic) {
    TempDir dir;
    Arrays arrays = Georef();
    arrays.emplace_back("elevation", "not an npy array at all");
    EXPECT_TRUE(Contains(ImportError(dir, arrays), "not a .npy array")) << ImportError(dir, arrays);
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

}  // namespace
}  // namespace bfv::terrain
