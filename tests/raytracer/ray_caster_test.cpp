#include "raytracer/ray_caster.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "raytracer/tracer_rank.h"
#include "tests/raytracer/tile_world.h"

namespace bfv::raytracer {
namespace {

constexpr double kPi = std::numbers::pi;

// A 240 x 221 m area of random posts 10 m apart (two levels, both resident).
TileWorld RandomWorld(unsigned seed) {
    return MakeWorld(10.0, 2, 240.0, 221.0, RandomHeights(80.0, seed), 2, 80.0f);
}

// Settings that read the finest level everywhere.
CastSettings FinestEverywhere() {
    CastSettings settings;
    settings.lodBias = 1e-9;
    return settings;
}

// The reference surface, written independently of the code under test: bilinear between the
// finest posts at (i s, j s).
double ReferenceHeight(const TileWorld& w, double xM, double yM) {
    double gx = xM / w.SpacingM(), gy = yM / w.SpacingM();
    int i = static_cast<int>(std::floor(gx)), j = static_cast<int>(std::floor(gy));
    double fx = gx - i, fy = gy - j;
    return (1 - fx) * (1 - fy) * w.finestPostM(i, j) + fx * (1 - fy) * w.finestPostM(i + 1, j) +
           (1 - fx) * fy * w.finestPostM(i, j + 1) + fx * fy * w.finestPostM(i + 1, j + 1);
}

// Bound on |dH/ds| along any horizontal direction over the data area: inside a bilinear cell
// dH/dx lies between the cell's two x-edge differences (over s), likewise for y.
double SurfaceLipschitz(const TileWorld& w) {
    double lx = 0.0, ly = 0.0, s = w.SpacingM();
    int ni = static_cast<int>(w.WidthM() / s) + 2, nj = static_cast<int>(w.DepthM() / s) + 2;
    for (int j = 0; j <= nj; ++j) {
        for (int i = 0; i <= ni; ++i) {
            lx = std::max(lx, std::abs(w.finestPostM(i + 1, j) - w.finestPostM(i, j)) / s);
            ly = std::max(ly, std::abs(w.finestPostM(i, j + 1) - w.finestPostM(i, j)) / s);
        }
    }
    return lx + ly;
}

// Horizontal distance at which a ray from inside the dataset leaves [0, W] x [0, D].
double ExitDistance(double e, double d, double hi) {
    if (d > 0) return (hi - e) / d;
    if (d < 0) return -e / d;
    return std::numeric_limits<double>::infinity();
}

// Where a ray from an eye inside the data that leaves it at distance sEnd above the surface
// meets the ground beyond: the level plane at the data's lowest height (info.minHeightM; no
// water in these worlds), from the edge on. -1 for sky.
double HitBeyondTheData(const TileWorld& w, const common::CameraPose& pose, double slope,
                        double sEnd) {
    if (slope >= 0.0 || pose.eyeM.z <= w.info.minHeightM) return -1.0;
    return std::max(sEnd, (w.info.minHeightM - pose.eyeM.z) / slope);
}

// Brute-force first hit: march with steps that cannot jump over the surface (the gap divided
// by the largest rate it can close at, at least 0.1 mm), then bisect; past the data's edge, the
// level ground beyond it (HitBeyondTheData). -1 for sky.
double BruteForceHitS(const TileWorld& w, double lipschitz, const common::CameraPose& pose,
                      double dirX, double dirY, double slope) {
    double sEnd = std::min(ExitDistance(pose.eyeM.x, dirX, w.WidthM()),
                           ExitDistance(pose.eyeM.y, dirY, w.DepthM()));
    double maxH = w.MaxHeightM();
    auto gap = [&](double s) {
        return pose.eyeM.z + slope * s -
               ReferenceHeight(w, pose.eyeM.x + s * dirX, pose.eyeM.y + s * dirY);
    };
    double s = 0.0;
    while (s < sEnd) {
        if (slope >= 0.0 && pose.eyeM.z + slope * s > maxH) break;
        double next = std::min(sEnd, s + std::max(gap(s) / (lipschitz + std::abs(slope)), 1e-4));
        if (gap(next) <= 0.0) {
            double lo = s, hi = next;
            for (int k = 0; k < 80; ++k) {
                double mid = 0.5 * (lo + hi);
                (gap(mid) > 0.0 ? lo : hi) = mid;
            }
            return hi;
        }
        s = next;
    }
    return HitBeyondTheData(w, pose, slope, sEnd);
}

common::CameraPose RandomPose(const TileWorld& w, std::mt19937& rng) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    common::CameraPose pose;
    pose.eyeM = {unit(rng) * w.WidthM(), unit(rng) * w.DepthM(),
                 w.MaxHeightM() + 1.0 + 60.0 * unit(rng)};
    pose.headingRad = 2.0 * kPi * unit(rng);
    pose.pitchRad = -kPi / 3.0 * unit(rng);
    return pose;
}

struct Mismatch {
    int count = 0;
    double maxErrorM = 0.0;
};

// Compares every pixel of every plane of one view (the plane's direction, the pixel's slope)
// with the brute-force reference.
Mismatch CompareWithBruteForce(const TileWorld& w, const common::CameraPose& pose,
                               const common::ScreenSpec& screen) {
    CastSettings settings = FinestEverywhere();
    View view(*w.cache, pose, screen, settings);
    double lipschitz = SurfaceLipschitz(w);
    ColumnScratch scratch;
    Mismatch result;
    for (int p = 0; p < view.fan.PlaneCount(); ++p) {
        common::HorizontalDirection dir = view.Trace(*w.cache, p, settings, scratch);
        for (int y = 0; y < scratch.rows; ++y) {
            double expected =
                BruteForceHitS(w, lipschitz, pose, dir.dirX, dir.dirY, scratch.slopes[y]);
            double got = scratch.hitS[y];
            bool sameClass = (expected < 0) == (got < 0);
            double error = sameClass && expected >= 0 ? std::abs(expected - got) : 0.0;
            result.maxErrorM = std::max(result.maxErrorM, error);
            if (!sameClass || error > 1e-3 * std::max(1.0, expected)) {
                ++result.count;
                ADD_FAILURE() << "eye (" << pose.eyeM.x << ", " << pose.eyeM.y << ", "
                              << pose.eyeM.z << ") heading " << pose.headingRad << " pitch "
                              << pose.pitchRad << " plane " << p << " " << view.Pixel(p, y)
                              << " slope " << scratch.slopes[y] << ": TracePlane " << got
                              << " m, brute force " << expected << " m";
            }
        }
    }
    return result;
}

TEST(RayCaster, MatchesBruteForceOnRandomHeightfields) {
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::mt19937 rng(20240611);
    double maxErrorM = 0.0;
    for (unsigned seed = 1; seed <= 6; ++seed) {
        TileWorld w = RandomWorld(seed);
        for (int view = 0; view < 8; ++view) {
            Mismatch m = CompareWithBruteForce(w, RandomPose(w, rng), screen);
            ASSERT_EQ(m.count, 0) << "terrain seed " << seed << " view " << view;
            maxErrorM = std::max(maxErrorM, m.maxErrorM);
        }
    }
    EXPECT_LT(maxErrorM, 1e-3);
}

// The caster is compiled for every instruction set Highway targets and picks one at run time:
// each of them this CPU can run (SSE4, AVX2, AVX-512, ...) must match the brute force, not
// only the one a test machine happens to pick.
TEST(RayCaster, EveryInstructionSetMatchesBruteForce) {
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    for (std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        std::mt19937 rng(7);
        for (unsigned seed = 1; seed <= 3; ++seed) {
            TileWorld w = RandomWorld(seed);
            for (int view = 0; view < 4; ++view) {
                EXPECT_EQ(CompareWithBruteForce(w, RandomPose(w, rng), screen).count, 0)
                    << hwy::TargetName(target) << ", terrain seed " << seed << " view " << view;
            }
        }
    }
    hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
}

// Every hit's shade code and colour are the bilinear interpolation of its tile's posts' at the
// hit, on the secant path and the exact one, on every instruction set. The reference
// finds the tile and cell from the hit's ground position alone. A hit clamped to the row
// below's (the same ray near the vertical, or rounding) may take its cell's edge instead, so a
// few rows in a thousand may differ; a wrong corner, axis or weight differs in many.
TEST(RayCaster, HitShadeAndColourInterpolateThePostsAtTheHitOnEveryInstructionSet) {
    // Posts 2 m apart: tiles of 128 m, so that most of a track lies past its first tile, where
    // the secant may take over.
    TileWorld w = MakeWorld(2.0, 3, 240.0, 221.0, RandomHeights(20.0, 3), 3, 20.0f);
    common::ScreenSpec screen{40, 29, 60.0 * kPi / 180.0};  // planes of every length
    // `value` of a post (its shade code, or a channel of its colour), bilinear at (xM, yM).
    auto reference = [](const ResidentTile& tile, auto value, double xM, double yM) {
        double gx = (xM - tile.originXM) * tile.postsPerM,
               gy = (yM - tile.originYM) * tile.postsPerM;
        int i = std::clamp(static_cast<int>(std::floor(gx)), 0, terrain::kTilePosts - 2);
        int j = std::clamp(static_cast<int>(std::floor(gy)), 0, terrain::kTilePosts - 2);
        double fx = std::clamp(gx - i, 0.0, 1.0), fy = std::clamp(gy - j, 0.0, 1.0);
        auto at = [&](int a, int b) {
            return static_cast<double>(value(b * terrain::kTilePosts + a));
        };
        return (1 - fx) * (1 - fy) * at(i, j) + fx * (1 - fy) * at(i + 1, j) +
               (1 - fx) * fy * at(i, j + 1) + fx * fy * at(i + 1, j + 1);
    };
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        for (double secantMaxCellPixels : {1e12, 0.0}) {  // the secant everywhere, or nowhere
            CastSettings settings;
            settings.secantMaxCellPixels = secantMaxCellPixels;
            std::mt19937 rng(17);
            int hits = 0, matching = 0;
            for (int v = 0; v < 6; ++v) {
                common::CameraPose pose = RandomPose(w, rng);
                View view(*w.cache, pose, screen, settings);
                ColumnScratch scratch;
                for (int p = 0; p < view.fan.PlaneCount(); ++p) {
                    common::HorizontalDirection dir = view.Trace(*w.cache, p, settings, scratch);
                    for (int y = 0; y < scratch.rows; ++y) {
                        double s = scratch.hitS[y];
                        if (s < 0.0) continue;
                        double xM = pose.eyeM.x + s * dir.dirX, yM = pose.eyeM.y + s * dir.dirY;
                        // Beyond the data the ground is level and without posts.
                        if (xM < 0.0 || xM > w.WidthM() || yM < 0.0 || yM > w.DepthM()) continue;
                        const ResidentTile* tile = w.cache->FinestAt(scratch.hitLevel[y], xM, yM);
                        ASSERT_NE(tile, nullptr);
                        ASSERT_EQ(tile->key.level, scratch.hitLevel[y]);
                        // The caster reads the shade byte packed with the colour.
                        double shade = reference(
                            *tile,
                            [&](int k) {
                                return (tile->colours[k] >> 24) * kShadeCodesPerShadeByte;
                            },
                            xM, yM);
                        bool same = std::abs(scratch.hitShade[y] - shade) <= 0.5;
                        for (int c = 0; c < 3; ++c) {
                            double channel = reference(
                                *tile, [&](int k) { return tile->colours[k] >> (8 * c) & 0xFF; },
                                xM, yM);
                            same &= std::abs(scratch.hitColour[c][y] - channel) <= 0.01;
                        }
                        ++hits;
                        matching += same;
                    }
                }
            }
            EXPECT_GT(hits, 2000);  // of 6960 pixels
            EXPECT_GE(matching, hits * 995 / 1000)
                << hwy::TargetName(target) << (secantMaxCellPixels > 0 ? ", secant" : ", exact");
        }
    }
    hwy::SetSupportedTargetsForTest(0);
}

// Axis-aligned planes (heading 0 and an odd width give a centre plane with dirX == 0) with the
// eye exactly on a post line or a cell edge: the DDA's degenerate cases.
TEST(RayCaster, MatchesBruteForceForAxisAlignedPlanesOnPostLines) {
    common::ScreenSpec screen{49, 32, 60.0 * kPi / 180.0};
    TileWorld w = RandomWorld(7);
    for (double heading : {0.0, kPi / 2, kPi, 3 * kPi / 2}) {
        for (double eyeX : {15.0, 20.0, 123.0}) {
            for (double eyeY : {19.5, 26.0, 100.0}) {
                common::CameraPose pose{{eyeX, eyeY, 100.0}, heading, -0.4, 0.0};
                EXPECT_EQ(CompareWithBruteForce(w, pose, screen).count, 0);
            }
        }
    }
}

// Looking straight down and nearly so: the nadir's image is on the screen, the planes fan out
// from it all around, and the pixels about it have the steepest slopes (an odd screen puts a
// pixel's centre on the nadir at -90 deg: its ray takes the clamped slope kMaxFanSlope).
TEST(RayCaster, MatchesBruteForceLookingStraightDown) {
    TileWorld w = RandomWorld(8);
    std::mt19937 rng(9);
    for (common::ScreenSpec screen : {common::ScreenSpec{48, 32, 60.0 * kPi / 180.0},
                                      common::ScreenSpec{37, 25, 60.0 * kPi / 180.0}}) {
        for (double pitchDeg : {-90.0, -89.0, -80.0}) {
            for (int view = 0; view < 3; ++view) {
                common::CameraPose pose = RandomPose(w, rng);
                pose.pitchRad = pitchDeg * kPi / 180.0;
                EXPECT_EQ(CompareWithBruteForce(w, pose, screen).count, 0)
                    << screen.widthPx << "x" << screen.heightPx << " pitch " << pitchDeg << " view "
                    << view;
            }
        }
    }
}

// Settings that take the secant in every cell the march starts past the eye.
CastSettings SecantEverywhere() {
    CastSettings settings = FinestEverywhere();
    settings.secantMaxCellPixels = 1e30;
    return settings;
}

// Views from outside the data area, looking in: the march starts at the data's edge, past the
// eye, so that SecantEverywhere takes the secant from the first cell on.
common::CameraPose OutsidePose(const TileWorld& w, std::mt19937& rng) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    common::CameraPose pose;
    pose.eyeM = {-20.0 - 100.0 * unit(rng), w.DepthM() * unit(rng),
                 w.MaxHeightM() + 1.0 + 60.0 * unit(rng)};
    pose.headingRad = kPi / 2 + 0.6 * (unit(rng) - 0.5);  // east, into the data
    pose.pitchRad = -0.1 - 0.5 * unit(rng);
    return pose;
}

// Where a cell has no twist (h00 - h10 - h01 + h11 = 0, as on any surface f(x) + g(y)), the
// bilinear surface is linear along every track through it: the secant is the surface, and its
// hits are the exact ones. Heights are multiples of 1/8 m within the coding's range (1 mm
// codes, at most 32.767 m), so that the posts keep the sum exactly.
TEST(RayCaster, SecantMatchesTheExactIntersectionWhereCellsHaveNoTwist) {
    auto f = RandomHeights(16.0, 21), g = RandomHeights(16.0, 22);
    auto eighths = [](double m) { return std::floor(8.0 * m) / 8.0; };
    TileWorld w = MakeWorld(
        10.0, 2, 240.0, 221.0, [&](int i, int j) { return eighths(f(i, 0)) + eighths(g(0, j)); }, 2,
        32.0f);
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    CastSettings exact = FinestEverywhere();
    exact.secantMaxCellPixels = 0.0;
    std::mt19937 rng(31);
    ColumnScratch secantHits, exactHits;
    int hits = 0;
    for (int v = 0; v < 8; ++v) {
        View view(*w.cache, OutsidePose(w, rng), screen, exact);
        for (int p = 0; p < view.fan.PlaneCount(); ++p) {
            view.Trace(*w.cache, p, SecantEverywhere(), secantHits);
            view.Trace(*w.cache, p, exact, exactHits);
            for (int y = 0; y < exactHits.rows; ++y) {
                double expected = exactHits.hitS[y];
                hits += expected >= 0;
                ASSERT_NEAR(secantHits.hitS[y], expected, 1e-6 * std::max(1.0, expected))
                    << "view " << v << " plane " << p << " " << view.Pixel(p, y);
            }
        }
    }
    EXPECT_GT(hits, 1000);
}

// On a cell with twist the secant departs from the bilinear surface along a track by at most a
// quarter of the twist: every hit lies that close to the surface (the reference bilinear
// surface, written independently of the caster), and hits still grow from the steepest ray up.
// Rays that meet the data's edge below its posts hit the edge, as on the exact path.
TEST(RayCaster, SecantHitsLieOnTheSurfaceWithinAQuarterOfTheLargestTwist) {
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::mt19937 rng(33);
    int hits = 0;
    for (unsigned seed = 1; seed <= 4; ++seed) {
        TileWorld w = RandomWorld(seed);
        double maxTwistM = 0.0;
        for (int j = 0; j <= 23; ++j) {
            for (int i = 0; i <= 25; ++i) {
                maxTwistM = std::max(
                    maxTwistM, std::abs(w.finestPostM(i, j) - w.finestPostM(i + 1, j) -
                                        w.finestPostM(i, j + 1) + w.finestPostM(i + 1, j + 1)));
            }
        }
        ColumnScratch scratch;
        for (int v = 0; v < 6; ++v) {
            const common::CameraPose pose = OutsidePose(w, rng);
            View view(*w.cache, pose, screen, SecantEverywhere());
            for (int p = 0; p < view.fan.PlaneCount(); ++p) {
                common::HorizontalDirection dir =
                    view.Trace(*w.cache, p, SecantEverywhere(), scratch);
                double edgeS = -pose.eyeM.x / dir.dirX;  // where the track enters the data
                double exitS = std::min(ExitDistance(pose.eyeM.x, dir.dirX, w.WidthM()),
                                        ExitDistance(pose.eyeM.y, dir.dirY, w.DepthM()));
                for (int y = scratch.rows - 1; y >= 0; --y) {
                    double s = scratch.hitS[y];
                    // Before the data and past it the ground is level, without posts.
                    if (s <= edgeS * (1 + 1e-12) || s >= exitS * (1 - 1e-12)) continue;
                    ++hits;
                    double rayM = pose.eyeM.z + scratch.slopes[y] * s;
                    double surfaceM =
                        ReferenceHeight(w, pose.eyeM.x + s * dir.dirX, pose.eyeM.y + s * dir.dirY);
                    ASSERT_LE(std::abs(surfaceM - rayM), maxTwistM / 4 + 1e-6)
                        << "seed " << seed << " view " << v << " " << view.Pixel(p, y);
                    if (y + 1 < scratch.rows && scratch.hitS[y + 1] >= 0) {
                        ASSERT_GE(s, scratch.hitS[y + 1]) << view.Pixel(p, y);
                    }
                }
            }
        }
    }
    EXPECT_GT(hits, 1000);
}

TEST(RayCaster, CastSettingsTakeTheShadingOptions) {
    common::ShadingOptions shading;
    shading.hazeHalfDistanceM = 4000.0;
    shading.lodBias = 2.0;
    shading.maxAnisotropy = 3.0;
    shading.secantMaxCellPixels = 0.0;
    CastSettings settings = CastSettingsFrom(shading);
    EXPECT_EQ(settings.hazeHalfDistanceM, 4000.0);
    EXPECT_EQ(settings.lodBias, 2.0);
    EXPECT_EQ(settings.maxAnisotropy, 3.0);
    EXPECT_EQ(settings.secantMaxCellPixels, 0.0);
    EXPECT_EQ(CastSettingsFrom({}).secantMaxCellPixels, CastSettings{}.secantMaxCellPixels);
}

// Level posts at 20 m: every ray down meets them at the analytic distance, or past the data's
// edge the level ground beyond it at the lowest height (0 m).
TEST(RayCaster, FlatTerrainHitsAtAnalyticDistance) {
    TileWorld w = MakeWorld(
        25.0, 3, 1000.0, 1000.0, [](int, int) { return 20.0; }, 3, 20.0f);
    common::ScreenSpec screen{32, 24, 60.0 * kPi / 180.0};
    common::CameraPose pose{{500.0, 500.0, 120.0}, 0.7, -0.35, 0.0};
    View view(*w.cache, pose, screen, CastSettings{});
    ColumnScratch scratch;
    int hits = 0;
    for (int p = 0; p < view.fan.PlaneCount(); ++p) {
        common::HorizontalDirection dir = view.Trace(*w.cache, p, CastSettings{}, scratch);
        double sExit =
            std::min(ExitDistance(500.0, dir.dirX, 1000.0), ExitDistance(500.0, dir.dirY, 1000.0));
        for (int y = 0; y < scratch.rows; ++y) {
            double k = scratch.slopes[y];
            double analytic = k < 0 ? (120.0 - 20.0) / -k : -1.0;
            if (analytic > sExit) analytic = HitBeyondTheData(w, view.pose, k, sExit);
            if (analytic < 0) {
                EXPECT_LT(scratch.hitS[y], 0.0) << view.Pixel(p, y);
            } else {
                ++hits;
                EXPECT_NEAR(scratch.hitS[y], analytic, 1e-9 * analytic) << view.Pixel(p, y);
            }
        }
    }
    EXPECT_GT(hits, screen.widthPx * screen.heightPx / 2);
}

// Within a plane a shallower ray (an earlier row of TracePlane) hits no nearer than a steeper
// one, and sees sky where a steeper one does.
TEST(RayCaster, HitDistancesGrowFromTheSteepestRayUp) {
    TileWorld w = RandomWorld(3);
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::mt19937 rng(5);
    ColumnScratch scratch;
    for (int v = 0; v < 10; ++v) {
        View view(*w.cache, RandomPose(w, rng), screen, CastSettings{});
        for (int p = 0; p < view.fan.PlaneCount(); ++p) {
            view.Trace(*w.cache, p, CastSettings{}, scratch);
            for (int y = scratch.rows - 2; y >= 0; --y) {
                if (scratch.hitS[y + 1] < 0) {
                    EXPECT_LT(scratch.hitS[y], 0.0) << "a ray above a sky ray hit terrain";
                } else if (scratch.hitS[y] >= 0) {
                    EXPECT_GE(scratch.hitS[y], scratch.hitS[y + 1]) << view.Pixel(p, y);
                }
            }
        }
    }
}

// (distance, level) of the terrain hits of the centre plane (the one holding the bottom pixel of
// the centre column), nearest first.
std::vector<std::pair<double, int>> CentrePlaneHits(const TileCache& cache,
                                                    const common::CameraPose& pose,
                                                    const common::ScreenSpec& screen,
                                                    ColumnScratch& scratch,
                                                    const CastSettings& settings = {}) {
    View view(cache, pose, screen, settings);
    view.Trace(cache, view.PlaneOf(screen.widthPx / 2, screen.heightPx - 1), settings, scratch);
    std::vector<std::pair<double, int>> hits;
    for (int y = 0; y < scratch.rows; ++y) {
        if (scratch.hitS[y] >= 0) hits.emplace_back(scratch.hitS[y], scratch.hitLevel[y]);
    }
    std::sort(hits.begin(), hits.end());
    return hits;
}

// Five levels, 160 m to 10 m posts, over 5 x 5 km of random posts.
TileWorld FiveLevelWorld(int residentLevels) {
    return MakeWorld(10.0, 5, 5000.0, 5000.0, RandomHeights(80.0, 11), residentLevels, 80.0f);
}

// Settings that choose the level by a pixel's width on the ground, whatever its length.
CastSettings Isotropic() {
    CastSettings settings;
    settings.maxAnisotropy = 1.0;
    return settings;
}

TEST(RayCaster, FarSamplesUseCoarserLevels) {
    TileWorld w = FiveLevelWorld(5);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    ColumnScratch scratch;
    auto hits = CentrePlaneHits(*w.cache, pose, screen, scratch, Isotropic());
    ASSERT_GT(hits.size(), 10u);
    EXPECT_EQ(hits.front().second, 4);
    EXPECT_LE(hits.back().second, 2);
    EXPECT_EQ(scratch.coarserHits, 0);  // every level is there
    double pixelAngle = common::PixelAngle(screen);
    for (size_t k = 0; k < hits.size(); ++k) {
        auto [s, level] = hits[k];
        if (k > 0) {
            EXPECT_LE(level, hits[k - 1].second);
        }
        // The chosen level's posts are no coarser than the footprint and less than half of it.
        double spacingM = w.info.geometry.SpacingM(level);
        if (level < 4) {
            EXPECT_GE(s * pixelAngle, spacingM * (1 - 1e-9)) << "s " << s << " level " << level;
        }
        if (level > 0) {
            EXPECT_LT(s * pixelAngle, 2 * spacingM) << "s " << s << " level " << level;
        }
    }
}

// With the default anisotropy the level at distance s follows the footprint's longer axis, along
// the track: s * pixelAngle / sin(depression), at most maxAnisotropy times its width, where the
// depression is that of a ray reaching the coarsest level's surface at s along the plane
// (FrameRays::coarsest: a function of the plane and the distance alone, so that every split of
// a plane reads the same levels). The march leaves a level where that footprint, taken at the
// start of a stretch of the track, outgrows it, and never returns to a finer one: every hit
// reads posts no coarser than s * pixelAngle times the largest stretch before it, and less than
// twice the footprint's width; rays near the horizon read coarser levels than the isotropic
// choice, and none a finer one.
TEST(RayCaster, AnisotropicLevelsFollowTheFootprintAlongTheTrack) {
    TileWorld w = FiveLevelWorld(5);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    CastSettings anisotropic;
    ASSERT_EQ(anisotropic.maxAnisotropy, 4.0);
    View view(*w.cache, pose, screen, anisotropic);
    const int plane = view.PlaneOf(screen.widthPx / 2, screen.heightPx - 1);
    ColumnScratch scratch;
    view.Trace(*w.cache, plane, Isotropic(), scratch);
    std::vector<int> isotropicLevels = scratch.hitLevel;
    view.Trace(*w.cache, plane, anisotropic, scratch);
    double pixelAngle = common::PixelAngle(screen);
    common::HorizontalDirection dir = common::PlaneDirection(view.fan, plane, pose.headingRad);
    // The largest stretch over the track up to distance s, sampled every 0.1 m.
    auto largestStretchTo = [&](double s) {
        double largest = 1.0;
        for (double t = 0.1; t <= s; t += 0.1) {
            double groundM =
                w.cache->HeightAtM(0, pose.eyeM.x + t * dir.dirX, pose.eyeM.y + t * dir.dirY);
            largest =
                std::max(largest, common::AlongTrackStretch((groundM - pose.eyeM.z) / t, 4.0));
        }
        return largest;
    };
    int coarser = 0, hits = 0;
    for (int y = 0; y < scratch.rows; ++y) {
        double s = scratch.hitS[y];
        if (s < 0) continue;
        ++hits;
        int level = scratch.hitLevel[y];
        double stretch = largestStretchTo(s);
        double spacingM = w.info.geometry.SpacingM(level);
        if (level < 4) {
            EXPECT_GE(s * pixelAngle * stretch, spacingM * (1 - 1e-3)) << "row " << y;
        }
        if (level > 0) {
            EXPECT_LT(s * pixelAngle, 2 * spacingM) << "row " << y;
        }
        EXPECT_LE(level, isotropicLevels[y]) << "row " << y;
        coarser += level < isotropicLevels[y];
    }
    EXPECT_GT(hits, 10);
    EXPECT_GT(coarser, 0);
}

// With levels 3 and 4 missing, samples that want them fall back to level 2, and count as the
// resolution deficit. The level wanted depends on the distance alone: isotropically, level L
// while the footprint s * pixelAngle is under twice its posts' spacing (and the finest level
// up to the first end), so the hits that want a level finer than 2 are those nearer than
// 2 * SpacingM(3) / pixelAngle.
TEST(RayCaster, MissingFineTilesFallBackToTheNextCoarserLevel) {
    TileWorld full = FiveLevelWorld(5), coarse = FiveLevelWorld(3);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    ColumnScratch scratch;
    auto wanted = CentrePlaneHits(*full.cache, pose, screen, scratch, Isotropic());
    const double level3EndS = 2.0 * full.info.geometry.SpacingM(3) / common::PixelAngle(screen);
    for (auto [s, level] : wanted) EXPECT_EQ(level > 2, s < level3EndS) << "s " << s;
    scratch.coarserHits = 0;
    scratch.hits = 0;
    auto got = CentrePlaneHits(*coarse.cache, pose, screen, scratch, Isotropic());
    int expectedCoarser = 0;
    for (auto [s, level] : got) {
        EXPECT_LE(level, 2);
        expectedCoarser += s < level3EndS;
    }
    EXPECT_GT(expectedCoarser, 0);
    EXPECT_EQ(scratch.coarserHits, expectedCoarser);
    EXPECT_EQ(scratch.hits, static_cast<long long>(got.size()));
}

// The azimuth of a plane's direction, clockwise from north.
double AzimuthOf(const common::HorizontalDirection& dir) { return std::atan2(dir.dirX, dir.dirY); }

// The sky pixel of a ray of slope k in a plane of azimuth `azimuthRad`: the cache's daylight
// sky there, each channel rounded.
common::Pixel ReferenceSky(const TileCache& cache, double azimuthRad, double k) {
    return common::QuantiseSkyColour(cache.DaySky().At(azimuthRad, k));
}

// Sky rows are the daylight sky along their rays; terrain rows are the land's colours, greener
// than blue.
TEST(RayCaster, CastPlaneShadesSkyByRaySlopeAndTerrainInLandColours) {
    TileWorld w = RandomWorld(4);
    common::ScreenSpec screen{16, 40, 60.0 * kPi / 180.0};
    View view(*w.cache, {{120.0, 20.0, 90.0}, 0.1, -0.15, 0.0}, screen, CastSettings{});
    ColumnScratch scratch;
    std::vector<common::Pixel> image;
    int sky = 0, terrain = 0;
    for (int p = 0; p < view.fan.PlaneCount(); ++p) {
        common::HorizontalDirection dir = view.Cast(*w.cache, p, CastSettings{}, scratch, image);
        for (int y = 0; y < scratch.rows; ++y) {
            common::Pixel pixel = image[view.PixelIndex(p, y)];
            if (scratch.hitS[y] < 0) {
                ++sky;
                common::Pixel want = ReferenceSky(*w.cache, AzimuthOf(dir), scratch.slopes[y]);
                EXPECT_LE(std::abs(pixel.r - want.r), 1) << view.Pixel(p, y);
                EXPECT_LE(std::abs(pixel.g - want.g), 1) << view.Pixel(p, y);
                EXPECT_LE(std::abs(pixel.b - want.b), 1) << view.Pixel(p, y);
            } else {
                ++terrain;
                EXPECT_GT(pixel.g, pixel.b) << view.Pixel(p, y);
            }
        }
    }
    EXPECT_GT(sky, 0);
    EXPECT_GT(terrain, 0);
}

// Planes of many sky rows read their sky a vector of rows at a time from the plane's table
// (PlaneSky::Table), those passing near the sun one row at a time with its disc and glow: on every
// instruction set, every sky row is the daylight sky along its ray (within one level: the caster's
// polynomial azimuth against std::atan2), almost all exactly, looking at the sun and away from it.
TEST(RayCaster, SkyRowsAreTheSkyAlongTheirRaysOnEveryInstructionSet) {
    TileWorld w = RandomWorld(6);
    // Narrow and tall: about 80 deg of elevation, planes of up to 240 rows.
    common::ScreenSpec screen{48, 240, 20.0 * kPi / 180.0};
    const std::array<double, 3> sun = w.cache->DaySky().SunDirection();
    const double sunAzimuthRad = std::atan2(sun[0], sun[1]);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        int skyRows = 0, exact = 0, nearSun = 0, manyRowPlanes = 0;
        for (double headingRad : {sunAzimuthRad, sunAzimuthRad + kPi}) {
            View view(*w.cache, {{120.0, 20.0, 90.0}, headingRad, 0.5, 0.0}, screen,
                      CastSettings{});
            ColumnScratch scratch;
            std::vector<common::Pixel> image;
            for (int p = 0; p < view.fan.PlaneCount(); ++p) {
                common::HorizontalDirection dir =
                    view.Cast(*w.cache, p, CastSettings{}, scratch, image);
                int planeSky = 0;
                for (int y = 0; y < scratch.rows; ++y) {
                    if (scratch.hitS[y] >= 0) continue;
                    ++planeSky;
                    const double k = scratch.slopes[y];
                    const common::Pixel want = ReferenceSky(*w.cache, AzimuthOf(dir), k);
                    const common::Pixel got = image[view.PixelIndex(p, y)];
                    exact += got == want;
                    ASSERT_LE(std::abs(got.r - want.r), 1)
                        << hwy::TargetName(target) << " " << view.Pixel(p, y);
                    ASSERT_LE(std::abs(got.g - want.g), 1)
                        << hwy::TargetName(target) << " " << view.Pixel(p, y);
                    ASSERT_LE(std::abs(got.b - want.b), 1)
                        << hwy::TargetName(target) << " " << view.Pixel(p, y);
                    // Within 10 deg of the sun: its glow.
                    const double cosToSun = (dir.dirX * sun[0] + dir.dirY * sun[1] + k * sun[2]) /
                                            std::sqrt(1.0 + k * k);
                    nearSun += cosToSun > std::cos(10.0 * kPi / 180.0);
                }
                skyRows += planeSky;
                manyRowPlanes += planeSky > 64;
            }
        }
        EXPECT_GE(exact, skyRows * 99 / 100) << hwy::TargetName(target);
        EXPECT_GT(manyRowPlanes, 20) << hwy::TargetName(target);
        EXPECT_GT(nearSun, 100) << hwy::TargetName(target);
    }
    hwy::SetSupportedTargetsForTest(0);
}

// Terrain that dips below the water level is drawn as a flat water surface at it: no hit lies
// below the level, hits on it are water, hits above it are land.
TEST(RayCaster, TerrainBelowTheWaterLevelIsAFlatWaterSurface) {
    // A valley floor sloping from -30 m (west) to +30 m (east) over 240 m.
    auto slope = [](int i, int) { return -30.0 + 0.25 * (i * 10.0); };
    TileWorld w = MakeWorld(10.0, 2, 240.0, 221.0, slope, 2, 30.0f, 0.0);
    w.info.minHeightM = -30.0f;
    common::ScreenSpec screen{32, 24, 60.0 * kPi / 180.0};
    // Inside the data, looking north: no ray enters the data from its side, below the surface.
    common::CameraPose pose{{120.0, 10.0, 60.0}, 0.0, -0.45, 0.0};
    CastSettings settings;
    View view(*w.cache, pose, screen, settings);
    ColumnScratch scratch;
    std::vector<common::Pixel> image;
    int water = 0, land = 0;
    for (int p = 0; p < view.fan.PlaneCount(); ++p) {
        view.Cast(*w.cache, p, settings, scratch, image);
        for (int y = 0; y < scratch.rows; ++y) {
            if (scratch.hitS[y] < 0) continue;
            double heightM = pose.eyeM.z + scratch.slopes[y] * scratch.hitS[y];
            ASSERT_GE(heightM, -1e-3) << "a hit below the water surface, " << view.Pixel(p, y);
            // Water is blue (common::kWaterColour), the land's colours greener than blue.
            common::Pixel pixel = image[view.PixelIndex(p, y)];
            bool isWater = pixel.b > pixel.g;
            EXPECT_EQ(isWater, heightM < 0.005) << view.Pixel(p, y) << " at " << heightM;
            (isWater ? water : land)++;
        }
    }
    EXPECT_GT(water, 50);
    EXPECT_GT(land, 50);
}

// The pixel the caster's documented shading gives for row y of a traced plane of azimuth
// `azimuthRad` (what its vector shading implements): the colour interpolated at the hit times
// the shade there and the light's tint, moved toward the sky's colour at the horizon there by
// the haze share of the slant distance; the sky along the ray. (RandomWorld has no water.)
common::Pixel ReferencePixel(const TileCache& cache, const ColumnScratch& scratch, int y,
                             double azimuthRad, double hazeHalfDistanceM) {
    double k = scratch.slopes[y], s = scratch.hitS[y];
    if (s < 0.0) return ReferenceSky(cache, azimuthRad, k);
    double distance = s * std::sqrt(1.0 + k * k);
    double haze = distance / (distance + hazeHalfDistanceM);
    double shade = scratch.hitShade[y] / kShadeCodesPerUnit;
    const common::SkyColour horizon = cache.DaySky().HorizonColour(azimuthRad);
    const double hazeColour[3] = {horizon.r, horizon.g, horizon.b};
    std::uint8_t out[3];
    for (int c = 0; c < 3; ++c) {
        double lit = scratch.hitColour[c][y] * shade * cache.LightTint()[c];
        out[c] = static_cast<std::uint8_t>(std::floor(lit + (hazeColour[c] - lit) * haze + 0.5));
    }
    return {out[0], out[1], out[2]};
}

// On every instruction set, the vector shading gives the documented shading: each channel
// within one level (float rounding of the haze and shade may differ from the reference's at a
// rounding boundary, not more), and almost all exactly.
TEST(RayCaster, CastPlaneMatchesTheShadingDefinitionOnEveryInstructionSet) {
    TileWorld w = RandomWorld(5);
    common::ScreenSpec screen{24, 61, 60.0 * kPi / 180.0};  // planes of every length
    CastSettings settings;
    settings.hazeHalfDistanceM = 300.0;  // haze that varies over the small world
    std::mt19937 rng(11);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        int exact = 0, pixels = 0;
        for (int v = 0; v < 4; ++v) {
            View view(*w.cache, RandomPose(w, rng), screen, settings);
            ColumnScratch scratch;
            std::vector<common::Pixel> image;
            for (int p = 0; p < view.fan.PlaneCount(); ++p) {
                common::HorizontalDirection dir = view.Cast(*w.cache, p, settings, scratch, image);
                for (int y = 0; y < scratch.rows; ++y) {
                    common::Pixel want = ReferencePixel(*w.cache, scratch, y, AzimuthOf(dir),
                                                        settings.hazeHalfDistanceM);
                    common::Pixel got = image[view.PixelIndex(p, y)];
                    ++pixels;
                    exact += got == want;
                    ASSERT_LE(std::abs(got.r - want.r), 1)
                        << hwy::TargetName(target) << " view " << v << " " << view.Pixel(p, y);
                    ASSERT_LE(std::abs(got.g - want.g), 1)
                        << hwy::TargetName(target) << " view " << v << " " << view.Pixel(p, y);
                    ASSERT_LE(std::abs(got.b - want.b), 1)
                        << hwy::TargetName(target) << " view " << v << " " << view.Pixel(p, y);
                }
            }
        }
        EXPECT_GE(exact, pixels * 99 / 100) << hwy::TargetName(target);
    }
    hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace bfv::raytracer
