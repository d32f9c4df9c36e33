#include "terrain/png_import.h"

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "tests/temp_dir.h"
#include "tests/tools/subprocess.h"

namespace bfv::terrain {
namespace {

using test_support::Slurp;
using test_support::TempDir;

/// Writes an nx x ny PNG of `bands` bands of `type` (GDAL's PNG driver: stb_image_write has no
/// 16-bit output); every band holds `values`, row 0 (the top) first.
void WritePng(const std::string& path, int nx, int ny, const std::vector<double>& values,
              GDALDataType type = GDT_UInt16, int bands = 1) {
    GDALAllRegister();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDriver* png = GetGDALDriverManager()->GetDriverByName("PNG");
    GDALDatasetUniquePtr image(mem->Create("", nx, ny, bands, type, nullptr));
    ASSERT_TRUE(image);
    std::vector<double> copy = values;
    for (int b = 1; b <= bands; ++b) {
        ASSERT_EQ(image->GetRasterBand(b)->RasterIO(GF_Write, 0, 0, nx, ny, copy.data(), nx, ny,
                                                    GDT_Float64, 0, 0),
                  CE_None);
    }
    GDALDatasetUniquePtr written(
        png->CreateCopy(path.c_str(), image.get(), FALSE, nullptr, nullptr, nullptr));
    ASSERT_TRUE(written);
}

/// Writes the 2 x 2 heightmap 500, 501 / 502, 503 (top row first) to DIR/h.png, lets `edit`
/// change the file's bytes, and returns its path.
template <typename Edit>
std::string WriteEditedPng(const TempDir& dir, Edit edit) {
    std::string path = dir.File("h.png");
    WritePng(path, 2, 2, {500, 501, 502, 503});
    std::string png = Slurp(path);
    edit(png);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << png;
    return path;
}

/// Imports the heightmap WriteEditedPng writes, at 1 m a unit, and checks two of its heights
/// (the bottom row is the south).
void ExpectTheSmallHeightmapAtOneMetrePerUnit(const std::string& path) {
    Expected<Terrain> t = ImportPng16(path, {.spacingM = 1.0});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->HeightAt(0, 0), 502.0f);
    EXPECT_EQ(t->HeightAt(1, 1), 501.0f);
}

std::string ImportError(const std::string& path, const PngHeightmapScale& scale) {
    Expected<Terrain> t = ImportPng16(path, scale);
    return t.ok() ? "" : t.error().message;
}

TEST(PngImport, ReadsA16BitHeightmapTopRowNorth) {
    TempDir dir;
    std::string path = dir.File("island.png");
    WritePng(path, 3, 2,
             {0, 1000, 65535,  //
              1, 2, 3});
    Expected<Terrain> t = ImportPng16(path, {2.5, 0.1, -100.0});
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->name, "island");
    EXPECT_EQ(t->nx, 3);
    EXPECT_EQ(t->ny, 2);
    EXPECT_EQ(t->spacingXM, 2.5);
    EXPECT_EQ(t->spacingYM, 2.5);
    EXPECT_NEAR(t->HeightAt(0, 0), -100.0 + 0.1 * 1, 1e-4);  // the bottom row is the south
    EXPECT_NEAR(t->HeightAt(2, 0), -100.0 + 0.1 * 3, 1e-4);
    EXPECT_NEAR(t->HeightAt(0, 1), -100.0, 1e-4);
    EXPECT_NEAR(t->HeightAt(1, 1), 0.0, 1e-4);
    EXPECT_NEAR(t->HeightAt(2, 1), -100.0 + 6553.5, 1e-3);
    EXPECT_EQ(t->geo.lonMinDeg, 0.0);
    EXPECT_EQ(t->geo.latMaxDeg, 0.0);
}

TEST(PngImport, DefaultScaleIsOneMetrePerUnit) {
    TempDir dir;
    std::string path = dir.File("h.png");
    WritePng(path, 2, 2, {500, 501, 502, 503});
    ExpectTheSmallHeightmapAtOneMetrePerUnit(path);
}

// Found by fuzz/png_import_fuzz.cpp (UBSan, inside stb_image): an empty IDAT chunk, which the
// PNG format allows, before the image data.
TEST(PngImport, ReadsAPngWhoseFirstDataChunkIsEmpty) {
    TempDir dir;
    std::string path = WriteEditedPng(dir, [](std::string& png) {
        std::size_t idat = png.find("IDAT") - 4;
        png.insert(idat, std::string("\0\0\0\0IDAT\x35\xaf\x06\x1e", 12));  // length 0, crc32
    });
    ExpectTheSmallHeightmapAtOneMetrePerUnit(path);
}

// Found by fuzz/png_import_fuzz.cpp (30 minutes): a header of 20224 x 53092 16-bit pixels, each
// side within the limit, made stb_image's int sizes overflow into a 2^64 - 2 GiB allocation.
TEST(PngImport, RejectsMorePixelsThanStbImageCanSize) {
    TempDir dir;
    std::string path = WriteEditedPng(dir, [](std::string& png) {
        std::size_t ihdr = png.find("IHDR") + 4;
        png.replace(ihdr, 8, std::string("\0\0\x4f\0\0\0\xcf\x64", 8));  // 20224 x 53092
    });
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0}),
              "png '" + path +
                  "': is 20224 x 53092 pixels (1073732608 posts); a PNG heightmap holds at most "
                  "268435456 posts (it is decoded whole): import a larger DEM as GeoTIFF");
}

// Found by fuzz/png_import_fuzz.cpp (a 2 GiB allocation): stb_image sized its buffer from an
// IDAT chunk's claimed length before reading it.
TEST(PngImport, RejectsAChunkLongerThanTheFile) {
    TempDir dir;
    std::size_t idat = 0;
    std::string path = WriteEditedPng(dir, [&idat](std::string& png) {
        idat = png.find("IDAT") - 4;
        png.replace(idat, 4, std::string("\x40\0\0\0", 4));  // 1 GiB
    });
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0}),
              "png '" + path + "': chunk IDAT at byte " + std::to_string(idat) +
                  " claims 1073741824 bytes, more than the file holds");
}

TEST(PngImport, RejectsAn8BitPng) {
    TempDir dir;
    std::string path = dir.File("photo.png");
    WritePng(path, 2, 2, {1, 2, 3, 4}, GDT_Byte);
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0}),
              "png '" + path + "': is 8-bit; a heightmap needs 16 bits");
}

TEST(PngImport, RejectsAColourPng) {
    TempDir dir;
    std::string path = dir.File("rgb.png");
    WritePng(path, 2, 2, {1, 2, 3, 4}, GDT_UInt16, 3);
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0}),
              "png '" + path + "': has 3 channels; a heightmap is greyscale, one channel");
}

TEST(PngImport, RejectsAFileThatIsNotAPng) {
    TempDir dir;
    std::string path = dir.File("text.png");
    std::ofstream(path) << "not a png";
    std::string error = ImportError(path, {.spacingM = 1.0});
    EXPECT_TRUE(error.starts_with("png '" + path + "': cannot read it as a PNG")) << error;
}

TEST(PngImport, RejectsAMissingFile) {
    TempDir dir;
    std::string path = dir.File("none.png");
    std::string error = ImportError(path, {.spacingM = 1.0});
    EXPECT_TRUE(error.starts_with("png '" + path + "': cannot read it as a PNG")) << error;
}

TEST(PngImport, RejectsABadSpacingOrScale) {
    TempDir dir;
    std::string path = dir.File("h.png");
    WritePng(path, 2, 2, {1, 2, 3, 4});
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(ImportError(path, {.spacingM = 0.0}),
              "png '" + path + "': post spacing must be > 0 and <= 100000 m, got 0");
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0, .heightScaleM = inf}),
              "png '" + path + "': height scale must be > 0 and <= 10 m, got inf");
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0, .heightScaleM = 0.0}),
              "png '" + path + "': height scale must be > 0 and <= 10 m, got 0");
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0, .heightScaleM = -1.0}),
              "png '" + path + "': height scale must be > 0 and <= 10 m, got -1");
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0, .heightOffsetM = std::nan("")}),
              "png '" + path + "': height offset must be >= -100000 and <= 100000 m, got nan");
}

// Scale and offset each in range can still map values past the height range: those pixels are
// counted and the first named (row 0 is the image's top).
TEST(PngImport, RejectsHeightsOutOfRangeCountingThem) {
    TempDir dir;
    std::string path = dir.File("h.png");
    WritePng(path, 2, 2, {1, 65535, 65535, 4});
    EXPECT_EQ(ImportError(path, {.spacingM = 1.0, .heightScaleM = 2.0, .heightOffsetM = 1000.0}),
              "png '" + path +
                  "': 2 posts are not finite heights >= -100000 and <= 100000 m; the first is "
                  "132070 at row 0, column 1");
}

}  // namespace
}  // namespace bfv::terrain
