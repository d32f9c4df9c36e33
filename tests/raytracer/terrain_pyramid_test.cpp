#include "raytracer/terrain_pyramid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace bfv::raytracer {
namespace {

template <typename F>
common::Terrain MakeTerrain(int nx, int ny, double sxM, double syM, F heightM) {
    common::Terrain t{"test", nx, ny, sxM, syM, {}, {}};
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) t.heightsM.push_back(static_cast<float>(heightM(i, j)));
    }
    return t;
}

common::Terrain Bumpy(int nx, int ny) {
    return MakeTerrain(nx, ny, 10.0, 15.0,
                       [](int i, int j) { return (i * 7 + j * 13) % 17 + 0.25 * i; });
}

TEST(TerrainPyramid, MipSizesHalveAndSpacingsDouble) {
    TerrainPyramid pyramid(Bumpy(37, 20));
    ASSERT_EQ(pyramid.MipCount(), 4);  // 37x20, 19x10, 10x5, 5x3 (stops below 4 posts)
    int expectedNx[] = {37, 19, 10, 5}, expectedNy[] = {20, 10, 5, 3};
    for (int m = 0; m < pyramid.MipCount(); ++m) {
        const MipLevel& mip = pyramid.Mip(m);
        EXPECT_EQ(mip.nx, expectedNx[m]) << "mip " << m;
        EXPECT_EQ(mip.ny, expectedNy[m]) << "mip " << m;
        EXPECT_DOUBLE_EQ(mip.spacingXM, 10.0 * (1 << m));
        EXPECT_DOUBLE_EQ(mip.spacingYM, 15.0 * (1 << m));
        EXPECT_EQ(mip.heightsM.size(), static_cast<size_t>(mip.nx * mip.ny));
        EXPECT_EQ(mip.shade.size(), mip.heightsM.size());
        EXPECT_EQ(mip.slope.size(), mip.heightsM.size());
    }
    EXPECT_DOUBLE_EQ(pyramid.WidthM(), 370.0);
    EXPECT_DOUBLE_EQ(pyramid.DepthM(), 300.0);
}

TEST(TerrainPyramid, CoarsePostIsMeanOfItsFourFinePosts) {
    TerrainPyramid pyramid(Bumpy(16, 12));
    const MipLevel& fine = pyramid.Mip(0);
    const MipLevel& coarse = pyramid.Mip(1);
    for (int j = 0; j < coarse.ny; ++j) {
        for (int i = 0; i < coarse.nx; ++i) {
            double mean = (fine.Height(2 * i, 2 * j) + fine.Height(2 * i + 1, 2 * j) +
                           fine.Height(2 * i, 2 * j + 1) + fine.Height(2 * i + 1, 2 * j + 1)) /
                          4.0;
            EXPECT_NEAR(coarse.Height(i, j), mean, 1e-5) << "post " << i << "," << j;
        }
    }
}

TEST(TerrainPyramid, HeightAtInterpolatesBilinearlyAndClampsOutside) {
    // Heights 3i + 5j + 2ij: bilinear within each cell, so interpolation reproduces it exactly.
    auto f = [](double i, double j) { return 3 * i + 5 * j + 2 * i * j; };
    TerrainPyramid pyramid(MakeTerrain(6, 5, 10.0, 20.0, f));
    for (double gi : {0.0, 0.3, 1.5, 2.75, 4.99, 5.0}) {
        for (double gj : {0.0, 0.6, 2.5, 3.2, 4.0}) {
            double x = (gi + 0.5) * 10.0, y = (gj + 0.5) * 20.0;
            EXPECT_NEAR(pyramid.HeightAt(x, y, 0), f(gi, gj), 1e-9) << gi << "," << gj;
        }
    }
    // Outside the posts: the nearest edge post (clamped grid coordinates).
    EXPECT_NEAR(pyramid.HeightAt(-100.0, -50.0, 0), f(0, 0), 1e-9);
    EXPECT_NEAR(pyramid.HeightAt(2.0, 55.0, 0), f(0, 2.25), 1e-9);
    EXPECT_NEAR(pyramid.HeightAt(1e4, 1e4, 0), f(5, 4), 1e-9);
}

TEST(TerrainPyramid, FlatTerrainShadeIsAmbientPlusSunElevation) {
    Lighting lighting;
    lighting.sunElevationRad = 0.5;
    lighting.ambient = 0.3;
    TerrainPyramid pyramid(MakeTerrain(8, 8, 10.0, 10.0, [](int, int) { return 42.0; }), lighting);
    double expected = 0.3 + 0.7 * std::sin(0.5);
    for (int m = 0; m < pyramid.MipCount(); ++m) {
        for (float shade : pyramid.Mip(m).shade) EXPECT_NEAR(shade, expected, 1e-6);
        for (float slope : pyramid.Mip(m).slope) EXPECT_EQ(slope, 0.0f);
    }
}

TEST(TerrainPyramid, SlopeOfAPlaneIsItsGradient) {
    // z = 0.3 x - 0.4 y in metres: gradient magnitude 0.5 everywhere, edges included.
    double sx = 10.0, sy = 12.0;
    auto plane = [&](int i, int j) { return 100.0 + 0.3 * (i + 0.5) * sx - 0.4 * (j + 0.5) * sy; };
    TerrainPyramid pyramid(MakeTerrain(9, 7, sx, sy, plane));
    for (float slope : pyramid.Mip(0).slope) EXPECT_NEAR(slope, 0.5, 1e-4);
}

TEST(TerrainPyramid, SlopeFacingTheSunIsBrighterThanFacingAway) {
    // Default sun is in the north-west: ground falling towards the north-west faces it.
    auto towardsSun = [](int i, int j) { return 5.0 * i - 5.0 * j; };
    auto awayFromSun = [](int i, int j) { return -5.0 * i + 5.0 * j; };
    TerrainPyramid lit(MakeTerrain(6, 6, 10.0, 10.0, towardsSun));
    TerrainPyramid dark(MakeTerrain(6, 6, 10.0, 10.0, awayFromSun));
    EXPECT_GT(lit.Mip(0).shade[14], dark.Mip(0).shade[14]);
}

}  // namespace
}  // namespace bfv::raytracer
