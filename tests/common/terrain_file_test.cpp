#include "common/terrain_file.h"
#include "tests/temp_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

namespace bfv::common {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t nxOffset = 16;  // byte offsets of header fields (see terrain_file.h)
constexpr std::size_t versionOffset = 8;
constexpr std::size_t spacingXOffset = 24;
constexpr std::size_t nameBytesOffset = 88;
constexpr std::size_t fixedHeaderBytes = 96;

/// A small terrain with heights f(i, j).
template <typename F>
Terrain MakeTerrain(int nx, int ny, F heightM) {
    Terrain t{"test", nx, ny, 30.0, 40.0, {-84.4, -84.0, 36.4, 36.7}, {}};
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) t.heightsM.push_back(static_cast<float>(heightM(i, j)));
    }
    return t;
}

Terrain IntegerTerrain() {
    return MakeTerrain(7, 5, [](int i, int j) { return 236 + 37 * i - 11 * j * j; });
}

void PutU32(std::vector<std::byte>& bytes, std::size_t offset, std::uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes[offset + k] = static_cast<std::byte>(v >> (8 * k));
}

/// The error message of decoding `bytes`, or "" if it decodes.
std::string DecodeError(std::span<const std::byte> bytes) {
    Expected<Terrain> t = DecodeTerrain(bytes, "x.bfvt");
    return t.ok() ? "" : t.error().message;
}

bool Contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(TerrainFile, RoundTripsIntegerHeightsExactly) {
    Terrain t = IntegerTerrain();
    Expected<Terrain> back = DecodeTerrain(EncodeTerrain(t), "x.bfvt");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->name, t.name);
    EXPECT_EQ(back->nx, t.nx);
    EXPECT_EQ(back->ny, t.ny);
    EXPECT_EQ(back->spacingXM, t.spacingXM);
    EXPECT_EQ(back->spacingYM, t.spacingYM);
    EXPECT_EQ(back->geo.lonMinDeg, t.geo.lonMinDeg);
    EXPECT_EQ(back->geo.latMaxDeg, t.geo.latMaxDeg);
    EXPECT_EQ(back->heightsM, t.heightsM);
}

TEST(TerrainFile, UsesUnitScaleForIntegerHeights) {
    Terrain t = IntegerTerrain();
    Expected<TerrainFileInfo> info = ReadTerrainHeader(EncodeTerrain(t), "x.bfvt");
    ASSERT_TRUE(info.ok()) << info.error().message;
    EXPECT_EQ(info->heightScaleM, 1.0f);
    EXPECT_EQ(info->heightOffsetM, 0.0f);
    HeightRange range = ComputeHeightRange(t);
    EXPECT_EQ(info->minHeightM, range.minM);
    EXPECT_EQ(info->maxHeightM, range.maxM);
}

TEST(TerrainFile, RoundTripsFractionalHeightsWithinHalfAStep) {
    Terrain t = MakeTerrain(40, 30, [](int i, int j) { return 1234.5 * std::sin(0.3 * i + j); });
    std::vector<std::byte> bytes = EncodeTerrain(t);
    float scaleM = ReadTerrainHeader(bytes, "x.bfvt")->heightScaleM;
    EXPECT_GT(scaleM, 0.0f);
    EXPECT_LT(scaleM, 2 * 1234.5 / 65000);  // the int16 range is used
    Expected<Terrain> back = DecodeTerrain(bytes, "x.bfvt");
    ASSERT_TRUE(back.ok()) << back.error().message;
    for (std::size_t k = 0; k < t.heightsM.size(); ++k) {
        ASSERT_NEAR(back->heightsM[k], t.heightsM[k], 0.5 * scaleM * 1.001) << "post " << k;
    }
}

TEST(TerrainFile, RoundTripsAFlatFractionalTerrain) {
    Terrain t = MakeTerrain(3, 2, [](int, int) { return 12.25; });
    Expected<Terrain> back = DecodeTerrain(EncodeTerrain(t), "x.bfvt");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->heightsM, t.heightsM);
}

TEST(TerrainFile, FollowsTheDocumentedLayout) {
    Terrain t = IntegerTerrain();
    std::vector<std::byte> bytes = EncodeTerrain(t);
    ASSERT_EQ(bytes.size(), fixedHeaderBytes + t.name.size() + 2 * 7 * 5);
    EXPECT_EQ(std::memcmp(bytes.data(), "BFVTERR1", 8), 0);
    EXPECT_EQ(bytes[versionOffset], std::byte{1});
    EXPECT_EQ(bytes[nxOffset], std::byte{7});
    EXPECT_EQ(bytes[nameBytesOffset], std::byte{4});
    std::size_t postsStart = fixedHeaderBytes + t.name.size();
    auto post0 = static_cast<int>(bytes[postsStart]) | static_cast<int>(bytes[postsStart + 1]) << 8;
    EXPECT_EQ(post0, 236);  // post (0, 0), little-endian
}

TEST(TerrainFile, RejectsTruncatedFilesAtEveryStage) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    std::size_t headerBytes = fixedHeaderBytes + 4;
    for (std::size_t n :
         {std::size_t{0}, std::size_t{4}, std::size_t{8}, std::size_t{11}, std::size_t{50},
          std::size_t{95}, headerBytes - 1, headerBytes, headerBytes + 1, bytes.size() - 1}) {
        std::string error = DecodeError(std::span(bytes).first(n));
        EXPECT_TRUE(Contains(error, "terrain file 'x.bfvt': ")) << n << ": " << error;
        EXPECT_TRUE(Contains(error, "too short") || Contains(error, "truncated") ||
                    Contains(error, "empty"))
            << n << ": " << error;
    }
}

TEST(TerrainFile, TruncatedPostsReportExpectedAndActualSizes) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    std::string error = DecodeError(std::span(bytes).first(bytes.size() - 10));
    EXPECT_TRUE(Contains(error, "expected " + std::to_string(bytes.size()) + " bytes")) << error;
    EXPECT_TRUE(Contains(error, "got " + std::to_string(bytes.size() - 10))) << error;
}

TEST(TerrainFile, RejectsTrailingBytes) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    bytes.push_back(std::byte{0});
    EXPECT_TRUE(Contains(DecodeError(bytes), "trailing bytes")) << DecodeError(bytes);
}

TEST(TerrainFile, RejectsWrongMagic) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    bytes[3] = std::byte{'X'};
    EXPECT_TRUE(Contains(DecodeError(bytes), "terrain file 'x.bfvt': not a bfv terrain file"))
        << DecodeError(bytes);
}

TEST(TerrainFile, RejectsOtherVersions) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    PutU32(bytes, versionOffset, 7);
    EXPECT_TRUE(Contains(DecodeError(bytes), "version 7, this bfv reads version 1"))
        << DecodeError(bytes);
}

TEST(TerrainFile, DetectsAFlippedPostByte) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    bytes[bytes.size() - 3] ^= std::byte{0x10};
    EXPECT_EQ(DecodeError(bytes),
              "terrain file 'x.bfvt': posts checksum mismatch: file is corrupt");
}

TEST(TerrainFile, RejectsAbsurdOrZeroGridSizes) {
    for (std::uint32_t nx : {0u, 65537u, 100000u, 0xFFFFFFFFu}) {
        std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
        PutU32(bytes, nxOffset, nx);
        std::string error = DecodeError(bytes);
        EXPECT_TRUE(Contains(error, "bad grid size nx=" + std::to_string(nx))) << error;
    }
}

TEST(TerrainFile, RejectsNonPositiveOrNanSpacing) {
    for (double spacingM : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
        Terrain t = IntegerTerrain();
        std::vector<std::byte> bytes = EncodeTerrain(t);
        std::memcpy(bytes.data() + spacingXOffset, &spacingM, 8);  // little-endian host
        EXPECT_TRUE(Contains(DecodeError(bytes), "bad post spacing")) << DecodeError(bytes);
    }
}

TEST(TerrainFile, RejectsOverlongName) {
    std::vector<std::byte> bytes = EncodeTerrain(IntegerTerrain());
    PutU32(bytes, nameBytesOffset, 300);
    EXPECT_TRUE(Contains(DecodeError(bytes), "name too long")) << DecodeError(bytes);
}

TEST(TerrainFile, CutsLongNamesAtACharacterBoundary) {
    Terrain t = IntegerTerrain();
    t.name = std::string(254, 'a') + "\xC3\xA9";  // 256 bytes ending in a 2-byte character
    Expected<Terrain> back = DecodeTerrain(EncodeTerrain(t), "x.bfvt");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->name, std::string(254, 'a'));
}

using test_support::TempDir;

TEST(TerrainFile, WritesAndReadsFiles) {
    TempDir dir;
    Terrain t = IntegerTerrain();
    ASSERT_TRUE(WriteTerrainFile(dir.File("t.bfvt"), t).ok());
    Expected<Terrain> back = ReadTerrainFile(dir.File("t.bfvt"));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->heightsM, t.heightsM);
}

TEST(TerrainFile, ReadingAMissingFileNamesIt) {
    TempDir dir;
    Expected<Terrain> t = ReadTerrainFile(dir.File("none.bfvt"));
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(Contains(t.error().message, "none.bfvt")) << t.error().message;
}

TEST(TerrainFile, RefusesToWriteUnstorableTerrains) {
    TempDir dir;
    Terrain nan = IntegerTerrain();
    nan.heightsM[3] = std::numeric_limits<float>::quiet_NaN();
    Terrain wrongCount = IntegerTerrain();
    wrongCount.heightsM.pop_back();
    Terrain empty;
    for (const Terrain& t : {nan, wrongCount, empty}) {
        Expected<void> written = WriteTerrainFile(dir.File("t.bfvt"), t);
        EXPECT_FALSE(written.ok());
        EXPECT_FALSE(fs::exists(dir.File("t.bfvt")));
    }
}

}  // namespace
}  // namespace bfv::common
