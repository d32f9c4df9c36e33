#include "raytracer/terrain_pyramid.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace bfv::raytracer {

namespace {

MipLevel Downsample(const MipLevel& fine) {
    MipLevel coarse;
    coarse.nx = (fine.nx + 1) / 2;
    coarse.ny = (fine.ny + 1) / 2;
    coarse.spacingXM = fine.spacingXM * 2.0;
    coarse.spacingYM = fine.spacingYM * 2.0;
    coarse.heightsM.resize(static_cast<size_t>(coarse.nx) * coarse.ny);
    for (int j = 0; j < coarse.ny; ++j) {
        int j0 = 2 * j, j1 = std::min(2 * j + 1, fine.ny - 1);
        for (int i = 0; i < coarse.nx; ++i) {
            int i0 = 2 * i, i1 = std::min(2 * i + 1, fine.nx - 1);
            float sum = fine.Height(i0, j0) + fine.Height(i1, j0) + fine.Height(i0, j1) +
                        fine.Height(i1, j1);
            coarse.heightsM[j * coarse.nx + i] = sum * 0.25f;
        }
    }
    return coarse;
}

// Central differences, one-sided at the edges: gradient of height in metres per metre.
void ShadePosts(MipLevel& mip, const Lighting& lighting) {
    double sunX = std::sin(lighting.sunAzimuthRad) * std::cos(lighting.sunElevationRad);
    double sunY = std::cos(lighting.sunAzimuthRad) * std::cos(lighting.sunElevationRad);
    double sunZ = std::sin(lighting.sunElevationRad);
    mip.shade.resize(mip.heightsM.size());
    mip.slope.resize(mip.heightsM.size());
    for (int j = 0; j < mip.ny; ++j) {
        int jl = std::max(j - 1, 0), jh = std::min(j + 1, mip.ny - 1);
        for (int i = 0; i < mip.nx; ++i) {
            int il = std::max(i - 1, 0), ih = std::min(i + 1, mip.nx - 1);
            double gx = (mip.Height(ih, j) - mip.Height(il, j)) /
                        (std::max(ih - il, 1) * mip.spacingXM);
            double gy = (mip.Height(i, jh) - mip.Height(i, jl)) /
                        (std::max(jh - jl, 1) * mip.spacingYM);
            double lambert = (-gx * sunX - gy * sunY + sunZ) / std::sqrt(gx * gx + gy * gy + 1);
            mip.shade[j * mip.nx + i] = static_cast<float>(
                lighting.ambient + (1.0 - lighting.ambient) * std::max(lambert, 0.0));
            mip.slope[j * mip.nx + i] = static_cast<float>(std::hypot(gx, gy));
        }
    }
}

}  // namespace

TerrainPyramid::TerrainPyramid(const common::Terrain& terrain, const Lighting& lighting) {
    BFV_CHECK(terrain.nx >= 2 && terrain.ny >= 2);
    MipLevel base;
    base.nx = terrain.nx;
    base.ny = terrain.ny;
    base.spacingXM = terrain.spacingXM;
    base.spacingYM = terrain.spacingYM;
    base.heightsM = terrain.heightsM;
    mips_.push_back(std::move(base));
    while (mips_.back().nx >= 4 && mips_.back().ny >= 4) {
        mips_.push_back(Downsample(mips_.back()));
    }
    for (MipLevel& mip : mips_) {
        mip.postsPerMX = 1.0 / mip.spacingXM;
        mip.postsPerMY = 1.0 / mip.spacingYM;
        ShadePosts(mip, lighting);
    }
    widthM_ = terrain.WidthM();
    depthM_ = terrain.DepthM();
    common::HeightRange range = common::ComputeHeightRange(terrain);
    minHeightM_ = range.minM;
    maxHeightM_ = range.maxM;
}

double TerrainPyramid::HeightAt(double xM, double yM, int m) const {
    const MipLevel& mip = mips_[std::clamp(m, 0, MipCount() - 1)];
    return common::BilinearPosts(mip.heightsM.data(), mip.nx, mip.ny, mip.spacingXM,
                                 mip.spacingYM, xM, yM);
}

}  // namespace bfv::raytracer
