#include "raytracer/shadows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "raytracer/tile_cache.h"

namespace bfv::raytracer {
namespace {

constexpr float kNone = std::numeric_limits<float>::lowest();
constexpr double kDeg = std::numbers::pi / 180.0;

// A flat grid at 0 m with one wall of height `wallM` along column `wallI` (nx x ny posts).
std::vector<float> WallAlongY(int nx, int ny, int wallI, float wallM) {
    std::vector<float> h(static_cast<std::size_t>(nx) * ny, 0.0f);
    for (int j = 0; j < ny; ++j) h[static_cast<std::size_t>(j) * nx + wallI] = wallM;
    return h;
}

// The sun in the east, 45 degrees up: a 10 m wall shades the ground west of it for 10 m, the
// beam falling 1 m per metre; elsewhere the flat ground's own beams pass 1 m under it.
TEST(ShadowHeights, AWallShadesTheGroundAwayFromTheSunForItsHeightOverTanElevation) {
    const int nx = 30, ny = 5, wallI = 20;
    auto heights = WallAlongY(nx, ny, wallI, 10.0f);
    auto shadow = ShadowHeightsM(heights, nx, ny, 1.0, SunAt(90.0 * kDeg, 45.0 * kDeg),
                                 [](int, int) { return kNone; });
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            float s = shadow[static_cast<std::size_t>(j) * nx + i];
            if (i == nx - 1) {
                EXPECT_EQ(s, kNone) << "the sun-side edge has nothing toward the sun";
            } else if (i >= wallI) {
                EXPECT_EQ(s, -1.0f) << "post " << i << ": the ground's own, 1 m east, less 1 m";
            } else {
                EXPECT_NEAR(s, std::max(10.0f - (wallI - i), -1.0f), 1e-4f) << "post " << i;
            }
        }
    }
    // In shadow for 10 m past the wall (posts 11..19), lit beyond.
    for (int i = 0; i < wallI; ++i) {
        EXPECT_EQ(LitShare(0.0f, shadow[i], 0.5f) == 0.0f, i > wallI - 10) << "post " << i;
    }
}

// A sun mostly along y sweeps the transposed grid: a wall along x with the sun in the north
// gives the same shadow as the wall along y with the sun in the east; a diagonal sun steps
// one row per column, and the beam falls sqrt(2) m per step.
TEST(ShadowHeights, EveryDirectionOfTheSunCastsTheSameShadow) {
    const int n = 24, wall = 16;
    std::vector<float> alongX(static_cast<std::size_t>(n) * n, 0.0f);
    for (int i = 0; i < n; ++i) alongX[static_cast<std::size_t>(wall) * n + i] = 8.0f;
    auto north =
        ShadowHeightsM(alongX, n, n, 2.0, SunAt(0.0, 45.0 * kDeg), [](int, int) { return kNone; });
    auto east = ShadowHeightsM(WallAlongY(n, n, wall, 8.0f), n, n, 2.0,
                               SunAt(90.0 * kDeg, 45.0 * kDeg), [](int, int) { return kNone; });
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            ASSERT_EQ(north[static_cast<std::size_t>(a) * n + b],
                      east[static_cast<std::size_t>(b) * n + a])
                << a << ", " << b;
        }
    }
    EXPECT_NEAR(north[static_cast<std::size_t>(wall - 1) * n + 5], 6.0f, 1e-4f);  // 2 m away
    auto diagonal = ShadowHeightsM(WallAlongY(n, n, wall, 8.0f), n, n, 1.0,
                                   SunAt(45.0 * kDeg, 45.0 * kDeg), [](int, int) { return kNone; });
    EXPECT_NEAR(diagonal[static_cast<std::size_t>(5) * n + wall - 1], 8.0f - std::sqrt(2.0f),
                1e-4f);
}

// What arrives from beyond the grid enters at the sun-side edge and carries on across it.
TEST(ShadowHeights, TheSeedEntersAtTheSunSideEdge) {
    const int nx = 10, ny = 3;
    std::vector<float> flat(static_cast<std::size_t>(nx) * ny, 0.0f);
    int seeded = 0;
    auto shadow =
        ShadowHeightsM(flat, nx, ny, 1.0, SunAt(270.0 * kDeg, 45.0 * kDeg), [&](int i, int) {
            ++seeded;
            EXPECT_EQ(i, 0) << "the sun is in the west";
            return 5.0f;
        });
    EXPECT_EQ(seeded, ny);
    for (int i = 0; i < nx; ++i) {
        EXPECT_NEAR(shadow[i], std::max(5.0f - i, -1.0f), 1e-4f) << "post " << i;
    }
}

// The pinned cache of a ridge: with shadows, shade never brightens, and the low sun puts the
// ground behind the ridge wholly in shadow (ambient light only); with the sun overhead nothing
// is shadowed.
TEST(TileCacheShadows, CastShadowsDarkensOnlyTheGroundTheTerrainShades) {
    terrain::TerrainStartup startup;
    startup.info.geometry = {4096.0, 2};
    startup.info.storedLevels = 2;
    startup.info.dataWidthM = startup.info.dataDepthM = 4096.0;
    startup.info.coding = {0.1, 0.0};
    startup.info.maxHeightM = 600.0f;
    // A north-south ridge 600 m high at x = 2048 m, sun low in the east.
    for (int level = 0; level < 2; ++level) {
        int n = 1 << level;
        double spacingM = startup.info.geometry.SpacingM(level);
        for (int ty = 0; ty < n; ++ty) {
            for (int tx = 0; tx < n; ++tx) {
                terrain::TilePosts tile{{level, tx, ty},
                                        std::vector<std::int16_t>(terrain::kTilePostCount)};
                for (int j = 0; j < terrain::kTilePosts; ++j) {
                    for (int i = 0; i < terrain::kTilePosts; ++i) {
                        double x = terrain::TileOriginM(tx, spacingM) + i * spacingM;
                        double h = std::max(0.0, 600.0 - std::abs(x - 2048.0) * 2.0);
                        tile.codes[j * terrain::kTilePosts + i] =
                            static_cast<std::int16_t>(h / 0.1);
                    }
                }
                startup.pinned.push_back(std::move(tile));
            }
        }
    }
    Lighting low;
    low.sunAzimuthRad = 90.0 * kDeg;
    low.sunElevationRad = 10.0 * kDeg;
    TileCache shadowed = PinnedCache(startup, terrain::kNoWaterM, low, true);
    TileCache plain = PinnedCache(startup, terrain::kNoWaterM, low, false);
    Lighting overhead = low;
    overhead.sunElevationRad = 90.0 * kDeg;
    TileCache noon = PinnedCache(startup, terrain::kNoWaterM, overhead, true);
    TileCache noonPlain = PinnedCache(startup, terrain::kNoWaterM, overhead, false);
    int darker = 0;
    for (const terrain::TilePosts& t : startup.pinned) {
        const auto& a = shadowed.Find(t.key)->shadeCodes;
        const auto& b = plain.Find(t.key)->shadeCodes;
        for (std::size_t k = 0; k < a.size(); ++k) {
            ASSERT_LE(a[k], b[k]);
            darker += a[k] < b[k];
        }
        EXPECT_EQ(noon.Find(t.key)->shadeCodes, noonPlain.Find(t.key)->shadeCodes);
    }
    EXPECT_GT(darker, 100);
    // 1 km west of the ridge's foot (x = 1748 m), the ridge's shadow (3.4 km long) lies.
    const ResidentTile* west = shadowed.FinestAt(1, 748.0, 2048.0);
    terrain::PostCell c =
        terrain::CellAt(west->originXM, west->originYM, west->postsPerM, 748.0, 2048.0);
    EXPECT_NEAR(west->shadeCodes[c.j * terrain::kTilePosts + c.i] / kShadeCodesPerUnit, low.ambient,
                1e-4);
    // East of the ridge, facing the sun, nothing shades the ground.
    const ResidentTile* east = shadowed.FinestAt(1, 3000.0, 2048.0);
    c = terrain::CellAt(east->originXM, east->originYM, east->postsPerM, 3000.0, 2048.0);
    EXPECT_EQ(east->shadeCodes[c.j * terrain::kTilePosts + c.i],
              plain.FinestAt(1, 3000.0, 2048.0)->shadeCodes[c.j * terrain::kTilePosts + c.i]);
}

}  // namespace
}  // namespace bfv::raytracer
