// The terrain every rank starts with: read from a pyramid file (its header and pinned levels),
// encoded for the broadcast and decoded back, and the decoder's errors. (The MPI broadcast of
// these bytes is tested in tests/mpi/terrain_broadcast_test.cpp.)

#include "terrain/terrain_startup.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "terrain/tile_stream.h"
#include "tests/expected_error.h"
#include "tests/pyramid_fixture.h"
#include "tests/temp_dir.h"

namespace bfv::terrain {
namespace {

using test_support::ErrorOf;
using test_support::MakeTestPyramid;
using test_support::TempDir;

/// The start-up terrain of `pyramid` written to DIR/p.bfvp and opened.
Expected<TerrainStartup> StartupOfFile(const TempDir& dir, const Pyramid& pyramid) {
    std::string path = dir.File("p.bfvp");
    if (auto written = WritePyramidFile(path, pyramid); !written) return written.error();
    Expected<PyramidFile> file = PyramidFile::Open(path);
    if (!file) return file.error();
    return ReadTerrainStartup(*file);
}

// Three stored levels, all pinned: 1 + 4 + 16 tiles in level, row, column order, as stored.
TEST(TerrainStartup, ReadsTheHeaderAndEveryPinnedTileOfAFile) {
    TempDir dir;
    Pyramid pyramid = MakeTestPyramid(3, 5);
    Expected<TerrainStartup> startup = StartupOfFile(dir, pyramid);
    ASSERT_TRUE(startup.ok()) << startup.error().message;
    EXPECT_EQ(startup->info.name, "test ridge");
    EXPECT_EQ(startup->info.storedLevels, 3);
    ASSERT_EQ(startup->pinned.size(), 21u);
    for (std::size_t k = 0; k < pyramid.tiles.size(); ++k) {
        EXPECT_EQ(startup->pinned[k].key, pyramid.tiles[k].key) << k;
        EXPECT_EQ(startup->pinned[k].codes, pyramid.tiles[k].codes) << k;
    }
}

// --exaggeration: every height decoded from the same codes, and the range, times the factor.
TEST(TerrainStartup, ExaggeratedHeightsAreTheFactorTimesTheFilesFromTheSameCodes) {
    TempDir dir;
    Expected<TerrainStartup> startup = StartupOfFile(dir, MakeTestPyramid(2, 4));
    ASSERT_TRUE(startup.ok()) << startup.error().message;
    TerrainStartup exaggerated = *startup;
    Exaggerate(exaggerated, 2.5);
    EXPECT_FLOAT_EQ(exaggerated.info.minHeightM, 2.5f * startup->info.minHeightM);
    EXPECT_FLOAT_EQ(exaggerated.info.maxHeightM, 2.5f * startup->info.maxHeightM);
    ASSERT_EQ(exaggerated.pinned.size(), startup->pinned.size());
    for (std::size_t t = 0; t < exaggerated.pinned.size(); ++t) {
        ASSERT_EQ(exaggerated.pinned[t].codes, startup->pinned[t].codes);
    }
    for (std::int16_t code : {std::int16_t{-300}, std::int16_t{0}, std::int16_t{1234}}) {
        EXPECT_NEAR(exaggerated.info.coding.Decode(code), 2.5 * startup->info.coding.Decode(code),
                    1e-3);
    }
}

TEST(TerrainStartup, EncodedAndDecodedItIsTheSame) {
    TempDir dir;
    Expected<TerrainStartup> read = StartupOfFile(dir, MakeTestPyramid(2, 4));
    ASSERT_TRUE(read.ok()) << read.error().message;
    std::vector<std::byte> bytes = EncodeTerrainStartup(*read);
    EXPECT_EQ(bytes.size(), EncodePyramidHeader(read->info).size() + 5 * kTileRecordBytes);
    Expected<TerrainStartup> back = DecodeTerrainStartup(bytes);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->info.name, read->info.name);
    EXPECT_EQ(back->info.roughness.seed, read->info.roughness.seed);
    EXPECT_EQ(back->info.minHeightM, read->info.minHeightM);
    ASSERT_EQ(back->pinned.size(), read->pinned.size());
    for (std::size_t k = 0; k < back->pinned.size(); ++k) {
        EXPECT_EQ(back->pinned[k].key, read->pinned[k].key) << k;
        EXPECT_EQ(back->pinned[k].codes, read->pinned[k].codes) << k;
    }
}

// The last tile stored (L1/1/1) has a flipped byte: the start-up read names it.
TEST(TerrainStartup, ACorruptPinnedTileIsNamed) {
    TempDir dir;
    std::string path = dir.File("p.bfvp");
    ASSERT_TRUE(WritePyramidFile(path, MakeTestPyramid(2, 4)).ok());
    std::vector<std::byte> bytes = *common::ReadFileBytes(path);
    bytes.back() ^= std::byte{0x10};
    ASSERT_TRUE(common::WriteFileAtomic(path, bytes).ok());
    Expected<PyramidFile> file = PyramidFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.error().message;
    std::string error = ErrorOf(ReadTerrainStartup(*file));
    EXPECT_NE(error.find("tile L1/1/1 is corrupt"), std::string::npos) << error;
}

TEST(TerrainStartup, DecodingRefusesABadHeaderAnotherRecordOrMissingTiles) {
    Pyramid pyramid = MakeTestPyramid(2, 4);
    std::vector<std::byte> header = EncodePyramidHeader(pyramid.info);
    std::vector<std::byte> garbage(200, std::byte{7});
    EXPECT_TRUE(ErrorOf(DecodeTerrainStartup(garbage)).starts_with("terrain start-up data: "))
        << ErrorOf(DecodeTerrainStartup(garbage));
    std::vector<std::byte> evict = header;
    AppendEvictRecord({1, 0, 0}, evict);
    EXPECT_EQ(ErrorOf(DecodeTerrainStartup(evict)), "terrain start-up data: not a tile record");
    std::vector<std::byte> short1 = header;
    for (int k = 0; k < 4; ++k) AppendTileRecord(pyramid.tiles[k], short1);
    EXPECT_EQ(ErrorOf(DecodeTerrainStartup(short1)),
              "terrain start-up data: 4 pinned tiles, expected 5");
}

}  // namespace
}  // namespace bfv::terrain
