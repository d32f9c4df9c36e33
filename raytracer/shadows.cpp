#include "raytracer/shadows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/check.h"

namespace bfv::raytracer {

namespace {

constexpr float kNoShadowM = std::numeric_limits<float>::lowest();
constexpr double kEdgeSlack = 1e-9;  // posts // how far rounding may put a step off the grid

// ShadowHeightsM for a sun whose direction is mostly along x (|towardX| >= |towardY|): columns
// go from the sun's side, and a post's step toward the sun is one column over and `rows` rows
// along.
std::vector<float> SweepAlongX(std::span<const float> heightsM, int nx, int ny, double spacingM,
                               const Sun& sun, const std::function<float(int, int)>& seed) {
    int step = sun.towardX >= 0.0 ? 1 : -1;
    double rows = sun.towardY / std::abs(sun.towardX);
    float fallM = static_cast<float>(sun.tanElevation * spacingM * std::sqrt(1.0 + rows * rows));
    std::vector<float> shadowM(heightsM.size(), kNoShadowM);
    // max(height, shadow height) of the column one step toward the sun.
    std::vector<float> upstreamTop(ny);
    int first = step > 0 ? nx - 1 : 0;
    for (int i = first; i >= 0 && i < nx; i -= step) {
        int upstream = i + step;
        bool inside = upstream >= 0 && upstream < nx;
        if (inside) {
            for (int j = 0; j < ny; ++j) {
                std::size_t k = static_cast<std::size_t>(j) * nx + upstream;
                upstreamTop[j] = std::max(heightsM[k], shadowM[k]);
            }
        }
        for (int j = 0; j < ny; ++j) {
            // A sun along an axis has rows within rounding of 0: that is still on the grid.
            double y = j + rows;
            if (y < 0.0 && y > -kEdgeSlack) y = 0.0;
            if (y > ny - 1 && y < ny - 1 + kEdgeSlack) y = ny - 1;
            float s;
            if (inside && y >= 0.0 && y <= ny - 1) {
                int j0 = std::min(static_cast<int>(y), std::max(ny - 2, 0));
                int j1 = std::min(j0 + 1, ny - 1);
                float f = static_cast<float>(y - j0);
                s = upstreamTop[j0] + f * (upstreamTop[j1] - upstreamTop[j0]) - fallM;
            } else {
                s = seed(i, j);
            }
            shadowM[static_cast<std::size_t>(j) * nx + i] = s;
        }
    }
    return shadowM;
}

}  // namespace

Sun SunAt(double azimuthRad, double elevationRad) {
    return {std::sin(azimuthRad), std::cos(azimuthRad), std::tan(elevationRad)};
}

std::vector<float> ShadowHeightsM(std::span<const float> heightsM, int nx, int ny, double spacingM,
                                  const Sun& sun, const std::function<float(int, int)>& seed) {
    BFV_CHECK(nx >= 1 && ny >= 1);
    BFV_CHECK_EQ(heightsM.size(), static_cast<std::size_t>(nx) * ny);
    BFV_CHECK(sun.tanElevation > 0.0);
    if (std::abs(sun.towardX) >= std::abs(sun.towardY)) {
        return SweepAlongX(heightsM, nx, ny, spacingM, sun, seed);
    }
    // Mostly along y: sweep the transposed grid along x.
    std::vector<float> transposed(heightsM.size());
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            transposed[static_cast<std::size_t>(i) * ny + j] =
                heightsM[static_cast<std::size_t>(j) * nx + i];
        }
    }
    Sun swapped{sun.towardY, sun.towardX, sun.tanElevation};
    std::vector<float> shadowT = SweepAlongX(transposed, ny, nx, spacingM, swapped,
                                             [&](int i, int j) { return seed(j, i); });
    std::vector<float> shadowM(heightsM.size());
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            shadowM[static_cast<std::size_t>(j) * nx + i] =
                shadowT[static_cast<std::size_t>(i) * ny + j];
        }
    }
    return shadowM;
}

ShadowField::ShadowField(double widthM, double depthM, double spacingM, const Sun& sun,
                         const std::function<double(double xM, double yM)>& heightAtM) {
    auto heights = SampleHeightsM("shadows", widthM, depthM, spacingM, heightAtM);
    BFV_CHECK(heights.ok());  // the tile cache's extent and heights
    shadowM_ = {heights->nx, heights->ny, spacingM,
                ShadowHeightsM(heights->values, heights->nx, heights->ny, spacingM, sun,
                               [](int, int) { return kNoShadowM; })};
    // A post with nothing toward the sun keeps a finite value, so that interpolation between
    // it and a shadowed post stays finite: far below any terrain.
    float floorM = *std::min_element(heights->values.begin(), heights->values.end()) - 1.0e4f;
    for (float& s : shadowM_.values) s = std::max(s, floorM);
}

float ShadowField::AtM(double xM, double yM) const { return shadowM_.AtM(xM, yM); }

float LitShare(float heightM, float shadowM, float softM) {
    return std::clamp((heightM - shadowM) / softM + 1.0f, 0.0f, 1.0f);
}

}  // namespace bfv::raytracer
