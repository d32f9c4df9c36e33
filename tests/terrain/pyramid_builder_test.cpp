// Building a pyramid's stored levels from a DEM read a strip of rows at a time: the reads, the
// order the tiles come in, the same pyramid whatever the strips, and the errors of the source
// and of the sink.

#include "terrain/pyramid_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tests/expected_error.h"
#include "tests/terrain/pyramid_build_fixture.h"

namespace bfv::terrain {
namespace {

using test_support::ErrorOf;
using test_support::RecordingRows;
using test_support::RecordingSink;
using test_support::RoughTerrain;

/// `rows` read `stripRows` rows at a time (fewer at the north edge).
class Strips final : public PostRowSource {
  public:
    Strips(PostRowSource& rows, int stripRows) : rows_(rows), stripRows_(stripRows) {}
    const SourceGrid& Grid() const override { return rows_.Grid(); }
    int StripRows(int j0) const override { return std::min(stripRows_, Grid().ny - j0); }
    Expected<void> ReadRows(int j0, int count, std::span<float> heightsM) override {
        return rows_.ReadRows(j0, count, heightsM);
    }

  private:
    PostRowSource& rows_;
    int stripRows_;
};

/// A TileSink that keeps every tile it is given.
class TileCollector final : public TileSink {
  public:
    Expected<void> Start(const PyramidInfo&) override { return {}; }
    Expected<void> PutTileRow(std::span<const TilePosts> row) override {
        tiles.insert(tiles.end(), row.begin(), row.end());
        return {};
    }
    std::vector<TilePosts> tiles;
};

TEST(TerrainRows, GivesTheTerrainsGridAndRowsInStripsOf64) {
    Terrain terrain = RoughTerrain(5, 150, 20.0);
    TerrainRows rows(terrain);
    EXPECT_EQ(rows.Grid().name, "rough");
    EXPECT_EQ(rows.Grid().nx, 5);
    EXPECT_EQ(rows.Grid().ny, 150);
    EXPECT_EQ(rows.Grid().spacingYM, 20.0);
    EXPECT_EQ(rows.StripRows(0), 64);
    EXPECT_EQ(rows.StripRows(64), 64);
    EXPECT_EQ(rows.StripRows(128), 22);
    EXPECT_EQ(rows.StripRows(149), 1);
    std::vector<float> heightsM(2 * 5);
    ASSERT_TRUE(rows.ReadRows(7, 2, heightsM).ok());
    EXPECT_EQ(heightsM[0], terrain.HeightAt(0, 7));
    EXPECT_EQ(heightsM[9], terrain.HeightAt(4, 8));
}

// Taken over, the terrain lives as long as the rows: the caller's is gone when they are read.
TEST(TerrainRows, KeepsATerrainItTakesOver) {
    std::unique_ptr<TerrainRows> rows;
    {
        Terrain moved = RoughTerrain(4, 3, 10.0);
        rows = std::make_unique<TerrainRows>(std::move(moved));
    }
    std::vector<float> heightsM(4);
    ASSERT_TRUE(rows->ReadRows(2, 1, heightsM).ok());
    EXPECT_EQ(heightsM[3], RoughTerrain(4, 3, 10.0).HeightAt(3, 2));
    EXPECT_EQ(rows->Grid().ny, 3);
}

// Two passes over the source, each reading every row once, south to north, a strip at a
// time; the sink gets the header first, then every stored tile once, a whole row of a level at
// a time, each level's rows in order.
TEST(BuildPyramidFromRows, ReadsEachRowOnceAPassAndGivesEveryTileOnce) {
    Terrain terrain = RoughTerrain(150, 200, 20.0);
    TerrainRows rows(terrain);
    RecordingRows recorded(rows);
    RecordingSink sink;
    Expected<PyramidBuild> built = BuildPyramidFromRows(recorded, {4.0, 7, 1.0}, sink);
    ASSERT_TRUE(built) << built.error().message;
    EXPECT_EQ(sink.starts, 1);
    EXPECT_EQ(sink.info.coding.scaleM, built->info.coding.scaleM);
    int next = 0, passes = 0;
    for (auto [j0, count] : recorded.reads) {
        if (j0 == 0) {
            EXPECT_EQ(next, passes == 0 ? 0 : terrain.ny) << "a pass ends at the north edge";
            next = 0;
            ++passes;
        }
        EXPECT_EQ(j0, next);
        EXPECT_EQ(count, rows.StripRows(j0));
        next = j0 + count;
    }
    EXPECT_EQ(passes, 2);
    EXPECT_EQ(next, terrain.ny);
    int stored = built->info.storedLevels;
    ASSERT_EQ(sink.keys.size(), TilesBelowLevel(stored));
    std::vector<int> seen(sink.keys.size(), 0), nextRow(stored, 0);
    std::size_t k = 0;
    for (int size : sink.rowSizes) {
        TileKey first = sink.keys[k];
        EXPECT_EQ(size, 1 << first.level);
        EXPECT_EQ(first.ty, nextRow[first.level]++);
        for (int tx = 0; tx < size; ++tx, ++k) {
            EXPECT_EQ(sink.keys[k], (TileKey{first.level, tx, first.ty}));
            ++seen[TileIndex(stored, sink.keys[k])];
        }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(seen.size()));
    HeightRange range = ComputeHeightRange(terrain);
    EXPECT_EQ(built->sourceHeightsM.minM, range.minM);
    EXPECT_EQ(built->sourceHeightsM.maxM, range.maxM);
}

// The promise of the builder: the same pyramid, bit for bit, whether the DEM is held whole
// (BuildPyramid) or read a row or 7 rows at a time.
TEST(BuildPyramidFromRows, TheStripsDoNotChangeThePyramid) {
    Terrain terrain = RoughTerrain(90, 70, 20.0);
    Expected<Pyramid> whole = BuildPyramid(terrain, {4.0, 7, 1.0});
    ASSERT_TRUE(whole) << whole.error().message;
    TerrainRows rows(terrain);
    for (int stripRows : {1, 7}) {
        Strips strips(rows, stripRows);
        TileCollector sink;
        Expected<PyramidBuild> built = BuildPyramidFromRows(strips, {4.0, 7, 1.0}, sink);
        ASSERT_TRUE(built) << built.error().message;
        EXPECT_EQ(built->info.coding.scaleM, whole->info.coding.scaleM);
        EXPECT_EQ(built->info.coding.offsetM, whole->info.coding.offsetM);
        EXPECT_EQ(built->info.roughness.sigmaM, whole->info.roughness.sigmaM);
        ASSERT_EQ(sink.tiles.size(), whole->tiles.size()) << stripRows;
        for (const TilePosts& tile : sink.tiles) {
            int index = whole->StoredIndex(tile.key);
            ASSERT_GE(index, 0) << tile.key.ToString();
            EXPECT_EQ(tile.codes, whole->tiles[index].codes)
                << tile.key.ToString() << " in strips of " << stripRows;
        }
    }
}

// The progress counts posts of both passes up to its total, never back.
TEST(BuildPyramidFromRows, ProgressRisesToItsTotal) {
    Terrain terrain = RoughTerrain(60, 50, 20.0);
    TerrainRows rows(terrain);
    TileCollector sink;
    long long lastDone = -1, lastTotal = 0;
    int calls = 0;
    auto progress = [&](long long done, long long total) {
        EXPECT_GE(done, lastDone);
        EXPECT_LE(done, total);
        lastDone = done;
        lastTotal = total;
        ++calls;
    };
    ASSERT_TRUE(BuildPyramidFromRows(rows, {4.0, 7, 1.0}, sink, progress));
    EXPECT_GT(calls, 1);
    EXPECT_GT(lastTotal, 0);
    EXPECT_EQ(lastDone, lastTotal);
}

// The first error of the source or the sink ends the build and is its error; a source that
// fails in the first pass has given the sink nothing.
TEST(BuildPyramidFromRows, AnErrorOfTheSourceOrTheSinkEndsTheBuild) {
    Terrain terrain = RoughTerrain(60, 50, 20.0);
    TerrainRows rows(terrain);
    RecordingRows failing(rows, 0);
    RecordingSink sink;
    Expected<PyramidBuild> built = BuildPyramidFromRows(failing, {4.0, 7, 1.0}, sink);
    ASSERT_FALSE(built);
    EXPECT_EQ(built.error().message, "disk on fire");
    EXPECT_EQ(failing.reads.size(), 1u);
    EXPECT_EQ(sink.starts, 0);
    RecordingRows counted(rows);
    RecordingSink full(1);
    built = BuildPyramidFromRows(counted, {4.0, 7, 1.0}, full);
    ASSERT_FALSE(built);
    EXPECT_EQ(built.error().message, "disk full");
    EXPECT_EQ(full.rowSizes.size(), 1u) << "no row after the failed one";
}

// A source too small for a pyramid is refused before it is read.
TEST(BuildPyramidFromRows, RefusesATinySourceBeforeReadingIt) {
    TerrainRows rows(RoughTerrain(1, 1, 20.0));
    RecordingRows recorded(rows);
    RecordingSink sink;
    std::string error = ErrorOf(BuildPyramidFromRows(recorded, {4.0, 7, 1.0}, sink));
    EXPECT_NE(error.find("at least 2 x 2"), std::string::npos) << error;
    EXPECT_TRUE(recorded.reads.empty());
    EXPECT_EQ(sink.starts, 0);
}

}  // namespace
}  // namespace bfv::terrain
