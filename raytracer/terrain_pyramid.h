#pragma once

#include <vector>

#include "common/terrain.h"

namespace bfv::raytracer {

/// One level of detail of the terrain. Mip 0 holds the source posts; mip m+1 averages 2x2
/// posts of mip m, so its post spacing doubles. Posts stand at ((i + 0.5) * spacingXM,
/// (j + 0.5) * spacingYM) like common::Terrain's. Shade and slope are per post, for shading.
struct MipLevel {
    int nx = 0;
    int ny = 0;
    double spacingXM = 0.0;
    double spacingYM = 0.0;
    double postsPerMX = 0.0;      // 1 / spacingXM
    double postsPerMY = 0.0;      // 1 / spacingYM
    std::vector<float> heightsM;  // nx*ny, index j*nx + i
    std::vector<float> shade;     // nx*ny Lambert intensity 0..1 from the post normal
    std::vector<float> slope;     // nx*ny gradient magnitude (rise over run)

    float Height(int i, int j) const { return heightsM[j * nx + i]; }
};

/// Sun and ambient light for the per-post Lambert shade.
struct Lighting {
    double sunAzimuthRad = 5.4978;   // = 315 deg // from north, clockwise (north-west sun)
    double sunElevationRad = 0.7854;  // = 45 deg
    double ambient = 0.28;            // share of light that is not from the sun
};

/// The mip pyramid a ray tracer renders from: the terrain at every level of detail down to a
/// few posts, with shade and slope per post. Built once from a decoded terrain; immutable
/// afterwards, so any number of threads may read it.
class TerrainPyramid {
public:
    /// Builds every mip level from `terrain` (at least 2x2 posts). Cost: O(posts).
    explicit TerrainPyramid(const common::Terrain& terrain, const Lighting& lighting = {});

    int MipCount() const { return static_cast<int>(mips_.size()); }
    const MipLevel& Mip(int m) const { return mips_[m]; }
    double WidthM() const { return widthM_; }   // dataset extent east-west, metres
    double DepthM() const { return depthM_; }   // dataset extent south-north, metres
    float MinHeightM() const { return minHeightM_; }
    float MaxHeightM() const { return maxHeightM_; }

    /// Bilinear height at world position (xM, yM) on mip `m`; positions outside the posts
    /// take the nearest edge post's value.
    double HeightAt(double xM, double yM, int m) const;

private:
    std::vector<MipLevel> mips_;
    double widthM_ = 0.0;
    double depthM_ = 0.0;
    float minHeightM_ = 0.0f;
    float maxHeightM_ = 0.0f;
};

}  // namespace bfv::raytracer
