#include "raytracer/ray_caster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace bfv::raytracer {
namespace {

constexpr double kPi = std::numbers::pi;

common::Terrain RandomTerrain(int nx, int ny, double sxM, double syM, double maxHeightM,
                              unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> height(0.0f, static_cast<float>(maxHeightM));
    common::Terrain t{"random", nx, ny, sxM, syM, {}, {}};
    for (int k = 0; k < nx * ny; ++k) t.heightsM.push_back(height(rng));
    return t;
}

common::Terrain FlatTerrain(int nx, int ny, double spacingM, float heightM) {
    return {"flat", nx, ny, spacingM, spacingM, {}, std::vector<float>(nx * ny, heightM)};
}

// The reference surface, written independently of the code under test: bilinear between
// posts at ((i + 0.5) sx, (j + 0.5) sy), the edge posts' values outside them.
double ReferenceHeight(const common::Terrain& t, double xM, double yM) {
    double gx = std::clamp(xM / t.spacingXM - 0.5, 0.0, t.nx - 1.0);
    double gy = std::clamp(yM / t.spacingYM - 0.5, 0.0, t.ny - 1.0);
    int i = std::min(static_cast<int>(gx), t.nx - 2), j = std::min(static_cast<int>(gy), t.ny - 2);
    double fx = gx - i, fy = gy - j;
    return (1 - fx) * (1 - fy) * t.HeightAt(i, j) + fx * (1 - fy) * t.HeightAt(i + 1, j) +
           (1 - fx) * fy * t.HeightAt(i, j + 1) + fx * fy * t.HeightAt(i + 1, j + 1);
}

// Bound on |dH/ds| along any horizontal direction: inside a bilinear cell dH/dx lies between
// the cell's two x-edge differences (over sx), likewise for y.
double SurfaceLipschitz(const common::Terrain& t) {
    double lx = 0.0, ly = 0.0;
    for (int j = 0; j < t.ny; ++j) {
        for (int i = 0; i < t.nx; ++i) {
            if (i + 1 < t.nx)
                lx = std::max(lx, std::abs(t.HeightAt(i + 1, j) - t.HeightAt(i, j)) / t.spacingXM);
            if (j + 1 < t.ny)
                ly = std::max(ly, std::abs(t.HeightAt(i, j + 1) - t.HeightAt(i, j)) / t.spacingYM);
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
double BruteForceHitS(const common::Terrain& t, double lipschitz, const common::CameraPose& pose,
                      double dirX, double dirY, double slope) {
    double sEnd = std::min(ExitDistance(pose.eyeM.x, dirX, t.WidthM()),
                           ExitDistance(pose.eyeM.y, dirY, t.DepthM()));
    float maxH = *std::max_element(t.heightsM.begin(), t.heightsM.end());
    auto gap = [&](double s) {
        return pose.eyeM.z + slope * s -
               ReferenceHeight(t, pose.eyeM.x + s * dirX, pose.eyeM.y + s * dirY);
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

common::CameraPose RandomPose(const common::Terrain& t, std::mt19937& rng) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    float maxH = *std::max_element(t.heightsM.begin(), t.heightsM.end());
    common::CameraPose pose;
    pose.eyeM = {unit(rng) * t.WidthM(), unit(rng) * t.DepthM(), maxH + 1.0 + 60.0 * unit(rng)};
    pose.headingRad = 2.0 * kPi * unit(rng);
    pose.pitchRad = -kPi / 3.0 * unit(rng);
    return pose;
}

struct Mismatch {
    int count = 0;
    double maxErrorM = 0.0;
};

// Compares every row of every column of one view with the brute-force reference.
Mismatch CompareWithBruteForce(const common::Terrain& t, const common::CameraPose& pose,
                               const common::ScreenSpec& screen) {
    TerrainPyramid pyramid(t);
    CastSettings settings;
    settings.maxMip = 0;
    double lipschitz = SurfaceLipschitz(t);
    ColumnScratch scratch;
    Mismatch result;
    for (int x = 0; x < screen.widthPx; ++x) {
        TraceColumn(pyramid, pose, screen, settings, x, scratch);
        common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
        for (int y = 0; y < screen.heightPx; ++y) {
            double expected =
                BruteForceHitS(t, lipschitz, pose, dir.dirX, dir.dirY, scratch.slopes[y]);
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
        common::Terrain t = RandomTerrain(24, 17, 10.0, 13.0, 80.0, seed);
        for (int view = 0; view < 8; ++view) {
            Mismatch m = CompareWithBruteForce(t, RandomPose(t, rng), screen);
            ASSERT_EQ(m.count, 0) << "terrain seed " << seed << " view " << view;
            maxErrorM = std::max(maxErrorM, m.maxErrorM);
        }
    }
    EXPECT_LT(maxErrorM, 1e-3);
}

// Axis-aligned columns (heading 0 and an odd width give a centre column with dirX == 0) with
// the eye exactly on a post line or a cell edge: the DDA's degenerate cases.
TEST(RayCaster, MatchesBruteForceForAxisAlignedColumnsOnPostLines) {
    common::ScreenSpec screen{49, 32, 60.0 * kPi / 180.0};
    common::Terrain t = RandomTerrain(24, 17, 10.0, 13.0, 80.0, 7);
    for (double heading : {0.0, kPi / 2, kPi, 3 * kPi / 2}) {
        for (double eyeX : {15.0, 20.0, 123.0}) {
            for (double eyeY : {19.5, 26.0, 100.0}) {
                common::CameraPose pose{{eyeX, eyeY, 100.0}, heading, -0.4, 0.0};
                EXPECT_EQ(CompareWithBruteForce(t, pose, screen).count, 0);
            }
        }
    }
}

// Pitch -80 deg (the steepest a flight file allows): the bottom rows look past the nadir and
// share the clamped slope, so several rows of a column are the same ray.
TEST(RayCaster, MatchesBruteForceLookingSteeplyDown) {
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    common::Terrain t = RandomTerrain(24, 17, 10.0, 13.0, 80.0, 8);
    std::mt19937 rng(9);
    for (int view = 0; view < 4; ++view) {
        common::CameraPose pose = RandomPose(t, rng);
        pose.pitchRad = -80.0 * kPi / 180.0;
        EXPECT_EQ(CompareWithBruteForce(t, pose, screen).count, 0) << "view " << view;
    }
}

TEST(RayCaster, FlatTerrainHitsAtAnalyticDistance) {
    common::Terrain t = FlatTerrain(40, 40, 25.0, 20.0f);
    TerrainPyramid pyramid(t);
    common::ScreenSpec screen{32, 24, 60.0 * kPi / 180.0};
    common::CameraPose pose{{500.0, 500.0, 120.0}, 0.7, -0.35, 0.0};
    CastSettings settings;
    settings.maxMip = 0;
    ColumnScratch scratch;
    int hits = 0;
    for (int x = 0; x < screen.widthPx; ++x) {
        TraceColumn(pyramid, pose, screen, settings, x, scratch);
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
    common::Terrain t = RandomTerrain(24, 17, 10.0, 13.0, 80.0, 3);
    TerrainPyramid pyramid(t);
    common::ScreenSpec screen{48, 32, 60.0 * kPi / 180.0};
    std::mt19937 rng(5);
    ColumnScratch scratch;
    for (int view = 0; view < 10; ++view) {
        common::CameraPose pose = RandomPose(t, rng);
        for (int x = 0; x < screen.widthPx; ++x) {
            TraceColumn(pyramid, pose, screen, CastSettings{}, x, scratch);
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

TEST(RayCaster, FarSamplesUseCoarserMips) {
    common::Terrain t = RandomTerrain(512, 512, 10.0, 10.0, 80.0, 11);
    TerrainPyramid pyramid(t);
    common::ScreenSpec screen{64, 48, 60.0 * kPi / 180.0};
    common::CameraPose pose{{30.0, 30.0, 100.0}, kPi / 4, -0.09, 0.0};
    ColumnScratch scratch;
    TraceColumn(pyramid, pose, screen, CastSettings{}, screen.widthPx / 2, scratch);
    std::vector<std::pair<double, int>> hits;  // (distance, mip)
    for (int y = 0; y < screen.heightPx; ++y) {
        if (scratch.hitS[y] >= 0) hits.emplace_back(scratch.hitS[y], scratch.hitMip[y]);
    }
    std::sort(hits.begin(), hits.end());
    ASSERT_GT(hits.size(), 10u);
    EXPECT_EQ(hits.front().second, 0);
    EXPECT_GE(hits.back().second, 2);
    double pixelAngle = common::PixelAngle(screen);
    for (size_t k = 0; k < hits.size(); ++k) {
        auto [s, m] = hits[k];
        if (k > 0) {
            EXPECT_GE(m, hits[k - 1].second);
        }
        // The chosen mip's posts are no coarser than the footprint and less than half of it.
        double spacingM = 10.0 * std::ldexp(1.0, m);
        if (m > 0) {
            EXPECT_GE(s * pixelAngle, spacingM * (1 - 1e-9)) << "s " << s << " mip " << m;
        }
        if (m < pyramid.MipCount() - 1) {
            EXPECT_LT(s * pixelAngle, 2 * spacingM) << "s " << s << " mip " << m;
        }
    }
}

TEST(RayCaster, CastColumnShadesSkyAndTerrainFromThePalette) {
    common::Terrain t = RandomTerrain(24, 17, 10.0, 13.0, 80.0, 4);
    TerrainPyramid pyramid(t);
    common::ScreenSpec screen{16, 40, 60.0 * kPi / 180.0};
    common::CameraPose pose{{120.0, 20.0, 90.0}, 0.1, -0.15, 0.0};
    ColumnScratch scratch;
    std::vector<common::Pixel> column(screen.heightPx);
    int sky = 0, terrain = 0;
    for (int x = 0; x < screen.widthPx; ++x) {
        CastColumn(pyramid, pose, screen, CastSettings{}, x, scratch, column.data());
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

}  // namespace
}  // namespace bfv::raytracer
