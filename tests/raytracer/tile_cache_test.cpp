#include "raytracer/tile_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "terrain/pinned_ground.h"

namespace bfv::raytracer {
namespace {

using terrain::TileKey;

terrain::PyramidInfo Info() {
    terrain::PyramidInfo info;
    info.geometry = {4096.0, 5};
    info.storedLevels = 2;
    info.dataWidthM = info.dataDepthM = 4096.0;
    info.coding = {0.01, 0.0};
    return info;
}

terrain::TilePosts Flat(TileKey key, double heightM) {
    return {key, std::vector<std::int16_t>(terrain::kTilePostCount,
                                           static_cast<std::int16_t>(heightM / 0.01))};
}

TEST(TileCache, FindsTheFinestResidentTileAndFallsBack) {
    TileCache cache(Info());
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    cache.Insert(Flat({2, 1, 1}, 20.0), false, 0);
    cache.Insert(Flat({4, 5, 5}, 40.0), false, 0);  // 1280..1536 m
    EXPECT_EQ(cache.FinestAt(4, 1300.0, 1300.0)->key, (TileKey{4, 5, 5}));
    EXPECT_EQ(cache.FinestAt(4, 1600.0, 1600.0)->key, (TileKey{2, 1, 1}))
        << "level 3 and 4 missing";
    EXPECT_EQ(cache.FinestAt(1, 1300.0, 1300.0)->key, (TileKey{0, 0, 0}))
        << "asked for level 1 at most";
    EXPECT_EQ(cache.FinestAt(4, 3000.0, 100.0)->key, (TileKey{0, 0, 0}));
    EXPECT_NEAR(cache.HeightAtM(4, 1300.0, 1300.0), 40.0, 1e-4);
    EXPECT_EQ(cache.TileCount(), 3);
    EXPECT_EQ(cache.ResidentBytes(), 3 * terrain::kResidentTileBytes);
}

TEST(TileCache, EvictsOnlyUnpinnedTiles) {
    TileCache cache(Info());
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    cache.Insert(Flat({3, 2, 2}, 30.0), false, 0);
    cache.Evict({0, 0, 0});
    cache.Evict({3, 2, 2});
    cache.Evict({3, 7, 7});  // not resident: no-op
    EXPECT_NE(cache.Find({0, 0, 0}), nullptr);
    EXPECT_EQ(cache.Find({3, 2, 2}), nullptr);
    EXPECT_EQ(cache.FinestAt(4, 1100.0, 1100.0)->key, (TileKey{0, 0, 0}));
}

// A tile arriving over a coarser one morphs from the coarser surface to its own in
// blendFrames frames: no pop.
TEST(TileCache, ArrivingTilesBlendInOverTheGivenFrames) {
    TileCache cache(Info());
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    cache.Insert(Flat({1, 0, 0}, 50.0), false, 4);
    EXPECT_EQ(cache.BlendingCount(), 1);
    EXPECT_NEAR(cache.HeightAtM(1, 500.0, 500.0), 10.0, 1e-4) << "starts where level 0 was";
    cache.AdvanceFrame();
    EXPECT_NEAR(cache.HeightAtM(1, 500.0, 500.0), 20.0, 1e-4);
    for (int f = 0; f < 3; ++f) cache.AdvanceFrame();
    EXPECT_NEAR(cache.HeightAtM(1, 500.0, 500.0), 50.0, 1e-4);
    EXPECT_EQ(cache.BlendingCount(), 0);
    EXPECT_GE(cache.Find({1, 0, 0})->maxHeightM, 50.0f - 1e-3f);
}

// A tile whose post (i, j) is `heightM` + risePerPostM * i + bumpM * (j % 3) (within the
// coding's +-327 m).
terrain::TilePosts Ramp(TileKey key, double heightM, double risePerPostM, double bumpM) {
    terrain::TilePosts tile = Flat(key, heightM);
    for (int j = 0; j < terrain::kTilePosts; ++j) {
        for (int i = 0; i < terrain::kTilePosts; ++i) {
            tile.codes[j * terrain::kTilePosts + i] =
                static_cast<std::int16_t>((heightM + risePerPostM * i + bumpM * (j % 3)) / 0.01);
        }
    }
    return tile;
}

// `field` of `source` interpolated at post k of `tile` (both resident tiles).
float FieldAt(const ResidentTile& source, const std::vector<std::uint16_t>& field,
              const ResidentTile& tile, int k) {
    int i = k % terrain::kTilePosts, j = k / terrain::kTilePosts;
    terrain::PostCell c =
        terrain::CellAt(source.originXM, source.originYM, source.postsPerM,
                        tile.originXM + i * tile.spacingM, tile.originYM + j * tile.spacingM);
    return terrain::BilinearInCell(&field[c.j * terrain::kTilePosts + c.i], c.fx, c.fy);
}

// A tile of the source's levels (here 0 and 1) places its posts on the land ramp from their
// own height, slope, relief position and land cover; a finer, fractal tile takes the
// material of the finest stored level (the DEM's) and adds the land cover's finer patches, so
// that its material follows the DEM rather than the detail.
TEST(TileCache, FractalTilesTakeTheMaterialOfTheFinestStoredLevel) {
    TileCache cache(Info());  // heights normalised from 0 m over 1 m of relief (Info: no range)
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    cache.Insert(Ramp({1, 0, 0}, 10.0, 4.0, 0.0), true, 0);  // 32 m posts: slope 0.125
    const ResidentTile* stored = cache.Find({1, 0, 0});
    const int post = terrain::kTilePosts * 10 + 10;
    float want = LandMaterialCoordinate(50.0f, 0.125f, 0.0f,
                                        LandCover(stored->originXM + 10 * stored->spacingM,
                                                  stored->originYM + 10 * stored->spacingM));
    EXPECT_NEAR(stored->materialCodes[post], want * kMaterialCodesPerUnit, 1.0f)
        << "a stored tile's own slope (a plane: relief position 0), height and cover";

    cache.Insert(Ramp({3, 1, 1}, 10.0, 0.0, 2.0), false, 0);  // flat in x, bumpy in y
    const ResidentTile* fractal = cache.Find({3, 1, 1});
    for (int k = 0; k < terrain::kTilePostCount; k += 97) {
        int i = k % terrain::kTilePosts, j = k / terrain::kTilePosts;
        float detail = LandCoverDetail(fractal->originXM + i * fractal->spacingM,
                                       fractal->originYM + j * fractal->spacingM);
        EXPECT_NEAR(
            fractal->materialCodes[k],
            FieldAt(*stored, stored->materialCodes, *fractal, k) + detail * kMaterialCodesPerUnit,
            0.51f)
            << "post " << k;
    }
}

// A draped dataset's palette (PyramidInfo::landColours) of 256 distinct colours.
std::vector<common::Rgb> TestPalette() {
    std::vector<common::Rgb> palette;
    for (int c = 0; c < 256; ++c) {
        palette.push_back({static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(255 - c),
                           static_cast<std::uint8_t>(c / 2)});
    }
    return palette;
}

// Channel `shift` (0 red, 8 green, 16 blue) of every post's colour of `tile`.
std::vector<std::uint16_t> ChannelOf(const ResidentTile& tile, int shift) {
    std::vector<std::uint16_t> channel;
    for (std::uint32_t colour : tile.colours) channel.push_back(colour >> shift & 0xFFu);
    return channel;
}

// Every post's colour of `tile` without its shade byte.
std::vector<std::uint32_t> Rgb24(const ResidentTile& tile) {
    std::vector<std::uint32_t> rgb;
    for (std::uint32_t colour : tile.colours) rgb.push_back(colour & kColourBits);
    return rgb;
}

// Whether every post's shade byte (bits 24-31 of ResidentTile::colours) is its shade code
// rounded to the nearest multiple of kShadeCodesPerShadeByte.
::testing::AssertionResult ShadeBytesFollowTheCodes(const ResidentTile& tile) {
    for (int k = 0; k < terrain::kTilePostCount; ++k) {
        const double expected = std::round(tile.shadeCodes[k] / kShadeCodesPerShadeByte);
        if (tile.colours[k] >> 24 != expected) {
            return ::testing::AssertionFailure()
                   << "post " << k << ": byte " << (tile.colours[k] >> 24) << ", shade code "
                   << tile.shadeCodes[k];
        }
    }
    return ::testing::AssertionSuccess();
}

// The shade byte the caster gathers with each post's colour follows the shade codes: on arrival,
// through every frame of a blend (the shade moving from the coarser tile's to the tile's own)
// and after the sun's shadows are cast; the colour bits stay the colour.
TEST(TileCache, EveryPostsShadeByteFollowsItsShadeCode) {
    TileCache cache(Info());
    cache.Insert(Ramp({0, 0, 0}, 10.0, 2.0, 0.0), true, 0);
    const ResidentTile* root = cache.Find({0, 0, 0});
    EXPECT_TRUE(ShadeBytesFollowTheCodes(*root));
    cache.Insert(Ramp({1, 0, 0}, 10.0, 0.0, 3.0), false, 4);
    const ResidentTile* arriving = cache.Find({1, 0, 0});
    const std::vector<std::uint16_t> firstShade = arriving->shadeCodes;
    for (int f = 0; f <= 4; ++f) {
        EXPECT_TRUE(ShadeBytesFollowTheCodes(*arriving)) << "blend frame " << f;
        cache.AdvanceFrame();
    }
    EXPECT_NE(arriving->shadeCodes, firstShade) << "the blend moved the shade";
    cache.CastShadows(0);
    EXPECT_TRUE(ShadeBytesFollowTheCodes(*root)) << "after the shadows";
    EXPECT_TRUE(ShadeBytesFollowTheCodes(*arriving)) << "after the shadows";
}

// On a DEM draped with imagery a stored tile's colours are the imagery's palette entries,
// exactly, and a fractal tile takes them from the finest draped level, bilinear between its
// posts, without the land cover's finer patches.
TEST(TileCache, DrapedTilesTakeTheImagerysColoursAndFractalTilesBlendThem) {
    terrain::PyramidInfo info = Info();
    info.landColours = TestPalette();
    TileCache cache(info);
    terrain::TilePosts root = Flat({0, 0, 0}, 10.0);
    root.materials.assign(terrain::kTilePostCount, 0);
    cache.Insert(root, true, 0);
    terrain::TilePosts stored = Ramp({1, 0, 0}, 10.0, 4.0, 0.0);
    stored.materials.resize(terrain::kTilePostCount);
    for (int k = 0; k < terrain::kTilePostCount; ++k) {
        stored.materials[k] = static_cast<std::uint8_t>(k % terrain::kTilePosts * 3);
    }
    cache.Insert(stored, true, 0);
    const ResidentTile* draped = cache.Find({1, 0, 0});
    for (int k = 0; k < terrain::kTilePostCount; ++k) {
        ASSERT_EQ(draped->colours[k] & kColourBits,
                  PackColour(info.landColours[stored.materials[k]]))
            << "post " << k;
    }
    cache.Insert(Ramp({3, 1, 1}, 10.0, 0.0, 2.0), false, 0);
    const ResidentTile* fractal = cache.Find({3, 1, 1});
    for (int shift : {0, 8, 16}) {
        std::vector<std::uint16_t> source = ChannelOf(*draped, shift),
                                   got = ChannelOf(*fractal, shift);
        for (int k = 0; k < terrain::kTilePostCount; k += 53) {
            EXPECT_NEAR(got[k], FieldAt(*draped, source, *fractal, k), 0.51f)
                << "post " << k << ", channel at bit " << shift;
        }
    }
    // A fractal tile of a level the imagery reaches brings its own colours and keeps them.
    terrain::TilePosts fine = Ramp({2, 1, 1}, 10.0, 0.0, 2.0);
    fine.materials.assign(terrain::kTilePostCount, 200);
    cache.Insert(fine, false, 0);
    const ResidentTile* finelyDraped = cache.Find({2, 1, 1});
    EXPECT_TRUE(finelyDraped->draped);
    EXPECT_EQ(Rgb24(*finelyDraped), std::vector<std::uint32_t>(terrain::kTilePostCount,
                                                               PackColour(info.landColours[200])));
}

// Where the imagery reaches a fractal level, the finer fractal tiles take its colours.
TEST(TileCache, FractalTilesBelowTheDrapedLevelsTakeTheFinestDrapedColours) {
    terrain::PyramidInfo info = Info();
    info.landColours = TestPalette();
    info.drapedLevels = 3;  // levels 2 (fractal) and up to it carry imagery
    TileCache cache(info);
    for (TileKey key : {TileKey{0, 0, 0}, TileKey{1, 0, 0}, TileKey{2, 1, 1}}) {
        terrain::TilePosts posts = Flat(key, 10.0);
        posts.materials.assign(terrain::kTilePostCount, static_cast<std::uint8_t>(50 * key.level));
        cache.Insert(posts, key.level < 2, 0);
    }
    cache.Insert(Ramp({4, 5, 5}, 10.0, 0.0, 2.0), false, 0);
    const ResidentTile* fractal = cache.Find({4, 5, 5});
    EXPECT_FALSE(fractal->draped);
    EXPECT_EQ(Rgb24(*fractal), std::vector<std::uint32_t>(terrain::kTilePostCount,
                                                          PackColour(info.landColours[100])));
}

// Inserts a bumpy fractal tile `detail` into `cache` and expects its shade to be
// kDetailShadeShare of its own and the rest the resident tile `structure`'s there; returns the
// shade codes seen.
std::set<std::uint16_t> ExpectSoftenedToward(TileCache& cache, TileKey detail, TileKey structure) {
    terrain::TilePosts posts = Ramp(detail, 10.0, 0.0, 2.0);
    std::unique_ptr<ResidentTile> own = cache.Shade(posts);
    cache.Insert(posts, false, 0);
    const ResidentTile* fractal = cache.Find(detail);
    const ResidentTile* coarser = cache.Find(structure);
    std::set<std::uint16_t> shades;
    for (int k = 0; k < terrain::kTilePostCount; k += 31) {
        float want =
            kDetailShadeShare * own->shadeCodes[k] +
            (1.0f - kDetailShadeShare) * FieldAt(*coarser, coarser->shadeCodes, *fractal, k);
        EXPECT_NEAR(fractal->shadeCodes[k], want, 0.51f) << "post " << k;
        shades.insert(fractal->shadeCodes[k]);
    }
    return shades;
}

// A fractal tile's shade is kDetailShadeShare of its own (the detail, post to post) and the
// rest the shade of the tile kStructureLevels coarser there (the relief a few posts across).
TEST(TileCache, FractalTilesSoftenTheirDetailTowardTheCoarserRelief) {
    TileCache cache(Info());
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    cache.Insert(Ramp({1, 0, 0}, 10.0, 4.0, 0.0), true, 0);
    EXPECT_GT(ExpectSoftenedToward(cache, {3, 1, 1}, {1, 0, 0}).size(), 1u)
        << "the shade keeps some of the fractal tile's own relief";
}

// Where the fractal levels start at level 1, the relief comes from level 0: no level above the
// pyramid's root is asked for.
TEST(TileCache, AFractalTileNextToTheRootSoftensTowardTheRoot) {
    terrain::PyramidInfo info = Info();
    info.storedLevels = 1;
    TileCache cache(info);
    cache.Insert(Ramp({0, 0, 0}, 10.0, 4.0, 0.0), true, 0);
    ExpectSoftenedToward(cache, {1, 0, 0}, {0, 0, 0});
}

// A fractal tile that arrives before any coarser one keeps its own shade and is field.
TEST(TileCache, AFractalTileWithNothingBelowKeepsItsOwnShade) {
    TileCache cache(Info());
    terrain::TilePosts detail = Ramp({3, 1, 1}, 10.0, 0.0, 2.0);
    std::unique_ptr<ResidentTile> own = cache.Shade(detail);
    cache.Insert(detail, false, 0);
    const ResidentTile* fractal = cache.Find({3, 1, 1});
    ASSERT_NE(fractal, nullptr);
    EXPECT_EQ(fractal->shadeCodes, own->shadeCodes);
    EXPECT_EQ(*std::max_element(fractal->materialCodes.begin(), fractal->materialCodes.end()), 0);
}

TEST(TileCache, ApplyTileStreamInsertsEvictsAndStopsAtFrameReady) {
    TileCache cache(Info());
    cache.Insert(Flat({0, 0, 0}, 10.0), true, 0);
    std::vector<std::byte> stream;
    terrain::AppendTileRecord(Flat({2, 0, 0}, 5.0), stream);
    terrain::AppendFrameReadyRecord(7, stream);
    terrain::AppendEvictRecord({2, 0, 0}, stream);
    terrain::AppendEndOfStreamRecord(stream);
    terrain::TileStreamReader reader;
    reader.Feed(stream);
    StreamProgress progress;
    ASSERT_TRUE(ApplyTileStream(reader, cache, 0, progress).ok());
    EXPECT_EQ(progress.lastFrameReady, 7);
    EXPECT_NE(cache.Find({2, 0, 0}), nullptr);
    ASSERT_TRUE(ApplyTileStream(reader, cache, 0, progress).ok());
    EXPECT_TRUE(progress.endOfStream);
    EXPECT_EQ(cache.Find({2, 0, 0}), nullptr);
}

// A start-up terrain over Info(): level 0 flat at 10 m, level 1 a pattern of heights.
terrain::TerrainStartup Startup() {
    terrain::TerrainStartup startup;
    startup.info = Info();
    startup.pinned.push_back(Flat({0, 0, 0}, 10.0));
    for (int t = 0; t < 4; ++t) {
        terrain::TilePosts tile{{1, t % 2, t / 2},
                                std::vector<std::int16_t>(terrain::kTilePostCount)};
        for (int k = 0; k < terrain::kTilePostCount; ++k)
            tile.codes[k] = static_cast<std::int16_t>((k * 37 + t * 101) % 9000);
        startup.pinned.push_back(std::move(tile));
    }
    return startup;
}

// The display's flight follows terrain::PinnedGround, the tracers render the cache: both must
// see the same ground, bit for bit, or the flight would differ from what is drawn.
TEST(PinnedCache, HoldsThePinnedTilesAndMatchesThePinnedGround) {
    terrain::TerrainStartup startup = Startup();
    TileCache cache = PinnedCache(startup);
    terrain::PinnedGround ground(startup);
    EXPECT_EQ(cache.TileCount(), 5);
    EXPECT_TRUE(cache.Find({1, 1, 1})->pinned);
    for (double x = -300.0; x < 4500.0; x += 97.3) {
        for (double y = -200.0; y < 4400.0; y += 131.9) {
            ASSERT_EQ(cache.HeightAtM(1, x, y), ground.HeightAtM(x, y)) << x << ", " << y;
        }
    }
}

// A V-shaped valley 4 km wide whose floor falls to the south edge: its drainage passes 5 km^2
// well before the edge, so PinnedCache (MapLand) maps a river there, about 10 m wide: a fine
// tile's posts on the floor are water and its slopes' posts land (a 32 m post's colour is only
// tinted by the river's share of it); the floor also sees less sky than the open slopes, so its
// ambient light, and its shade, is lower than a ridge's with the same sun on it.
TEST(PinnedCache, MapsRiversAlongAValleyFloorAndDarkensItsHollow) {
    terrain::TerrainStartup startup;
    startup.info = Info();
    auto heightM = [](double xM, double yM) {
        return 100.0 + 0.3 * std::abs(xM - 2048.0) + 0.02 * yM;
    };
    for (TileKey key : {TileKey{0, 0, 0}, TileKey{1, 0, 0}, TileKey{1, 1, 0}, TileKey{1, 0, 1},
                        TileKey{1, 1, 1}}) {
        terrain::TilePosts tile{key, std::vector<std::int16_t>(terrain::kTilePostCount)};
        double spacingM = startup.info.geometry.SpacingM(key.level);
        for (int j = 0; j < terrain::kTilePosts; ++j) {
            for (int i = 0; i < terrain::kTilePosts; ++i) {
                tile.codes[j * terrain::kTilePosts + i] = startup.info.coding.Encode(
                    heightM(terrain::TileOriginM(key.tx, spacingM) + i * spacingM,
                            terrain::TileOriginM(key.ty, spacingM) + j * spacingM));
            }
        }
        startup.pinned.push_back(std::move(tile));
    }
    TileCache cache = PinnedCache(startup, terrain::kNoWaterM, Lighting{}, false);
    auto post = [&](double xM, double yM, auto field) {
        const ResidentTile* tile = cache.FinestAt(4, xM, yM);
        int i = static_cast<int>(std::lround((xM - tile->originXM) * tile->postsPerM));
        int j = static_cast<int>(std::lround((yM - tile->originYM) * tile->postsPerM));
        return field(*tile, j * terrain::kTilePosts + i);
    };
    auto colour = [](const ResidentTile& t, int k) { return t.colours[k] & kColourBits; };
    auto shade = [](const ResidentTile& t, int k) { return t.shadeCodes[k]; };
    const std::uint32_t water = PackColour(common::kWaterColour);
    for (TileKey key : {TileKey{4, 8, 0}, TileKey{4, 8, 15}}) {  // posts 4 m apart
        cache.Insert(Flat(key, 100.0), false, 0);
    }
    EXPECT_EQ(post(2048.0, 200.0, colour), water) << "the valley floor downstream";
    EXPECT_NE(post(2060.0, 200.0, colour), water) << "12 m off it: the river's bank is past";
    EXPECT_NE(post(2048.0, 3900.0, colour), water) << "the valley's head: too small a catchment";
    EXPECT_NE(post(1500.0, 320.0, colour), water) << "its slope";
    // The floor and the ridge posts lie level across the sun's azimuth (north-west): the same
    // Lambert term on both sides' average, the floor's sky smaller.
    EXPECT_LT(post(2048.0, 2000.0, shade),
              std::max(post(1000.0, 2000.0, shade), post(3096.0, 2000.0, shade)));
}

// Found by fuzz/tile_stream_fuzz.cpp: a draped tile whose colour index is beyond the dataset's
// palette is refused with one clear error, not shaded (the cache would read past the palette).
TEST(ApplyLocalStream, ATileNamingAColourBeyondThePaletteIsRefused) {
    terrain::TerrainStartup startup = Startup();
    startup.info.landColours.assign(4, common::Rgb{1, 2, 3});
    for (terrain::TilePosts& tile : startup.pinned)
        tile.materials.assign(terrain::kTilePostCount, 3);
    TileCache cache = PinnedCache(startup);
    terrain::TilePosts bad = Flat({2, 0, 0}, 50.0);
    bad.materials.assign(terrain::kTilePostCount, 2);
    bad.materials[100] = 9;
    std::vector<std::byte> records;
    terrain::AppendTileRecord(bad, records);
    Expected<void> applied = ApplyLocalStream(records, cache, 0);
    ASSERT_FALSE(applied.ok());
    EXPECT_NE(
        applied.error().message.find("tile 2/0/0: colour index 9 beyond the palette's 4 colours"),
        std::string::npos)
        << applied.error().message;
    EXPECT_EQ(cache.Find({2, 0, 0}), nullptr);
}

TEST(ApplyLocalStream, InsertsEvictsAndMovesBlendsOn) {
    TileCache cache = PinnedCache(Startup());
    std::vector<std::byte> records;
    terrain::AppendTileRecord(Flat({2, 0, 0}, 50.0), records);
    ASSERT_TRUE(ApplyLocalStream(records, cache, 2).ok());
    EXPECT_EQ(cache.BlendingCount(), 1) << "one frame of two blended";
    records.clear();
    terrain::AppendEvictRecord({2, 0, 0}, records);
    ASSERT_TRUE(ApplyLocalStream(records, cache, 2).ok());
    EXPECT_EQ(cache.Find({2, 0, 0}), nullptr);
    EXPECT_EQ(cache.BlendingCount(), 0);
    records.assign(terrain::kTileRecordHeaderBytes, std::byte{9});
    auto corrupt = ApplyLocalStream(records, cache, 0);
    ASSERT_FALSE(corrupt.ok());
    EXPECT_NE(corrupt.error().message.find("unknown record kind"), std::string::npos);
}

// Shading on several threads makes the same tiles, resident in stream order (the last of two
// records of one key wins, an eviction after an insert removes it).
TEST(ApplyLocalStream, ThreadsShadeTheSameTilesInStreamOrder) {
    std::vector<std::byte> records;
    for (int t = 0; t < 16; ++t)
        terrain::AppendTileRecord(Flat({2, t % 4, t / 4}, 5.0 + t), records);
    terrain::AppendTileRecord(Flat({2, 0, 0}, 77.0), records);
    terrain::AppendEvictRecord({2, 3, 3}, records);
    TileCache one = PinnedCache(Startup()), three = PinnedCache(Startup());
    ASSERT_TRUE(ApplyLocalStream(records, one, 0, 1).ok());
    ASSERT_TRUE(ApplyLocalStream(records, three, 0, 3).ok());
    EXPECT_EQ(three.TileCount(), one.TileCount());
    EXPECT_EQ(three.Find({2, 3, 3}), nullptr);
    EXPECT_NEAR(three.HeightAtM(2, 100.0, 100.0), 77.0, 1e-3);
    for (double x = 0.0; x < 4096.0; x += 101.0) {
        for (double y = 0.0; y < 4096.0; y += 89.0) {
            ASSERT_EQ(three.HeightAtM(3, x, y), one.HeightAtM(3, x, y)) << x << ", " << y;
            ASSERT_EQ(three.FinestAt(3, x, y)->shadeCodes, one.FinestAt(3, x, y)->shadeCodes);
        }
    }
}

}  // namespace
}  // namespace bfv::raytracer
