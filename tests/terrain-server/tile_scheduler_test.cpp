#include "terrain-server/tile_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "terrain/tile_stream.h"

namespace bfv::terrain_server {
namespace {

using terrain::TileKey;

// A 5-level pyramid (64 m to 4 m posts) over 4 x 4 km, stored levels 0..1 with flat tiles.
struct World {
    terrain::PyramidInfo info;
    World() {
        info.geometry = {4096.0, 5};
        info.storedLevels = 2;
        info.dataWidthM = info.dataDepthM = 4096.0;
        info.coding = {0.01, 0.0};
        info.roughness = {2.0, 64.0, 0.8, 5};
    }
    TileSource::StoredReader Reader() const {
        return [](const TileKey& key) -> Expected<terrain::TilePosts> {
            return terrain::TilePosts{key, std::vector<std::int16_t>(terrain::kTilePostCount, 100)};
        };
    }
};

common::CameraPose Pose(double x, double y, double headingRad, double timeS = 0.0) {
    return {{x, y, 300.0}, headingRad, -0.5, timeS};
}

// Keys of the tile records in `stream`, in order, and of its evict records.
void Parse(const std::vector<std::byte>& stream, const terrain::PyramidGeometry& g,
           std::vector<TileKey>& tiles, std::vector<TileKey>& evicted) {
    terrain::TileStreamReader reader;
    reader.Feed(stream);
    terrain::TileRecord r;
    while (*reader.Next(g, r))
        (r.kind == terrain::TileRecord::kTile ? tiles : evicted).push_back(r.tile.key);
}

TEST(TilesForView, WantsFinerLevelsNearTheEyeAndOnlyInTheFieldOfView) {
    World w;
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    auto tiles = TilesForView(w.info, Pose(2048, 1000, 0.0), screen, 1.0, 1.0);
    int finest = 0, behind = 0;
    for (const WantedTile& t : tiles) {
        double size = w.info.geometry.TileSizeM(t.key.level);
        finest += t.key.level == 4;
        // Tiles wholly behind the eye (south of it, looking north) are never wanted.
        behind += t.key.level > 1 && (t.key.ty + 1) * size < 1000.0 - 1e-9;
        if (t.key.level > 0) {
            double cx = std::clamp(2048.0, t.key.tx * size, (t.key.tx + 1) * size);
            double cy = std::clamp(1000.0, t.key.ty * size, (t.key.ty + 1) * size);
            double nearest = std::hypot(cx - 2048.0, cy - 1000.0);
            EXPECT_LT(nearest * common::PixelAngle(screen),
                      2 * w.info.geometry.SpacingM(t.key.level));
        }
    }
    EXPECT_GT(finest, 0);
    EXPECT_EQ(behind, 0);
}

// The ray caster stretches a row's footprint along the track by 1 / sin(depression), at most
// maxAnisotropy times: far tiles are wanted at coarser levels than isotropically, never finer,
// and no tile the steepest ray (to the lowest height a post can have, 100 m below the eye here)
// could read finer is left out.
TEST(TilesForView, AnisotropyWantsFewerFineTilesFarAway) {
    World w;
    w.info.coding.offsetM = 200.0 + 32767 * w.info.coding.scaleM;  // the lowest code is 200 m
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    common::CameraPose pose = Pose(2048, 200, 0.0);
    auto keysOf = [](const std::vector<WantedTile>& tiles) {
        std::set<std::uint64_t> keys;
        for (const WantedTile& t : tiles) keys.insert(t.key.Packed());
        return keys;
    };
    // Whether the steepest ray's footprint at the tile's nearest point, stretched along the
    // track, is under twice the tile's post spacing (the level is fine enough to be wanted).
    auto stretchedFootprintWants = [&](const TileKey& key) {
        double size = w.info.geometry.TileSizeM(key.level);
        double cx = std::clamp(2048.0, key.tx * size, (key.tx + 1) * size);
        double cy = std::clamp(200.0, key.ty * size, (key.ty + 1) * size);
        double nearest = std::hypot(cx - 2048.0, cy - 200.0);
        double stretch = common::AlongTrackStretch(-100.0 / nearest, 4.0);
        return nearest * common::PixelAngle(screen) * stretch <
               2 * w.info.geometry.SpacingM(key.level);
    };
    auto isotropic = TilesForView(w.info, pose, screen, 1.0, 1.0);
    auto anisotropic = TilesForView(w.info, pose, screen, 1.0, 4.0);
    std::set<std::uint64_t> isotropicKeys = keysOf(isotropic),
                            anisotropicKeys = keysOf(anisotropic);
    EXPECT_LT(anisotropic.size(), isotropic.size());
    for (const WantedTile& t : anisotropic) {
        EXPECT_TRUE(isotropicKeys.count(t.key.Packed())) << t.key.ToString();
        EXPECT_TRUE(t.key.level == 0 || stretchedFootprintWants(t.key)) << t.key.ToString();
    }
    // A tile the isotropic rule wants and the stretched one leaves out is one whose footprint
    // (or its parent's) is too long for it.
    int leftOut = 0;
    for (const WantedTile& t : isotropic) {
        if (anisotropicKeys.count(t.key.Packed())) continue;
        ++leftOut;
        EXPECT_TRUE(!anisotropicKeys.count(t.key.Parent().Packed()) ||
                    !stretchedFootprintWants(t.key))
            << t.key.ToString();
    }
    EXPECT_GT(leftOut, 0);
}

TEST(TileScheduler, SendsParentsFirstAndNothingTwice) {
    World w;
    TileSource source(w.info, w.Reader());
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    TileScheduler scheduler(w.info, source, {100000, screen, 1.0, 2.0});
    scheduler.SetView(Pose(2048, 1000, 0.0), 0, false);
    std::vector<std::byte> stream;
    ASSERT_TRUE(scheduler.Produce(std::numeric_limits<std::size_t>::max(), stream).ok());
    std::vector<TileKey> tiles, evicted;
    Parse(stream, w.info.geometry, tiles, evicted);
    ASSERT_GT(tiles.size(), 10u);
    EXPECT_TRUE(evicted.empty());
    EXPECT_EQ(scheduler.QueueDepth(), 0u);
    std::set<std::uint64_t> seen;
    for (const TileKey& key : tiles) {
        EXPECT_GE(key.level, terrain::PinnedLevels(w.info)) << "pinned levels are never streamed";
        if (key.level > terrain::PinnedLevels(w.info)) {
            EXPECT_TRUE(seen.count(key.Parent().Packed()))
                << key.ToString() << " before its parent";
        }
        EXPECT_TRUE(seen.insert(key.Packed()).second) << key.ToString() << " sent twice";
    }
    scheduler.SetView(Pose(2048, 1000, 0.0), 1, false);
    stream.clear();
    EXPECT_EQ(*scheduler.Produce(std::numeric_limits<std::size_t>::max(), stream), 0u);
}

TEST(TileScheduler, StaysWithinTheCacheAndEvictsTilesTheViewNoLongerWants) {
    World w;
    TileSource source(w.info, w.Reader());
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    TileScheduler scheduler(w.info, source, {30, screen, 1.0, 2.0});
    std::set<std::uint64_t> resident;
    for (int frame = 0; frame < 6; ++frame) {
        scheduler.SetView(Pose(500 + 600 * frame, 800, std::numbers::pi / 2), frame, false);
        std::vector<std::byte> stream;
        ASSERT_TRUE(scheduler.Produce(std::numeric_limits<std::size_t>::max(), stream).ok());
        std::vector<TileKey> tiles, evicted;
        Parse(stream, w.info.geometry, tiles, evicted);
        for (const TileKey& k : evicted) EXPECT_EQ(resident.erase(k.Packed()), 1u);
        for (const TileKey& k : tiles) resident.insert(k.Packed());
        EXPECT_LE(resident.size(), 30u);
    }
    EXPECT_GT(scheduler.TilesEvicted(), 0);
}

TEST(TileScheduler, BudgetLimitsEachProduceCall) {
    World w;
    TileSource source(w.info, w.Reader());
    common::ScreenSpec screen{320, 180, std::numbers::pi / 3};
    TileScheduler scheduler(w.info, source, {100000, screen, 1.0, 2.0});
    scheduler.SetView(Pose(2048, 1000, 0.0), 0, true);
    std::size_t before = scheduler.QueueDepth();
    std::vector<std::byte> stream;
    EXPECT_EQ(*scheduler.Produce(3 * terrain::kTileRecordBytes + 100, stream),
              3 * terrain::kTileRecordBytes);
    EXPECT_EQ(scheduler.QueueDepth(), before - 3);
}

TEST(TileSource, RefinesFromStoredParentsAndReportsReadErrors) {
    World w;
    TileSource source(w.info, w.Reader());
    auto tile = source.Get({4, 9, 3});
    ASSERT_TRUE(tile.ok());
    EXPECT_EQ(source.TilesRefined(), 3);  // levels 2, 3 and 4
    EXPECT_EQ(source.TilesRead(), 1);
    TileSource broken(w.info, [](const TileKey& key) -> Expected<terrain::TilePosts> {
        return Error{"tile " + key.ToString() + " is corrupt"};
    });
    auto bad = broken.Get({3, 1, 1});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "tile L1/0/0 is corrupt");
}

// On a pyramid draped down to level 3 a refined tile of level 2 or 3 comes with the imagery's
// materials (read from the file), one of level 4 without; its heights are refined either way.
TEST(TileSource, RefinedTilesOfDrapedLevelsCarryTheImagerysMaterials) {
    World w;
    w.info.landColours.assign(common::kLandMaterials, common::Rgb{});
    w.info.drapedLevels = 4;
    std::vector<TileKey> asked;
    TileSource source(w.info, [&](const TileKey& key) -> Expected<terrain::TilePosts> {
        asked.push_back(key);
        std::vector<std::int16_t> codes;
        if (key.level < 2) codes.assign(terrain::kTilePostCount, 100);
        return terrain::TilePosts{key, codes,
                                  std::vector<std::uint8_t>(terrain::kTilePostCount,
                                                            static_cast<std::uint8_t>(key.level))};
    });
    auto fine = source.Get({4, 9, 3});
    ASSERT_TRUE(fine.ok()) << fine.error().message;
    EXPECT_TRUE(fine->materials.empty());
    EXPECT_EQ(fine->codes.size(), std::size_t(terrain::kTilePostCount));
    auto draped = source.Get({3, 4, 1});
    ASSERT_TRUE(draped.ok());
    EXPECT_EQ(draped->materials, std::vector<std::uint8_t>(terrain::kTilePostCount, 3));
    EXPECT_EQ(draped->codes.size(), std::size_t(terrain::kTilePostCount));
    EXPECT_EQ(asked, (std::vector<TileKey>{{1, 1, 0}, {2, 2, 0}, {3, 4, 1}}))
        << "the stored ancestor, then each draped fractal level's materials, not level 4's";
    TileSource broken(w.info, [](const TileKey& key) -> Expected<terrain::TilePosts> {
        if (key.level == 3) return Error{"tile " + key.ToString() + " is corrupt"};
        return terrain::TilePosts{key, std::vector<std::int16_t>(terrain::kTilePostCount, 100)};
    });
    auto bad = broken.Get({3, 1, 1});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "tile L3/1/1 is corrupt");
}

}  // namespace
}  // namespace bfv::terrain_server
