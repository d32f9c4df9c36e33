#include "terrain/tile_pyramid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/file_io.h"
#include "terrain/pyramid_builder.h"
#include "terrain/pyramid_file.h"
#include "tests/temp_dir.h"
#include "tests/terrain/pyramid_build_fixture.h"

namespace bfv::terrain {
namespace {

namespace fs = std::filesystem;

using test_support::RecordingRows;
using test_support::RoughTerrain;
using test_support::TempDir;

/// Height of global post (i, j) of `level` as tile `tile` stores it.
float PostM(const PyramidInfo& info, const TilePosts& tile, int i, int j) {
    int a = i - tile.key.tx * kTileCells + kTileBorder,
        b = j - tile.key.ty * kTileCells + kTileBorder;
    EXPECT_TRUE(a >= 0 && a < kTilePosts && b >= 0 && b < kTilePosts) << i << "," << j;
    return info.coding.Decode(tile.codes[b * kTilePosts + a]);
}

class PyramidTest : public testing::Test {
  protected:
    // 150 x 120 posts 20 m apart (3 x 2.4 km): finest 4 m, so stored levels 0..2 (spacing
    // 64, 32, 16 m) and fractal levels 3..4 (8, 4 m).
    void SetUp() override {
        auto built = BuildPyramid(RoughTerrain(150, 120, 20.0), {4.0, 7, 1.0});
        ASSERT_TRUE(built) << built.error().message;
        pyramid = std::move(*built);
    }
    const TilePosts& Stored(TileKey key) const {
        int index = pyramid.StoredIndex(key);
        EXPECT_GE(index, 0);
        return pyramid.tiles.at(index);
    }
    Pyramid pyramid;
};

TEST_F(PyramidTest, GeometryCoversTheDataWithPowerOfTwoLevels) {
    const PyramidInfo& info = pyramid.info;
    EXPECT_DOUBLE_EQ(info.geometry.rootSizeM, 4096.0);  // 64 * 4 m * 2^4 >= 3000 m
    EXPECT_EQ(info.geometry.levelCount, 5);
    EXPECT_DOUBLE_EQ(info.geometry.SpacingM(4), 4.0);
    EXPECT_EQ(info.storedLevels, 3);  // 16 m is the first spacing at or below 20 m
    EXPECT_EQ(pyramid.tiles.size(), 1u + 4u + 16u);
    EXPECT_EQ(pyramid.StoredIndex({2, 3, 1}), 5 + 1 * 4 + 3);
    EXPECT_EQ(pyramid.StoredIndex({3, 0, 0}), -1);
    EXPECT_DOUBLE_EQ(info.dataWidthM, 3000.0);
    EXPECT_LT(info.minHeightM, info.maxHeightM);
}

TEST_F(PyramidTest, FinestStoredLevelSamplesTheSourceBilinearly) {
    Terrain source = RoughTerrain(150, 120, 20.0);
    const TilePosts& tile = Stored({2, 1, 2});
    for (int i = 70; i < 80; ++i) {
        double expected = BilinearHeightM(source, i * 16.0, 150 * 16.0);
        EXPECT_NEAR(PostM(pyramid.info, tile, i, 150), expected, pyramid.info.coding.scaleM);
    }
}

TEST_F(PyramidTest, CoarserStoredLevelsAreTheFilteredFinerLevel) {
    const PyramidInfo& info = pyramid.info;
    const TilePosts& coarse = Stored({1, 1, 0});
    for (int j = 10; j < 60; j += 7) {
        for (int i = 65; i < 127; i += 5) {
            double sum = 0.0;
            for (int b = -1; b <= 1; ++b) {
                for (int a = -1; a <= 1; ++a) {
                    TileKey fineKey =
                        info.geometry.TileAt(2, (2 * i + a) * 16.0, (2 * j + b) * 16.0);
                    sum += (2 - std::abs(a)) * (2 - std::abs(b)) *
                           PostM(info, Stored(fineKey), 2 * i + a, 2 * j + b);
                }
            }
            // Both levels are rounded to codes: allow one code each for the mean and the post.
            EXPECT_NEAR(PostM(info, coarse, i, j), sum / 16.0, 2.0 * info.coding.scaleM);
        }
    }
}

TEST_F(PyramidTest, NeighbouringStoredTilesAgreeOnSharedPosts) {
    const PyramidInfo& info = pyramid.info;
    const TilePosts& west = Stored({2, 1, 1});
    const TilePosts& east = Stored({2, 2, 1});
    for (int j = 62; j < 131; ++j) {
        for (int i = 128 - kTileBorder; i <= 128 + kTileBorder; ++i)
            EXPECT_EQ(PostM(info, west, i, j), PostM(info, east, i, j));
    }
}

TEST_F(PyramidTest, RefinementIsDeterministicAndKeepsParentPosts) {
    const PyramidInfo& info = pyramid.info;
    const TilePosts& parent = Stored({2, 1, 3});
    TilePosts a = RefineTile(info, parent, {3, 3, 7});
    TilePosts b = RefineTile(info, parent, {3, 3, 7});
    EXPECT_EQ(a.codes, b.codes);
    int differing = 0;
    for (int j = 7 * 64 - kTileBorder; j <= 8 * 64 + kTileBorder; ++j) {
        for (int i = 3 * 64 - kTileBorder; i <= 4 * 64 + kTileBorder; ++i) {
            if (i % 2 == 0 && j % 2 == 0) {
                EXPECT_EQ(PostM(info, a, i, j), PostM(info, parent, i / 2, j / 2));
            } else {
                // The 4-point subdivision (-1, 9, 9, -1)/16 along each odd axis.
                auto taps = [](int g) {
                    std::vector<std::pair<int, double>> t;
                    if (g % 2 == 0) return decltype(t){{g / 2, 1.0}};
                    int p = (g - 1) >> 1;
                    return decltype(t){
                        {p - 1, -1.0 / 16}, {p, 9.0 / 16}, {p + 1, 9.0 / 16}, {p + 2, -1.0 / 16}};
                };
                double parentMean = 0.0;
                for (auto [pj, wj] : taps(j)) {
                    for (auto [pi, wi] : taps(i))
                        parentMean += wi * wj * PostM(info, parent, pi, pj);
                }
                double limitM =
                    std::sqrt(3.0) * info.roughness.AmplitudeM(8.0) + 2 * info.coding.scaleM;
                EXPECT_LE(std::abs(PostM(info, a, i, j) - parentMean), limitM);
                differing += PostM(info, a, i, j) != PostM(info, parent, i >> 1, j >> 1);
            }
        }
    }
    EXPECT_GT(differing, 1000);  // the displacement is there
    Pyramid reseeded = *BuildPyramid(RoughTerrain(150, 120, 20.0), {4.0, 8, 1.0});
    EXPECT_NE(RefineTile(reseeded.info, parent, {3, 3, 7}).codes, a.codes);
}

// Refines two levels below the stored ones and checks that tiles with different parents (and
// grandparents) agree on every post they share, east-west and south-north.
TEST_F(PyramidTest, RefinedNeighboursAgreeOnSharedPostsAtEveryLevel) {
    const PyramidInfo& info = pyramid.info;
    auto refine = [&](TileKey key) {
        TileKey parentKey = key.Parent();
        return RefineTile(info, RefineTile(info, Stored(parentKey.Parent()), parentKey), key);
    };
    for (auto [a, b] : {std::pair{TileKey{4, 7, 5}, TileKey{4, 8, 5}},
                        std::pair{TileKey{4, 6, 3}, TileKey{4, 6, 4}}}) {
        TilePosts first = refine(a), second = refine(b);
        int shared = 0;
        for (int j = b.ty * 64 - kTileBorder; j <= a.ty * 64 + 64 + kTileBorder; ++j) {
            for (int i = b.tx * 64 - kTileBorder; i <= a.tx * 64 + 64 + kTileBorder; ++i) {
                EXPECT_EQ(PostM(info, first, i, j), PostM(info, second, i, j)) << i << "," << j;
                ++shared;
            }
        }
        EXPECT_EQ(shared, (2 * kTileBorder + 1) * kTilePosts);
    }
}

TEST(MeasureRoughness, PlaneIsSmoothAndNoiseIsRough) {
    Terrain plane{"plane", 20, 20, 10.0, 10.0, {}, {}};
    for (int j = 0; j < 20; ++j) {
        for (int i = 0; i < 20; ++i) plane.heightsM.push_back(static_cast<float>(3.0 * i - j));
    }
    EXPECT_NEAR(MeasureRoughness(plane).sigmaM, 0.0, 1e-4);
    Roughness rough = MeasureRoughness(RoughTerrain(60, 60, 30.0));
    EXPECT_GT(rough.sigmaM, 2.0);
    EXPECT_DOUBLE_EQ(rough.referenceSpacingM, 30.0);
    EXPECT_GE(rough.hurst, 0.2);
    EXPECT_LE(rough.hurst, 0.85);
    EXPECT_NEAR(rough.AmplitudeM(30.0), rough.sigmaM, 1e-12);
    EXPECT_LT(rough.AmplitudeM(1.0), rough.sigmaM);
}

TEST(BuildPyramid, RejectsTinyTerrainsAndBadSpacing) {
    Terrain tiny = RoughTerrain(1, 9, 10.0);
    auto built = BuildPyramid(tiny, {});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("at least 2 x 2"), std::string::npos);
    EXPECT_TRUE(BuildPyramid(RoughTerrain(3, 2, 10.0), {}).ok());
    built = BuildPyramid(RoughTerrain(9, 9, 10.0), {0.0, 1, 1.0});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("finest spacing must be > 0 and <= 100000 m, got 0"),
              std::string::npos)
        << built.error().message;
    built = BuildPyramid(RoughTerrain(9, 9, 10.0), {1.0, 1, -1.0});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("roughness scale must be >= 0 and <= 100, got -1"),
              std::string::npos)
        << built.error().message;
    built = BuildPyramid(RoughTerrain(9, 9, 1e7), {1.0, 1, 1.0});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("post spacing must be > 0 and <= 100000 m, got 10000000"),
              std::string::npos)
        << built.error().message;
    // 90 km at a finest spacing of 1 mm would need 22 levels: the error says what it allows.
    built = BuildPyramid(RoughTerrain(9, 9, 1e4), {0.001, 1, 1.0});
    ASSERT_FALSE(built);
    EXPECT_NE(
        built.error().message.find("needs more than 20 levels at a finest spacing of 0.001 m: "
                                   "the finest spacing must be >= 0.00269 m"),
        std::string::npos)
        << built.error().message;
}

// The streaming writer's file is WritePyramidFile's, byte for byte.
TEST(WritePyramidFileFromRows, WritesTheBytesOfWritePyramidFile) {
    TempDir dir;
    Terrain terrain = RoughTerrain(150, 130, 20.0);
    Expected<Pyramid> pyramid = BuildPyramid(terrain, {4.0, 7, 1.0});
    ASSERT_TRUE(pyramid) << pyramid.error().message;
    ASSERT_TRUE(WritePyramidFile(dir.File("whole.bfvp"), *pyramid));
    TerrainRows rows(terrain);
    Expected<PyramidBuild> built =
        WritePyramidFileFromRows(dir.File("rows.bfvp"), rows, {4.0, 7, 1.0});
    ASSERT_TRUE(built) << built.error().message;
    EXPECT_EQ(*common::ReadFileBytes(dir.File("rows.bfvp")),
              *common::ReadFileBytes(dir.File("whole.bfvp")));
    EXPECT_EQ(dir.EntryCount(), 2) << "no temporary file left";
}

/// A folder with an old file at `path` (three bytes) that a failed write must keep, and the
/// rows of a 150 x 130 terrain to write over it.
struct OldPyramidFile {
    TempDir dir;
    std::string path = dir.File("p.bfvp");
    std::vector<std::byte> old = {std::byte{1}, std::byte{2}, std::byte{3}};
    TerrainRows rows{RoughTerrain(150, 130, 20.0)};

    OldPyramidFile() { EXPECT_TRUE(common::WriteFileAtomic(path, old)); }
};

// A read that fails in either pass ends the build with the source's error; the file being
// written is removed and an old file at the path is kept as it was.
TEST(WritePyramidFileFromRows, AFailedReadKeepsTheOldFileAndLeavesNoOther) {
    OldPyramidFile file;
    auto& [dir, path, old, rows] = file;
    RecordingRows counted(rows);
    ASSERT_TRUE(WritePyramidFileFromRows(dir.File("count.bfvp"), counted, {4.0, 7, 1.0}));
    fs::remove(dir.File("count.bfvp"));
    int readsPerPass = static_cast<int>(counted.reads.size()) / 2;
    for (int failAt : {1, readsPerPass + 1, 2 * readsPerPass - 1}) {
        RecordingRows failing(rows, failAt);
        Expected<PyramidBuild> built = WritePyramidFileFromRows(path, failing, {4.0, 7, 1.0});
        ASSERT_FALSE(built) << "read " << failAt;
        EXPECT_EQ(built.error().message, "disk on fire");
        EXPECT_EQ(*common::ReadFileBytes(path), old);
        EXPECT_EQ(dir.EntryCount(), 1);
    }
}

// The watch's stop ends the write wherever it comes: at a read of either pass, at a tile row,
// or after the last tile row, just before the file is put in place (the last 20% of an import
// had no check). An old file is kept as it was and no other is left.
TEST(WritePyramidFileFromRows, AStopAtAnyPointKeepsTheOldFileAndLeavesNoOther) {
    OldPyramidFile file;
    auto& [dir, path, old, rows] = file;
    int asked = 0;
    PyramidWriteWatch counting{{}, {}, [&] { return ++asked < 0; }};
    ASSERT_TRUE(
        WritePyramidFileFromRows(dir.File("count.bfvp"), rows, {4.0, 7, 1.0}, nullptr, counting));
    fs::remove(dir.File("count.bfvp"));
    for (int stopAt : {1, asked / 2, asked - 1, asked}) {
        int n = 0;
        PyramidWriteWatch stopping{{}, {}, [&] { return ++n >= stopAt; }};
        Expected<PyramidBuild> built =
            WritePyramidFileFromRows(path, rows, {4.0, 7, 1.0}, nullptr, stopping);
        ASSERT_FALSE(built) << "stopped at question " << stopAt << " of " << asked;
        EXPECT_EQ(built.error().message, kWriteStopped);
        EXPECT_EQ(*common::ReadFileBytes(path), old);
        EXPECT_EQ(dir.EntryCount(), 1);
    }
}

// An output that cannot be created is refused before the source is read.
TEST(WritePyramidFileFromRows, AnUnwritableOutputIsRefusedBeforeReading) {
    TempDir dir;
    Terrain terrain = RoughTerrain(20, 20, 20.0);
    TerrainRows rows(terrain);
    RecordingRows recorded(rows);
    std::string path = dir.File("missing/p.bfvp");
    Expected<PyramidBuild> built = WritePyramidFileFromRows(path, recorded, {4.0, 7, 1.0});
    ASSERT_FALSE(built);
    EXPECT_NE(built.error().message.find("cannot write '" + path + "'"), std::string::npos)
        << built.error().message;
    EXPECT_TRUE(recorded.reads.empty());
}

TEST(TileKey, PacksAndNamesKeys) {
    TileKey key{9, 300, 511};
    EXPECT_EQ(TileKey::Unpack(key.Packed()), key);
    EXPECT_EQ(key.ToString(), "L9/300/511");
    EXPECT_EQ(key.Parent(), (TileKey{8, 150, 255}));
    PyramidGeometry geometry{4096.0, 5};
    EXPECT_EQ(geometry.TileAt(2, 1500.0, 4095.0), (TileKey{2, 1, 3}));
    EXPECT_EQ(geometry.TileAt(2, -5.0, 9999.0), (TileKey{2, 0, 3}));
}

// Spacing and tile look-up against their definitions, at every level a pyramid may have: spacing
// rootSizeM / (kTileCells 2^L); the tile floor(v x (1 / tile size)) clamped into [0, 2^L - 1], on
// tile edges exactly, just either side of them, and outside the pyramid on both sides.
TEST(PyramidGeometry, SpacingAndTileAtFollowTheirDefinitionsAtEveryLevel) {
    PyramidGeometry geometry{12345.678, kMaxLevels};
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> anywhere(-0.25 * geometry.rootSizeM,
                                                    1.25 * geometry.rootSizeM);
    for (int level = 0; level < kMaxLevels; ++level) {
        const double spacingM = geometry.rootSizeM / (kTileCells * std::pow(2.0, level));
        ASSERT_EQ(geometry.SpacingM(level), spacingM) << level;
        const double tileM = geometry.TileSizeM(level);
        const int last = geometry.TilesPerSide(level) - 1;
        auto expected = [&](double v) {
            return std::clamp(static_cast<int>(std::floor(v * (1.0 / tileM))), 0, last);
        };
        std::vector<double> points = {-1.0, 0.0, geometry.rootSizeM, 2.0 * geometry.rootSizeM};
        for (int k = 0; k < 200; ++k) {
            const double edge = std::floor(anywhere(rng) / tileM) * tileM;
            points.insert(points.end(), {edge, std::nextafter(edge, -1e300),
                                         std::nextafter(edge, 1e300), anywhere(rng)});
        }
        for (double x : points) {
            const TileKey key = geometry.TileAt(level, x, geometry.rootSizeM - x);
            ASSERT_EQ(key, (TileKey{level, expected(x), expected(geometry.rootSizeM - x)}))
                << "level " << level << " at " << x;
        }
    }
}

}  // namespace
}  // namespace bfv::terrain
