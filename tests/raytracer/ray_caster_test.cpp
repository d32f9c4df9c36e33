#include "raytracer/ray_caster.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <vector>

#include "raytracer/tracer_rank.h"

namespace bfv::raytracer {
namespace {

constexpr double kPi = std::numbers::pi;

// A test world: a pyramid of `levelCount` levels whose finest posts are `finestSpacingM` apart,
// data over [0, widthM] x [0, depthM], and every tile of levels 0..residentLevels-1 resident,
// its posts (quantised to 1 mm) from height(i, j) at the finest level's global post (i, j).
struct TileWorld {
    terrain::PyramidInfo info;
    std::unique_ptr<TileCache> cache;
    std::function<double(int, int)> finestPostM;  // decoded height of a finest-level post
    int finest = 0;

    double WidthM() const { return info.dataWidthM; }
    double DepthM() const { return info.dataDepthM; }
    double SpacingM() const { return info.geometry.SpacingM(finest); }
    double MaxHeightM() const { return info.maxHeightM; }
};

TileWorld MakeWorld(double finestSpacingM, int levelCount, double widthM, double depthM,
                    std::function<double(int, int)> height, int residentLevels, float maxHeightM,
                    double waterLevelM = terrain::kNoWaterM) {
    TileWorld w;
    w.finest = levelCount - 1;
    w.info.name = "test";
    w.info.dataWidthM = widthM;
    w.info.dataDepthM = depthM;
    w.info.geometry = {terrain::kTileCells * finestSpacingM * std::ldexp(1.0, levelCount - 1),
                       levelCount};
    w.info.storedLevels = levelCount;
    w.info.coding = {0.001, 0.0};
    w.info.minHeightM = 0.0f;
    w.info.maxHeightM = maxHeightM;
    w.finestPostM = [coding = w.info.coding, height](int i, int j) {
        return static_cast<double>(coding.Decode(coding.Encode(height(i, j))));
    };
    w.cache = std::make_unique<TileCache>(w.info, Lighting{}, waterLevelM);
    for (int level = 0; level < residentLevels; ++level) {
        int n = w.info.geometry.TilesPerSide(level), step = 1 << (w.finest - level);
        double tileM = w.info.geometry.TileSizeM(level);
        for (int ty = 0; ty < n && ty * tileM < depthM; ++ty) {
            for (int tx = 0; tx < n && tx * tileM < widthM; ++tx) {
                terrain::TilePosts tile{{level, tx, ty},
                                        std::vector<std::int16_t>(terrain::kTilePostCount)};
                for (int b = 0; b < terrain::kTilePosts; ++b) {
                    for (int a = 0; a < terrain::kTilePosts; ++a) {
                        int i = (tx * terrain::kTileCells + a - terrain::kTileBorder) * step;
                        int j = (ty * terrain::kTileCells + b - terrain::kTileBorder) * step;
                        tile.codes[b * terrain::kTilePosts + a] =
                            w.info.coding.Encode(height(i, j));
                    }
                }
                w.cache->Insert(tile, true, 0);
            }
        }
    }
    return w;
}

// Heights uniform in [0, maxHeightM], a hash of the post.
std::function<double(int, int)> RandomHeights(double maxHeightM, unsigned seed) {
    return [=](int i, int j) {
        std::uint64_t z = (static_cast<std::uint64_t>(seed) << 42) ^
                          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 21) ^
                          static_cast<std::uint32_t>(j);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return maxHeightM * static_cast<double>(z >> 11) * 0x1.0p-53;
    };
}

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

// Brute-force first hit: march with steps that cannot jump over the surface (the gap divided
// by the largest rate it can close at, at least 0.1 mm), then bisect. -1 for sky.
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
        if (slope >= 0.0 && pose.eyeM.z + slope * s > maxH) return -1.0;
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
    return -1.0;
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

// Compares every row of every column of one view with the brute-force reference.
Mismatch CompareWithBruteForce(const TileWorld& w, const common::CameraPose& pose,
                               const common::ScreenSpec& screen) {
    CastSettings settings = FinestEverywhere();
    double lipschitz = SurfaceLipschitz(w);
    ColumnScratch scratch;
    Mismatch result;
    for (int x = 0; x < screen.widthPx; ++x) {
        TraceColumn(*w.cache, pose, screen, settings, x, scratch);
        common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
        for (int y = 0; y < screen.heightPx; ++y) {
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
                              << pose.pitchRad << " column " << x << " row " << y << " slope "
                              << scratch.slopes[y] << ": TraceColumn " << got << " m, brute force "
                              << expected << " m";
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

// Axis-aligned columns (heading 0 and an odd width give a centre column with dirX == 0) with
// the eye exactly on a post line or a cell edge: the DDA's degenerate cases.
// Every hit's shade and material codes are the bilinear interpolation of its tile's post codes
// at the hit, on the secant path and the exact one, on every instruction set. The reference
// finds the tile and cell from the hit's ground position alone. A hit clamped to the row
// below's (the same ray near the vertical, or rounding) may take its cell's edge instead, so a
// few rows in a thousand may differ; a wrong corner, axis or weight differs in many.
TEST(RayCaster, HitShadeAndMaterialInterpolateThePostsAtTheHitOnEveryInstructionSet) {
    // Posts 2 m apart: tiles of 128 m, so that most of a track lies past its first tile, where
    // the secant may take over.
    TileWorld w = MakeWorld(2.0, 3, 240.0, 221.0, RandomHeights(20.0, 3), 3, 20.0f);
    common::ScreenSpec screen{40, 29, 60.0 * kPi / 180.0};  // 29 rows: a partial last vector
    auto reference = [](const ResidentTile& tile, const std::vector<std::uint16_t>& codes,
                        double xM, double yM) {
        double gx = (xM - tile.originXM) * tile.postsPerM,
               gy = (yM - tile.originYM) * tile.postsPerM;
        int i = std::clamp(static_cast<int>(std::floor(gx)), 0, terrain::kTilePosts - 2);
        int j = std::clamp(static_cast<int>(std::floor(gy)), 0, terrain::kTilePosts - 2);
        double fx = std::clamp(gx - i, 0.0, 1.0), fy = std::clamp(gy - j, 0.0, 1.0);
        auto at = [&](int a, int b) {
            return static_cast<double>(codes[b * terrain::kTilePosts + a]);
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
            for (int view = 0; view < 6; ++view) {
                common::CameraPose pose = RandomPose(w, rng);
                ColumnScratch scratch;
                for (int x = 0; x < screen.widthPx; ++x) {
                    TraceColumn(*w.cache, pose, screen, settings, x, scratch);
                    common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
                    for (int y = 0; y < screen.heightPx; ++y) {
                        double s = scratch.hitS[y];
                        if (s < 0.0) continue;
                        double xM = pose.eyeM.x + s * dir.dirX, yM = pose.eyeM.y + s * dir.dirY;
                        const ResidentTile* tile = w.cache->FinestAt(scratch.hitLevel[y], xM, yM);
                        ASSERT_NE(tile, nullptr);
                        ASSERT_EQ(tile->key.level, scratch.hitLevel[y]);
                        double shade = reference(*tile, tile->shadeCodes, xM, yM);
                        double material = reference(*tile, tile->materialCodes, xM, yM);
                        ++hits;
                        matching += std::abs(scratch.hitShade[y] - shade) <= 0.5 &&
                                    std::abs(scratch.hitMaterial[y] - material) <= 0.5;
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

TEST(RayCaster, MatchesBruteForceForAxisAlignedColumnsOnPostLines) {
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

// Pitch -80 deg (the steepest a flight file allows): the bottom rows look past the nadir and
// share the clamped slope, so several rows of a column are the same ray.
TEST(RayCaster, MatchesBruteForceLookingSteeplyDown) {
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    TileWorld w = RandomWorld(8);
    std::mt19937 rng(9);
    for (int view = 0; view < 4; ++view) {
        common::CameraPose pose = RandomPose(w, rng);
        pose.pitchRad = -80.0 * kPi / 180.0;
        EXPECT_EQ(CompareWithBruteForce(w, pose, screen).count, 0) << "view " << view;
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
    for (int view = 0; view < 8; ++view) {
        common::CameraPose pose = OutsidePose(w, rng);
        for (int x = 0; x < screen.widthPx; ++x) {
            TraceColumn(*w.cache, pose, screen, SecantEverywhere(), x, secantHits);
            TraceColumn(*w.cache, pose, screen, exact, x, exactHits);
            for (int y = 0; y < screen.heightPx; ++y) {
                double expected = exactHits.hitS[y];
                hits += expected >= 0;
                ASSERT_NEAR(secantHits.hitS[y], expected, 1e-6 * std::max(1.0, expected))
                    << "view " << view << " column " << x << " row " << y;
            }
        }
    }
    EXPECT_GT(hits, 1000);
}

// On a cell with twist the secant departs from the bilinear surface along a track by at most a
// quarter of the twist: every hit lies that close to the surface (the reference bilinear
// surface, written independently of the caster), and hits still grow from the bottom row up.
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
        for (int view = 0; view < 6; ++view) {
            common::CameraPose pose = OutsidePose(w, rng);
            for (int x = 0; x < screen.widthPx; ++x) {
                TraceColumn(*w.cache, pose, screen, SecantEverywhere(), x, scratch);
                common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
                double edgeS = -pose.eyeM.x / dir.dirX;  // where the track enters the data
                for (int y = screen.heightPx - 1; y >= 0; --y) {
                    double s = scratch.hitS[y];
                    if (s <= edgeS * (1 + 1e-12)) continue;
                    ++hits;
                    double rayM = pose.eyeM.z + scratch.slopes[y] * s;
                    double surfaceM =
                        ReferenceHeight(w, pose.eyeM.x + s * dir.dirX, pose.eyeM.y + s * dir.dirY);
                    ASSERT_LE(std::abs(surfaceM - rayM), maxTwistM / 4 + 1e-6)
                        << "seed " << seed << " view " << view << " column " << x << " row " << y;
                    if (y + 1 < screen.heightPx && scratch.hitS[y + 1] >= 0) {
                        ASSERT_GE(s, scratch.hitS[y + 1]) << "column " << x << " row " << y;
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

TEST(RayCaster, FlatTerrainHitsAtAnalyticDistance) {
    TileWorld w = MakeWorld(
        25.0, 3, 1000.0, 1000.0, [](int, int) { return 20.0; }, 3, 20.0f);
    common::ScreenSpec screen{32, 24, 60.0 * kPi / 180.0};
    common::CameraPose pose{{500.0, 500.0, 120.0}, 0.7, -0.35, 0.0};
    ColumnScratch scratch;
    int hits = 0;
    for (int x = 0; x < screen.widthPx; ++x) {
        TraceColumn(*w.cache, pose, screen, CastSettings{}, x, scratch);
        common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
        double sExit =
            std::min(ExitDistance(500.0, dir.dirX, 1000.0), ExitDistance(500.0, dir.dirY, 1000.0));
        for (int y = 0; y < screen.heightPx; ++y) {
            double k = scratch.slopes[y];
            double analytic = k < 0 ? (120.0 - 20.0) / -k : -1.0;
            if (analytic > sExit) analytic = -1.0;
            if (analytic < 0) {
                EXPECT_LT(scratch.hitS[y], 0.0) << "column " << x << " row " << y;
            } else {
                ++hits;
                EXPECT_NEAR(scratch.hitS[y], analytic, 1e-9 * analytic)
                    << "column " << x << " row " << y;
            }
        }
    }
    EXPECT_GT(hits, screen.widthPx * screen.heightPx / 2);
}

TEST(RayCaster, HitDistancesGrowFromBottomRowUp) {
    TileWorld w = RandomWorld(3);
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::mt19937 rng(5);
    ColumnScratch scratch;
    for (int view = 0; view < 10; ++view) {
        common::CameraPose pose = RandomPose(w, rng);
        for (int x = 0; x < screen.widthPx; ++x) {
            TraceColumn(*w.cache, pose, screen, CastSettings{}, x, scratch);
            for (int y = screen.heightPx - 2; y >= 0; --y) {
                if (scratch.hitS[y + 1] < 0) {
                    EXPECT_LT(scratch.hitS[y], 0.0) << "a row above a sky row hit terrain";
                } else if (scratch.hitS[y] >= 0) {
                    EXPECT_GE(scratch.hitS[y], scratch.hitS[y + 1])
                        << "column " << x << " row " << y;
                }
            }
        }
    }
}

// (distance, level) of the terrain hits of the centre column, nearest first.
std::vector<std::pair<double, int>> CentreColumnHits(const TileCache& cache,
                                                     const common::CameraPose& pose,
                                                     const common::ScreenSpec& screen,
                                                     ColumnScratch& scratch,
                                                     const CastSettings& settings = {}) {
    TraceColumn(cache, pose, screen, settings, screen.widthPx / 2, scratch);
    std::vector<std::pair<double, int>> hits;
    for (int y = 0; y < screen.heightPx; ++y) {
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
    auto hits = CentreColumnHits(*w.cache, pose, screen, scratch, Isotropic());
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

// With the default anisotropy a row's level follows its footprint's longer axis, along the
// track: s * pixelAngle / sin(depression), at most maxAnisotropy times its width. Every hit
// reads posts no coarser than that length and less than twice its width; rows near the horizon
// read coarser levels than the isotropic choice, and no row a finer one.
TEST(RayCaster, AnisotropicLevelsFollowTheFootprintAlongTheTrack) {
    TileWorld w = FiveLevelWorld(5);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    CastSettings anisotropic;
    ASSERT_EQ(anisotropic.maxAnisotropy, 4.0);
    ColumnScratch scratch;
    TraceColumn(*w.cache, pose, screen, Isotropic(), screen.widthPx / 2, scratch);
    std::vector<int> isotropicLevels = scratch.hitLevel;
    TraceColumn(*w.cache, pose, screen, anisotropic, screen.widthPx / 2, scratch);
    double pixelAngle = common::PixelAngle(screen);
    int coarser = 0, hits = 0;
    for (int y = 0; y < screen.heightPx; ++y) {
        double s = scratch.hitS[y], k = scratch.slopes[y];
        if (s < 0) continue;
        ++hits;
        int level = scratch.hitLevel[y];
        double stretch = std::min(4.0, std::sqrt(1.0 + k * k) / -k);
        double spacingM = w.info.geometry.SpacingM(level);
        if (level < 4) {
            EXPECT_GE(s * pixelAngle * stretch, spacingM * (1 - 1e-9)) << "row " << y;
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
// resolution deficit; samples that want level 2 or coarser are unchanged.
TEST(RayCaster, MissingFineTilesFallBackToTheNextCoarserLevel) {
    TileWorld full = FiveLevelWorld(5), coarse = FiveLevelWorld(3);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    ColumnScratch scratch;
    auto wanted = CentreColumnHits(*full.cache, pose, screen, scratch);
    scratch.coarserHits = 0;
    scratch.hits = 0;
    auto got = CentreColumnHits(*coarse.cache, pose, screen, scratch);
    int expectedCoarser = 0;
    for (auto [s, level] : wanted) expectedCoarser += level > 2;
    for (auto [s, level] : got) EXPECT_LE(level, 2);
    EXPECT_GT(expectedCoarser, 0);
    EXPECT_EQ(scratch.coarserHits, expectedCoarser);
    EXPECT_EQ(scratch.hits, static_cast<long long>(got.size()));
}

TEST(RayCaster, CastColumnShadesSkyAndTerrainFromThePalette) {
    TileWorld w = RandomWorld(4);
    common::ScreenSpec screen{16, 40, 60.0 * kPi / 180.0};
    common::CameraPose pose{{120.0, 20.0, 90.0}, 0.1, -0.15, 0.0};
    ColumnScratch scratch;
    std::vector<common::Pixel> column(screen.heightPx);
    int sky = 0, terrain = 0;
    for (int x = 0; x < screen.widthPx; ++x) {
        CastColumn(*w.cache, pose, screen, CastSettings{}, x, scratch, column.data());
        for (int y = 0; y < screen.heightPx; ++y) {
            if (scratch.hitS[y] < 0) {
                ++sky;
                EXPECT_LT(column[y].index, common::kSkyLevels);
                EXPECT_EQ(column[y].index, common::SkyIndex(scratch.slopes[y]));
            } else {
                ++terrain;
                EXPECT_GE(column[y].index, common::kSkyLevels);
                EXPECT_LT(column[y].index, common::kPaletteSize);
            }
        }
    }
    EXPECT_GT(sky, 0);
    EXPECT_GT(terrain, 0);
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
    ColumnScratch scratch;
    std::vector<common::Pixel> column(screen.heightPx);
    int water = 0, land = 0;
    const int waterFirst = common::kSkyLevels + common::kWaterMaterial * common::kHazeLevels;
    for (int x = 0; x < screen.widthPx; ++x) {
        CastColumn(*w.cache, pose, screen, settings, x, scratch, column.data());
        for (int y = 0; y < screen.heightPx; ++y) {
            if (scratch.hitS[y] < 0) continue;
            double heightM = pose.eyeM.z + scratch.slopes[y] * scratch.hitS[y];
            ASSERT_GE(heightM, -1e-3) << "a hit below the water surface, x " << x << " y " << y;
            int index = column[y].index;
            bool isWater = index >= waterFirst && index < waterFirst + common::kHazeLevels;
            EXPECT_EQ(isWater, heightM < 0.005) << "x " << x << " y " << y << " at " << heightM;
            (isWater ? water : land)++;
        }
    }
    EXPECT_GT(water, 50);
    EXPECT_GT(land, 50);
}

// The pixel the palette's scalar definitions give for row y of traced column x (what the
// caster's vector shading implements): the land material of the coordinate at the hit,
// dithered, through distance haze, intensity from the shade lifted by the haze; sky by ray
// slope. (RandomWorld has no water.)
common::Pixel ReferencePixel(const ColumnScratch& scratch, int x, int y, double hazeHalfDistanceM) {
    double k = scratch.slopes[y], s = scratch.hitS[y];
    if (s < 0.0) return {common::SkyIndex(k), 255};
    double distance = s * std::sqrt(1.0 + k * k);
    float haze = static_cast<float>(distance / (distance + hazeHalfDistanceM));
    float shade = scratch.hitShade[y] / kShadeCodesPerUnit;
    int material = common::LandMaterialAt(scratch.hitMaterial[y] / kMaterialCodesPerUnit,
                                          common::DitherAt(x, y));
    float intensity = std::clamp(shade + (1.0f - shade) * haze, 0.0f, 1.0f);
    return {common::TerrainIndex(material, haze),
            static_cast<std::uint8_t>(intensity * 255.0f + 0.5f)};
}

// On every instruction set, the vector shading gives the palette's definitions: the same sky
// entry, material and haze level, and intensity within one step (float rounding of the haze
// and shade may differ from the reference's at a rounding boundary, not more).
TEST(RayCaster, CastColumnMatchesThePaletteDefinitionsOnEveryInstructionSet) {
    TileWorld w = RandomWorld(5);
    common::ScreenSpec screen{24, 61, 60.0 * kPi / 180.0};  // 61 rows: a partial last vector
    CastSettings settings;
    settings.hazeHalfDistanceM = 300.0;  // haze that varies over the small world
    std::mt19937 rng(11);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        int exact = 0, pixels = 0;
        for (int view = 0; view < 4; ++view) {
            common::CameraPose pose = RandomPose(w, rng);
            ColumnScratch scratch;
            std::vector<common::Pixel> column(screen.heightPx);
            for (int x = 0; x < screen.widthPx; ++x) {
                CastColumn(*w.cache, pose, screen, settings, x, scratch, column.data());
                for (int y = 0; y < screen.heightPx; ++y) {
                    common::Pixel want = ReferencePixel(scratch, x, y, settings.hazeHalfDistanceM);
                    ++pixels;
                    exact += column[y].index == want.index && column[y].intensity == want.intensity;
                    ASSERT_LE(std::abs(column[y].index - want.index), 1)
                        << hwy::TargetName(target) << " view " << view << " x " << x << " y " << y;
                    ASSERT_LE(std::abs(column[y].intensity - want.intensity), 1)
                        << hwy::TargetName(target) << " view " << view << " x " << x << " y " << y;
                }
            }
        }
        EXPECT_GE(exact, pixels * 99 / 100) << hwy::TargetName(target);
    }
    hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace bfv::raytracer
