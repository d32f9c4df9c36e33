#include "terrain/tile_stream.h"

#include <gtest/gtest.h>

#include "terrain/terrain_startup.h"

namespace bfv::terrain {
namespace {

TilePosts PatternTile(TileKey key) {
    TilePosts tile{key, std::vector<std::int16_t>(kTilePostCount)};
    for (int k = 0; k < kTilePostCount; ++k)
        tile.codes[k] = static_cast<std::int16_t>(k * 7 + key.tx);
    return tile;
}

const PyramidGeometry kGeometry{4096.0, 5};

TEST(TileStream, RecordsSurviveAnySplitIntoMessages) {
    std::vector<std::byte> stream;
    AppendTileRecord(PatternTile({3, 5, 6}), stream);
    AppendEvictRecord({4, 15, 2}, stream);
    AppendFrameReadyRecord(42, stream);
    AppendTileRecord(PatternTile({0, 0, 0}), stream);
    AppendEndOfStreamRecord(stream);
    ASSERT_EQ(stream.size(), 2 * kTileRecordBytes + 3 * kTileRecordHeaderBytes);
    for (std::size_t chunk : {1ul, 7ul, 1000ul, stream.size()}) {
        TileStreamReader reader;
        std::vector<TileRecord> records;
        for (std::size_t at = 0; at < stream.size(); at += chunk) {
            reader.Feed(std::span(stream).subspan(at, std::min(chunk, stream.size() - at)));
            TileRecord r;
            while (true) {
                auto next = reader.Next(kGeometry, r);
                ASSERT_TRUE(next.ok()) << next.error().message;
                if (!*next) break;
                records.push_back(r);
            }
        }
        ASSERT_EQ(records.size(), 5u) << "chunk " << chunk;
        EXPECT_EQ(records[0].kind, TileRecord::kTile);
        EXPECT_EQ(records[0].tile.key, (TileKey{3, 5, 6}));
        EXPECT_EQ(records[0].tile.codes, PatternTile({3, 5, 6}).codes);
        EXPECT_EQ(records[1].kind, TileRecord::kEvict);
        EXPECT_EQ(records[1].tile.key, (TileKey{4, 15, 2}));
        EXPECT_EQ(records[2].kind, TileRecord::kFrameReady);
        EXPECT_EQ(records[2].frame, 42u);
        EXPECT_EQ(records[4].kind, TileRecord::kEndOfStream);
    }
}

TEST(TileStream, ATileWithMaterialsCarriesThemAndOneWithoutDoesNot) {
    TilePosts draped = PatternTile({2, 1, 3});
    draped.materials.resize(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k) draped.materials[k] = static_cast<std::uint8_t>(k);
    std::vector<std::byte> stream;
    AppendTileRecord(draped, stream);
    AppendTileRecord(PatternTile({0, 0, 0}), stream);
    ASSERT_EQ(stream.size(), kMaxTileRecordBytes + kTileRecordBytes);
    TileStreamReader reader;
    reader.Feed(std::span(stream).first(kMaxTileRecordBytes - 1));
    TileRecord r;
    auto next = reader.Next(kGeometry, r);
    ASSERT_TRUE(next.ok()) << next.error().message;
    EXPECT_FALSE(*next);  // one byte short of the materials
    reader.Feed(std::span(stream).subspan(kMaxTileRecordBytes - 1));
    next = reader.Next(kGeometry, r);
    ASSERT_TRUE(next.ok() && *next);
    EXPECT_EQ(r.kind, TileRecord::kTile);
    EXPECT_EQ(r.tile.key, draped.key);
    EXPECT_EQ(r.tile.codes, draped.codes);
    EXPECT_EQ(r.tile.materials, draped.materials);
    next = reader.Next(kGeometry, r);
    ASSERT_TRUE(next.ok() && *next);
    EXPECT_EQ(r.tile.key, (TileKey{0, 0, 0}));
    EXPECT_TRUE(r.tile.materials.empty());
}

TEST(TileStream, RejectsUnknownKindsAndKeysOutsideThePyramid) {
    std::vector<std::byte> stream;
    AppendEvictRecord({5, 0, 0}, stream);  // level 5 of a 5-level pyramid
    TileStreamReader reader;
    reader.Feed(stream);
    TileRecord r;
    auto next = reader.Next(kGeometry, r);
    ASSERT_FALSE(next.ok());
    EXPECT_NE(next.error().message.find("L5/0/0 is outside the pyramid"), std::string::npos);
    stream.assign(kTileRecordHeaderBytes, std::byte{9});
    TileStreamReader other;
    other.Feed(stream);
    next = other.Next(kGeometry, r);
    ASSERT_FALSE(next.ok());
    EXPECT_NE(next.error().message.find("unknown record kind"), std::string::npos);
}

TEST(TerrainStartup, RoundTripsHeaderAndPinnedTiles) {
    TerrainStartup startup;
    startup.info.name = "x";
    startup.info.geometry = kGeometry;
    startup.info.storedLevels = 2;
    startup.info.coding = {0.25, -3.0};
    startup.info.roughness = {1.5, 30.0, 0.7, 99};
    startup.info.dataWidthM = 3000.0;
    startup.info.dataDepthM = 2000.0;
    startup.info.sourceSpacingM = 30.0;
    for (int k = 0; k < 5; ++k)
        startup.pinned.push_back(
            PatternTile(k == 0 ? TileKey{0, 0, 0} : TileKey{1, (k - 1) % 2, (k - 1) / 2}));
    auto bytes = EncodeTerrainStartup(startup);
    auto back = DecodeTerrainStartup(bytes);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->info.roughness.seed, 99u);
    EXPECT_EQ(back->info.coding.offsetM, -3.0);
    EXPECT_EQ(back->info.geometry.levelCount, 5);
    ASSERT_EQ(back->pinned.size(), 5u);
    EXPECT_EQ(back->pinned[4].codes, startup.pinned[4].codes);
    bytes.resize(bytes.size() - 10);
    auto truncated = DecodeTerrainStartup(bytes);
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error().message.find("4 pinned tiles, expected 5"), std::string::npos);
}

TEST(TerrainStartup, CarriesTheImageryRampAndThePinnedTilesMaterials) {
    TerrainStartup startup;
    startup.info.name = "draped";
    startup.info.geometry = kGeometry;
    startup.info.storedLevels = 1;
    startup.info.coding = {0.25, 0.0};
    startup.info.roughness = {1.0, 30.0, 0.7, 1};
    startup.info.dataWidthM = startup.info.dataDepthM = 4000.0;
    startup.info.sourceSpacingM = 60.0;
    startup.info.landColours.assign(common::kLandMaterials, {1, 2, 3});
    startup.info.drapedLevels = 1;
    startup.info.landColours[5] = {250, 251, 252};
    startup.pinned.push_back(PatternTile({0, 0, 0}));
    startup.pinned[0].materials.assign(kTilePostCount, 77);
    auto back = DecodeTerrainStartup(EncodeTerrainStartup(startup));
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_TRUE(back->info.Textured());
    EXPECT_EQ(back->info.landColours[5].b, 252);
    ASSERT_EQ(back->pinned.size(), 1u);
    EXPECT_EQ(back->pinned[0].materials, startup.pinned[0].materials);
}

}  // namespace
}  // namespace bfv::terrain
