#include "terrain/pyramid_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "terrain/byte_io.h"
#include "tests/pyramid_fixture.h"
#include "tests/temp_dir.h"

namespace bfv::terrain {
namespace {

namespace fs = std::filesystem;
using test_support::MakeTestPyramid;
using test_support::TempDir;
using test_support::TestCode;

// Byte offsets of header fields (see pyramid_file.h).
constexpr std::size_t versionOffset = 8;
constexpr std::size_t levelCountOffset = 24;
constexpr std::size_t tileCellsOffset = 144;
constexpr std::size_t nameOffset = 156;
constexpr std::size_t fixedHeaderBytes = 160;
constexpr std::size_t indexEntryBytes = 24;
constexpr std::size_t tileBytes = 2 * kTilePostCount;
// Colours in the palette of the draped test pyramids (MakeDrapedPyramid).
constexpr int kPaletteColours = 200;
// A version 3 header's imagery after the name: colour count, the palette, draped levels.
constexpr std::size_t kImageryBytes = 4 + 3 * kPaletteColours + 4;

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

std::vector<std::byte> ReadBytes(const std::string& path) {
    Expected<std::vector<std::byte>> bytes = common::ReadFileBytes(path);
    EXPECT_TRUE(bytes.ok()) << bytes.error().message;
    return bytes.ok() ? *bytes : std::vector<std::byte>{};
}

void WriteBytes(const std::string& path, std::span<const std::byte> bytes) {
    Expected<void> written = common::WriteFileAtomic(path, bytes);
    ASSERT_TRUE(written.ok()) << written.error().message;
}

void PutU32(std::vector<std::byte>& bytes, std::size_t offset, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes[offset + k] = static_cast<std::byte>(v >> (8 * k));
}

/// The error message of opening `path`, or "" if it opens.
std::string OpenError(const std::string& path) {
    Expected<PyramidFile> file = PyramidFile::Open(path);
    return file.ok() ? "" : file.error().message;
}

/// Flips the bits `mask` of byte `offset` of the file at `path` (from its end when `fromEnd`),
/// then expects the file to open (tiles are checksummed as they are read) and reading tile
/// `key` to fail naming it corrupt.
void ExpectAFlippedByteNamesTile(const std::string& path, std::size_t offset, std::byte mask,
                                 const TileKey& key, bool fromEnd = false) {
    std::vector<std::byte> bytes = ReadBytes(path);
    bytes[fromEnd ? bytes.size() - offset : offset] ^= mask;
    WriteBytes(path, bytes);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    Expected<TilePosts> tile = file->ReadTile(key);
    ASSERT_FALSE(tile.ok()) << key.ToString();
    EXPECT_TRUE(Contains(tile.error().message, "tile " + key.ToString() + " is corrupt"))
        << tile.error().message;
}

/// Writes the default test pyramid to DIR/p.bfvp and returns its path.
std::string WriteTestFile(const TempDir& dir, const Pyramid& pyramid = MakeTestPyramid()) {
    std::string path = dir.File("p.bfvp");
    Expected<void> written = WritePyramidFile(path, pyramid);
    EXPECT_TRUE(written.ok()) << written.error().message;
    return path;
}

/// Writes `p` to DIR/p.bfvp with the header's u32 at `offset` set to `value` and the header
/// checksum recomputed (a wrong header that is consistent with itself); returns its path.
std::string WriteWithHeaderU32(const TempDir& dir, const Pyramid& p, std::size_t offset,
                               std::uint32_t value) {
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    PutU32(bytes, offset, value);
    std::size_t crcOffset =
        nameOffset + p.info.name.size() + (p.info.Textured() ? kImageryBytes : 0);
    PutU32(bytes, crcOffset, Crc32(std::span(bytes).first(crcOffset)));
    WriteBytes(path, bytes);
    return path;
}

/// Offset of stored tile `index`'s first byte in a file of the default test pyramid.
std::size_t TileOffset(const Pyramid& p, int index) {
    return fixedHeaderBytes + p.info.name.size() + p.tiles.size() * indexEntryBytes +
           std::size_t(index) * tileBytes;
}

TEST(PyramidFile, RoundTripsEveryHeaderFieldAndTile) {
    TempDir dir;
    Pyramid p = MakeTestPyramid(3, 5);
    std::string path = WriteTestFile(dir, p);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    const PyramidInfo& info = file->Info();
    EXPECT_EQ(info.name, p.info.name);
    EXPECT_EQ(info.geo.lonMinDeg, p.info.geo.lonMinDeg);
    EXPECT_EQ(info.geo.lonMaxDeg, p.info.geo.lonMaxDeg);
    EXPECT_EQ(info.geo.latMinDeg, p.info.geo.latMinDeg);
    EXPECT_EQ(info.geo.latMaxDeg, p.info.geo.latMaxDeg);
    EXPECT_EQ(info.dataWidthM, p.info.dataWidthM);
    EXPECT_EQ(info.dataDepthM, p.info.dataDepthM);
    EXPECT_EQ(info.sourceSpacingM, p.info.sourceSpacingM);
    EXPECT_EQ(info.geometry.rootSizeM, p.info.geometry.rootSizeM);
    EXPECT_EQ(info.geometry.levelCount, 5);
    EXPECT_EQ(info.storedLevels, 3);
    EXPECT_EQ(info.coding.scaleM, p.info.coding.scaleM);
    EXPECT_EQ(info.coding.offsetM, p.info.coding.offsetM);
    EXPECT_EQ(info.roughness.sigmaM, p.info.roughness.sigmaM);
    EXPECT_EQ(info.roughness.referenceSpacingM, p.info.roughness.referenceSpacingM);
    EXPECT_EQ(info.roughness.hurst, p.info.roughness.hurst);
    EXPECT_EQ(info.roughness.seed, p.info.roughness.seed);
    EXPECT_EQ(info.minHeightM, p.info.minHeightM);
    EXPECT_EQ(info.maxHeightM, p.info.maxHeightM);
    ASSERT_EQ(file->TileCount(), 1 + 4 + 16);
    for (int i = 0; i < file->TileCount(); ++i) {
        EXPECT_EQ(file->KeyAt(i), p.tiles[i].key) << i;
        Expected<TilePosts> tile = file->ReadTile(p.tiles[i].key);
        ASSERT_TRUE(tile.ok()) << tile.error().message;
        EXPECT_EQ(tile->key, p.tiles[i].key);
        EXPECT_EQ(tile->codes, p.tiles[i].codes) << p.tiles[i].key.ToString();
    }
    EXPECT_TRUE(file->VerifyAllTiles().ok());
}

TEST(PyramidFile, KeysAreInLevelThenRowThenColumnOrder) {
    TempDir dir;
    Expected<PyramidFile> file = PyramidFile::Open(WriteTestFile(dir));
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_EQ(file->TileCount(), 5);
    EXPECT_EQ(file->KeyAt(0), (TileKey{0, 0, 0}));
    EXPECT_EQ(file->KeyAt(1), (TileKey{1, 0, 0}));
    EXPECT_EQ(file->KeyAt(2), (TileKey{1, 1, 0}));
    EXPECT_EQ(file->KeyAt(3), (TileKey{1, 0, 1}));
    EXPECT_EQ(file->KeyAt(4), (TileKey{1, 1, 1}));
}

TEST(PyramidFile, SizeIsExactlyHeaderIndexAndTiles) {
    TempDir dir;
    Pyramid p = MakeTestPyramid();
    std::string path = WriteTestFile(dir, p);
    std::size_t expected = TileOffset(p, 5);
    EXPECT_EQ(fs::file_size(path), expected);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->FileBytes(), expected);
    std::vector<std::byte> bytes = ReadBytes(path);
    EXPECT_EQ(std::memcmp(bytes.data(), "BFVPYRM1", 8), 0);
    // The first code of tile 1, little-endian.
    auto code = static_cast<std::uint16_t>(TestCode(1, 0));
    EXPECT_EQ(bytes[TileOffset(p, 1)], static_cast<std::byte>(code & 0xFF));
    EXPECT_EQ(bytes[TileOffset(p, 1) + 1], static_cast<std::byte>(code >> 8));
}

TEST(PyramidFile, OpensAFileWithAnEmptyName) {
    TempDir dir;
    Expected<PyramidFile> file = PyramidFile::Open(WriteTestFile(dir, MakeTestPyramid(1, 1, "")));
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().name, "");
    EXPECT_EQ(file->TileCount(), 1);
}

TEST(PyramidFile, ReadTileRejectsKeysThatAreNotStored) {
    TempDir dir;
    std::string path = WriteTestFile(dir);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    for (TileKey key : {TileKey{2, 0, 0}, TileKey{1, 2, 0}, TileKey{1, 0, -1}, TileKey{-1, 0, 0}}) {
        Expected<TilePosts> tile = file->ReadTile(key);
        ASSERT_FALSE(tile.ok()) << key.ToString();
        EXPECT_TRUE(Contains(tile.error().message, "pyramid file '" + path + "': tile " +
                                                       key.ToString() + " is not stored"))
            << tile.error().message;
    }
}

TEST(PyramidFile, AFlippedTileByteNamesTheTile) {
    TempDir dir;
    Pyramid p = MakeTestPyramid();
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    bytes[TileOffset(p, 2) + 100] ^= std::byte{0x10};  // tile 2 is L1/1/0
    WriteBytes(path, bytes);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << "opening does not checksum tiles: " << file.error().message;
    std::string message = "pyramid file '" + path + "': tile L1/1/0 is corrupt (checksum mismatch)";
    Expected<TilePosts> bad = file->ReadTile({1, 1, 0});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, message);
    EXPECT_TRUE(file->ReadTile({1, 0, 1}).ok());  // the others still read
    int lastDone = 0;
    Expected<void> verified = file->VerifyAllTiles([&](int done, int) { lastDone = done; });
    ASSERT_FALSE(verified.ok());
    EXPECT_EQ(verified.error().message, message);
    EXPECT_EQ(lastDone, 2);  // stopped at the first bad tile
}

TEST(PyramidFile, VerifyAllTilesReportsProgress) {
    TempDir dir;
    Expected<PyramidFile> file = PyramidFile::Open(WriteTestFile(dir));
    ASSERT_TRUE(file.ok()) << file.error().message;
    std::vector<int> done;
    Expected<void> verified = file->VerifyAllTiles([&](int d, int total) {
        EXPECT_EQ(total, 5);
        done.push_back(d);
    });
    EXPECT_TRUE(verified.ok());
    EXPECT_EQ(done, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(PyramidFile, AFlippedHeaderByteIsAChecksumError) {
    TempDir dir;
    std::string path = WriteTestFile(dir);
    std::vector<std::byte> bytes = ReadBytes(path);
    bytes[40] ^= std::byte{0x01};  // dataDepthM
    WriteBytes(path, bytes);
    EXPECT_EQ(OpenError(path),
              "pyramid file '" + path + "': header checksum mismatch: the file is corrupt");
}

TEST(PyramidFile, RejectsATruncatedFile) {
    TempDir dir;
    Pyramid p = MakeTestPyramid();
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    std::size_t full = bytes.size();
    bytes.resize(full - 1000);
    WriteBytes(path, bytes);
    EXPECT_EQ(OpenError(path), fmt::format("pyramid file '{}': truncated: {} bytes, expected {} "
                                           "for 5 stored tiles",
                                           path, full - 1000, full));
    bytes.resize(100);
    WriteBytes(path, bytes);
    EXPECT_TRUE(Contains(OpenError(path), "truncated: 100 bytes")) << OpenError(path);
}

TEST(PyramidFile, RejectsTrailingBytes) {
    TempDir dir;
    std::string path = WriteTestFile(dir);
    std::vector<std::byte> bytes = ReadBytes(path);
    bytes.push_back(std::byte{0});
    WriteBytes(path, bytes);
    EXPECT_TRUE(Contains(OpenError(path), fmt::format("trailing bytes: {} bytes, expected {}",
                                                      bytes.size(), bytes.size() - 1)))
        << OpenError(path);
}

TEST(PyramidFile, RejectsAWrongMagic) {
    TempDir dir;
    std::string path = dir.File("x.bfvp");
    std::string text = "hello, this is not a pyramid at all";
    WriteBytes(path, std::as_bytes(std::span(text)));
    EXPECT_EQ(OpenError(path), "pyramid file '" + path + "': not a bfv pyramid file (bad magic)");
}

TEST(PyramidFile, AnOldTerrainFileIsToldToReimport) {
    TempDir dir;
    std::string path = dir.File("old.bfvt");
    std::string text = "BFVTERR1 and the rest of a v1 terrain file";
    WriteBytes(path, std::as_bytes(std::span(text)));
    std::string error = OpenError(path);
    EXPECT_TRUE(Contains(error, "old single-grid terrain file")) << error;
    EXPECT_TRUE(Contains(error, "`bfv import`")) << error;
}

TEST(PyramidFile, RejectsAnotherVersion) {
    TempDir dir;
    std::string path = WriteTestFile(dir);
    std::vector<std::byte> bytes = ReadBytes(path);
    PutU32(bytes, versionOffset, 4);
    WriteBytes(path, bytes);
    EXPECT_EQ(OpenError(path),
              "pyramid file '" + path + "': unsupported version 4 (this bfv reads 1 to 3)");
}

/// The test pyramid draped with imagery: a palette of kPaletteColours colours and an index into
/// it per post.
Pyramid MakeDrapedPyramid() {
    Pyramid p = MakeTestPyramid(3, 5);
    p.info.drapedLevels = 3;
    for (int c = 0; c < kPaletteColours; ++c) {
        p.info.landColours.push_back({static_cast<std::uint8_t>(c), 200, 3});
    }
    for (TilePosts& tile : p.tiles) {
        tile.materials.resize(kTilePostCount);
        for (int k = 0; k < kTilePostCount; ++k) {
            tile.materials[k] = static_cast<std::uint8_t>((k * 13 + tile.key.tx + 5 * tile.key.ty) %
                                                          kPaletteColours);
        }
    }
    return p;
}

TEST(PyramidFile, AnUndrapedPyramidIsVersion1AndADrapedOneVersion3) {
    TempDir dir;
    EXPECT_EQ(ReadBytes(WriteTestFile(dir))[versionOffset], std::byte{1});
    EXPECT_EQ(PyramidFile::Open(WriteTestFile(dir))->Version(), 1u);
    Pyramid draped = MakeDrapedPyramid();
    std::string path = WriteTestFile(dir, draped);
    std::vector<std::byte> bytes = ReadBytes(path);
    EXPECT_EQ(bytes[versionOffset], std::byte{3});
    EXPECT_EQ(PyramidFile::Open(path)->Version(), 3u);
    std::size_t headerBytes = fixedHeaderBytes + draped.info.name.size() + kImageryBytes;
    EXPECT_EQ(bytes.size(),
              headerBytes + draped.tiles.size() * (indexEntryBytes + 3 * kTilePostCount));
}

TEST(PyramidFile, RoundTripsTheImageryPaletteAndEveryTilesMaterials) {
    TempDir dir;
    Pyramid p = MakeDrapedPyramid();
    Expected<PyramidFile> file = PyramidFile::Open(WriteTestFile(dir, p));
    ASSERT_TRUE(file.ok()) << file.error().message;
    ASSERT_TRUE(file->Info().Textured());
    EXPECT_EQ(file->Info().landColours, p.info.landColours);
    EXPECT_EQ(file->Info().name, p.info.name);
    for (const TilePosts& tile : p.tiles) {
        Expected<TilePosts> back = file->ReadTile(tile.key);
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(back->codes, tile.codes);
        EXPECT_EQ(back->materials, tile.materials) << tile.key.ToString();
    }
    EXPECT_TRUE(file->VerifyAllTiles().ok());
}

// MakeDrapedPyramid with imagery one level finer than its stored levels: level 3's 64 tiles
// hold material codes only.
Pyramid MakeFinelyDrapedPyramid() {
    Pyramid p = MakeDrapedPyramid();
    p.info.drapedLevels = 4;
    for (int ty = 0; ty < 8; ++ty) {
        for (int tx = 0; tx < 8; ++tx) {
            TilePosts tile{{3, tx, ty}, {}};
            tile.materials.resize(kTilePostCount);
            for (int k = 0; k < kTilePostCount; ++k) {
                tile.materials[k] =
                    static_cast<std::uint8_t>((k + 3 * tx + 7 * ty) % kPaletteColours);
            }
            p.tiles.push_back(std::move(tile));
        }
    }
    return p;
}

TEST(PyramidFile, RoundTripsTheImageryOfDrapedFractalLevels) {
    TempDir dir;
    Pyramid p = MakeFinelyDrapedPyramid();
    std::string path = WriteTestFile(dir, p);
    std::size_t stored = 1 + 4 + 16;
    EXPECT_EQ(ReadBytes(path).size(), fixedHeaderBytes + p.info.name.size() + kImageryBytes +
                                          p.tiles.size() * indexEntryBytes +
                                          stored * 3 * kTilePostCount + 64 * kTilePostCount);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Info().drapedLevels, 4);
    ASSERT_EQ(file->TileCount(), static_cast<int>(p.tiles.size()));
    for (const TilePosts& tile : p.tiles) {
        Expected<TilePosts> back = file->ReadTile(tile.key);
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(back->codes, tile.codes) << tile.key.ToString();
        EXPECT_EQ(back->materials, tile.materials) << tile.key.ToString();
    }
    EXPECT_TRUE(file->ReadTile({3, 7, 7})->codes.empty()) << "a fractal level keeps no heights";
    EXPECT_FALSE(file->ReadTile({4, 0, 0}).ok()) << "level 4 is not draped";
    EXPECT_TRUE(file->VerifyAllTiles().ok());
    // 10 bytes from the end: in the last draped tile.
    ExpectAFlippedByteNamesTile(path, 10, std::byte{4}, {3, 7, 7}, true);
}

TEST(PyramidFile, WriteRejectsDrapedLevelsThatDoNotFit) {
    TempDir dir;
    Pyramid withHeights = MakeFinelyDrapedPyramid();
    withHeights.tiles.back().codes.assign(kTilePostCount, 1);
    Expected<void> written = WritePyramidFile(dir.File("a.bfvp"), withHeights);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message, "tile L3/7/7 has 4761 codes, expected 0"))
        << written.error().message;
    Pyramid tooMany = MakeDrapedPyramid();
    tooMany.info.drapedLevels = 6;
    written = WritePyramidFile(dir.File("b.bfvp"), tooMany);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message,
                         "draped levels 6 outside 3..5 (the stored levels to the level count)"))
        << written.error().message;
    Pyramid undraped = MakeTestPyramid();
    undraped.info.drapedLevels = 2;
    written = WritePyramidFile(dir.File("c.bfvp"), undraped);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message, "draped levels 2 without imagery"))
        << written.error().message;
}

TEST(PyramidFile, AFlippedMaterialByteNamesTheTile) {
    TempDir dir;
    Pyramid p = MakeDrapedPyramid();
    std::string path = WriteTestFile(dir, p);
    std::size_t headerBytes = fixedHeaderBytes + p.info.name.size() + kImageryBytes;
    std::size_t tile1 = headerBytes + p.tiles.size() * indexEntryBytes + 3 * kTilePostCount;
    // A material code of tile 1, L1/0/0.
    ExpectAFlippedByteNamesTile(path, tile1 + 2 * kTilePostCount + 7, std::byte{1}, {1, 0, 0});
}

TEST(PyramidFile, RejectsAPaletteOfMoreThan256ColoursEvenWithAValidChecksum) {
    TempDir dir;
    Pyramid p = MakeDrapedPyramid();
    std::string path = WriteWithHeaderU32(dir, p, nameOffset + p.info.name.size(), 300);
    EXPECT_EQ(OpenError(path),
              "pyramid file '" + path + "': palette of 300 colours, expected 1 to 256");
    path = WriteWithHeaderU32(dir, p, nameOffset + p.info.name.size(), 0);
    EXPECT_EQ(OpenError(path),
              "pyramid file '" + path + "': palette of 0 colours, expected 1 to 256");
}

// A material code beyond the palette, with the tile's checksum made to match: ReadTile names the
// file, the tile and the code.
TEST(PyramidFile, ACodeBeyondThePaletteNamesTheFileAndTile) {
    TempDir dir;
    Pyramid p = MakeDrapedPyramid();
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    std::size_t headerBytes = fixedHeaderBytes + p.info.name.size() + kImageryBytes;
    std::size_t tile1 = headerBytes + p.tiles.size() * indexEntryBytes + 3 * kTilePostCount;
    bytes[tile1 + 2 * kTilePostCount + 7] = std::byte{250};
    PutU32(bytes, headerBytes + indexEntryBytes + 20,
           Crc32(std::span(bytes).subspan(tile1, 3 * kTilePostCount)));
    WriteBytes(path, bytes);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    Expected<TilePosts> tile = file->ReadTile({1, 0, 0});
    ASSERT_FALSE(tile.ok());
    EXPECT_EQ(tile.error().message, "pyramid file '" + path +
                                        "': tile L1/0/0: colour index 250 beyond the palette's "
                                        "200 colours");
}

TEST(PyramidFile, WriteRejectsMaterialsThatDoNotMatchThePalette) {
    TempDir dir;
    Pyramid missing = MakeDrapedPyramid();
    missing.tiles[2].materials.clear();
    Expected<void> written = WritePyramidFile(dir.File("a.bfvp"), missing);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message, "tile L1/1/0 has 0 material codes, expected"))
        << written.error().message;
    Pyramid stray = MakeTestPyramid();
    stray.tiles[0].materials.assign(kTilePostCount, 1);
    written = WritePyramidFile(dir.File("b.bfvp"), stray);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message, "has 4761 material codes, expected 0"))
        << written.error().message;
    Pyramid tooMany = MakeDrapedPyramid();
    tooMany.info.landColours.resize(300);
    written = WritePyramidFile(dir.File("c.bfvp"), tooMany);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message, "palette of 300 colours, at most 256"))
        << written.error().message;
    Pyramid beyond = MakeDrapedPyramid();
    beyond.tiles[3].materials[9] = kPaletteColours;
    written = WritePyramidFile(dir.File("d.bfvp"), beyond);
    ASSERT_FALSE(written.ok());
    EXPECT_TRUE(Contains(written.error().message,
                         "tile L1/0/1: colour index 200 beyond the palette's 200 colours"))
        << written.error().message;
    for (const char* name : {"a.bfvp", "b.bfvp", "c.bfvp", "d.bfvp"}) {
        EXPECT_FALSE(fs::exists(dir.File(name))) << name;
    }
}

// An 8-colour ramp whose red channel is 10 x its step.
common::LandColours TestRamp() {
    common::LandColours ramp;
    for (int m = 0; m < common::kLandMaterials; ++m) {
        ramp[m] = {static_cast<std::uint8_t>(10 * m), 100, static_cast<std::uint8_t>(200 - m)};
    }
    return ramp;
}

TEST(ExpandRamp, GivesEveryVersion2CodeTheRampsColourAtItsPlace) {
    std::vector<common::Rgb> palette = ExpandRamp(TestRamp());
    ASSERT_EQ(palette.size(), 256u);
    for (int c = 0; c < 256; ++c) {
        double place = std::min(c * 8.0 / 255.0, 7.0);  // the version 2 writer's code x 8 / 255
        EXPECT_NEAR(palette[c].r, 10.0 * place, 0.5 + 1e-3) << c;
        EXPECT_EQ(palette[c].g, 100);
    }
    EXPECT_EQ(palette[0], TestRamp()[0]);
    EXPECT_EQ(palette[255], TestRamp()[7]);
}

// A version 2 file (an 8-colour ramp and places on it: written here as the same bytes under the
// old version number) reads as the expanded ramp, its codes unchanged.
TEST(PyramidFile, ReadsAVersion2FileAsItsRampExpandedIntoAPalette) {
    TempDir dir;
    Pyramid p = MakeTestPyramid(2, 4);
    p.info.drapedLevels = 2;
    common::LandColours ramp = TestRamp();
    p.info.landColours.assign(ramp.begin(), ramp.end());
    for (TilePosts& tile : p.tiles) {
        tile.materials.resize(kTilePostCount);
        for (int k = 0; k < kTilePostCount; ++k)
            tile.materials[k] = static_cast<std::uint8_t>(k % 8);
    }
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    PutU32(bytes, versionOffset, 2);
    std::size_t crcOffset = nameOffset + p.info.name.size() + 4 + 3 * 8 + 4;
    PutU32(bytes, crcOffset, Crc32(std::span(bytes).first(crcOffset)));
    WriteBytes(path, bytes);
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    EXPECT_EQ(file->Version(), 2u);
    EXPECT_EQ(file->Info().landColours, ExpandRamp(ramp));
    Expected<TilePosts> root = file->ReadTile({0, 0, 0});
    ASSERT_TRUE(root.ok()) << root.error().message;
    EXPECT_EQ(root->materials, p.tiles[0].materials);
    PutU32(bytes, nameOffset + p.info.name.size(), 7);
    WriteBytes(path, bytes);
    EXPECT_EQ(OpenError(path),
              "pyramid file '" + path + "': version 2 ramp of 7 colours, expected 8");
}

TEST(PyramidFile, RejectsOtherTileConstants) {
    TempDir dir;
    std::string path = WriteWithHeaderU32(dir, MakeTestPyramid(), tileCellsOffset, 128);
    EXPECT_TRUE(Contains(OpenError(path), "written for tiles of 128 cells")) << OpenError(path);
}

TEST(PyramidFile, RejectsBadCountsEvenWithAValidChecksum) {
    TempDir dir;
    std::string path = WriteWithHeaderU32(dir, MakeTestPyramid(), levelCountOffset, 0xFFFFFFFF);
    EXPECT_TRUE(Contains(OpenError(path), "level count 4294967295 outside 1..20"))
        << OpenError(path);
    // storedLevels 5 > levelCount 4
    path = WriteWithHeaderU32(dir, MakeTestPyramid(2, 4), levelCountOffset + 4, 5);
    EXPECT_TRUE(Contains(OpenError(path), "stored levels 5 outside 1..4")) << OpenError(path);
}

TEST(PyramidFile, RejectsAnIndexEntryWithTheWrongKey) {
    TempDir dir;
    Pyramid p = MakeTestPyramid();
    std::string path = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(path);
    std::size_t entry3 = fixedHeaderBytes + p.info.name.size() + 3 * indexEntryBytes;
    bytes[entry3] ^= std::byte{0x01};  // L1/0/1 becomes L1/0/0
    WriteBytes(path, bytes);
    EXPECT_TRUE(Contains(OpenError(path), "index entry 3 is tile L1/0/0, expected L1/0/1"))
        << OpenError(path);
}

TEST(PyramidFile, RejectsMissingEmptyAndDirectoryPaths) {
    TempDir dir;
    EXPECT_TRUE(Contains(OpenError(dir.File("none.bfvp")),
                         "cannot open '" + dir.File("none.bfvp") + "': No such file"))
        << OpenError(dir.File("none.bfvp"));
    std::string empty = dir.File("empty.bfvp");
    WriteBytes(empty, {});
    EXPECT_EQ(OpenError(empty), "pyramid file '" + empty + "': empty file");
    fs::create_directory(dir.File("d.bfvp"));
    EXPECT_TRUE(Contains(OpenError(dir.File("d.bfvp")), "Is a directory"))
        << OpenError(dir.File("d.bfvp"));
}

TEST(PyramidFile, NeverCrashesOnCorruptInput) {
    TempDir dir;
    Pyramid p = MakeTestPyramid();
    std::string good = WriteTestFile(dir, p);
    std::vector<std::byte> bytes = ReadBytes(good);
    std::string path = dir.File("fuzz.bfvp");
    for (std::size_t size = 0; size < bytes.size(); size += 97) {
        WriteBytes(path, std::span(bytes).first(size));
        EXPECT_NE(OpenError(path), "") << "truncated to " << size;
    }
    // Every byte of the header and of the index, flipped in turn: an error at Open, or (for an
    // index entry's checksum) at verification; never a crash or a wrong tile read as good.
    std::size_t tilesOffset = TileOffset(p, 0);
    for (std::size_t at = 0; at < tilesOffset; ++at) {
        std::vector<std::byte> corrupt = bytes;
        corrupt[at] ^= std::byte{0x5A};
        WriteBytes(path, corrupt);
        Expected<PyramidFile> file = PyramidFile::Open(path);
        if (file.ok()) {
            EXPECT_GE(at, fixedHeaderBytes + p.info.name.size()) << "header byte " << at;
            EXPECT_FALSE(file->VerifyAllTiles().ok()) << "index byte " << at;
        }
    }
}

TEST(PyramidFile, IsMovable) {
    TempDir dir;
    Expected<PyramidFile> opened = PyramidFile::Open(WriteTestFile(dir));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    PyramidFile file = std::move(*opened);
    PyramidFile other = std::move(file);
    EXPECT_EQ(other.TileCount(), 5);
    Expected<PyramidFile> second = PyramidFile::Open(WriteTestFile(dir));
    ASSERT_TRUE(second.ok());
    other = std::move(*second);
    EXPECT_TRUE(other.ReadTile({1, 1, 1}).ok());
}

/// The error of writing `p` to a fresh path; checks that a failed write leaves no file.
std::string WriteError(const Pyramid& p) {
    TempDir dir;
    Expected<void> written = WritePyramidFile(dir.File("w.bfvp"), p);
    EXPECT_EQ(dir.EntryCount(), written.ok() ? 1 : 0);
    return written.ok() ? "" : written.error().message;
}

TEST(PyramidFile, WriteRejectsPyramidsItCannotStore) {
    Pyramid p = MakeTestPyramid();
    Pyramid missing = p;
    missing.tiles.pop_back();
    EXPECT_EQ(WriteError(missing), "pyramid 'test ridge': 4 tiles, expected 5 for 2 stored levels");
    Pyramid swapped = p;
    std::swap(swapped.tiles[1], swapped.tiles[2]);
    EXPECT_TRUE(Contains(WriteError(swapped), "tile 1 is L1/1/0, expected L1/0/0"));
    Pyramid shortTile = p;
    shortTile.tiles[3].codes.pop_back();
    EXPECT_TRUE(Contains(WriteError(shortTile),
                         fmt::format("tile L1/0/1 has {} codes", kTilePostCount - 1)));
    Pyramid nan = p;
    nan.info.dataWidthM = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(Contains(WriteError(nan), "bad data extent"));
    Pyramid zeroScale = p;
    zeroScale.info.coding.scaleM = 0.0;
    EXPECT_TRUE(Contains(WriteError(zeroScale), "bad height coding"));
    Pyramid infHurst = p;
    infHurst.info.roughness.hurst = INFINITY;
    EXPECT_TRUE(Contains(WriteError(infHurst), "bad roughness"));
    Pyramid tooManyLevels = p;
    tooManyLevels.info.geometry.levelCount = kMaxLevels + 1;
    EXPECT_TRUE(Contains(WriteError(tooManyLevels), "level count 21 outside 1..20"));
    Pyramid storedTooMany = p;
    storedTooMany.info.storedLevels = 5;
    EXPECT_TRUE(Contains(WriteError(storedTooMany), "stored levels 5 outside 1..4"));
    Pyramid longName = p;
    longName.info.name = std::string(256, 'x');
    EXPECT_TRUE(Contains(WriteError(longName), "name too long (256 bytes, at most 255)"));
    EXPECT_EQ(WriteError(MakeTestPyramid(1, 1, std::string(255, 'x'))), "");
}

TEST(PyramidFile, AFailedWriteKeepsTheOldFileAndLeavesNoOther) {
    TempDir dir;
    std::string path = WriteTestFile(dir);
    std::vector<std::byte> before = ReadBytes(path);
    Pyramid bad = MakeTestPyramid();
    bad.tiles.clear();
    EXPECT_FALSE(WritePyramidFile(path, bad).ok());
    EXPECT_EQ(ReadBytes(path), before);
    Expected<void> noDir = WritePyramidFile(dir.File("missing/p.bfvp"), MakeTestPyramid());
    ASSERT_FALSE(noDir.ok());
    EXPECT_TRUE(Contains(noDir.error().message, "cannot write")) << noDir.error().message;
    EXPECT_EQ(dir.EntryCount(), 1);
}

}  // namespace
}  // namespace bfv::terrain
