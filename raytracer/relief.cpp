#include "raytracer/relief.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace bfv::raytracer {

namespace {

// How many steps go one post spacing apart before they lengthen with the distance.
constexpr double kUniformSteps = 8.0;

// One step out along an azimuth, the same for every post: the south-west post of the cell it
// lands in (di, dj posts from the post), the bilinear weights there, and 1 / distance.
struct HorizonStep {
    int di = 0, dj = 0;
    float w00 = 0, w10 = 0, w01 = 0, w11 = 0;
    float perDistanceM = 0;
};

// The steps out to `radiusM` along an azimuth: one post spacing apart for the first
// kUniformSteps, then 1/kUniformSteps of the distance apart, so that the steps subtend about
// the same angle seen from the post and a long radius costs O(log(radius / spacing)) of them.
std::vector<HorizonStep> StepsAlong(double azimuthRad, double radiusM, double spacingM) {
    std::vector<HorizonStep> out;
    for (double n = 1.0; n * spacingM <= radiusM; n += std::max(1.0, n / kUniformSteps)) {
        double x = n * std::sin(azimuthRad), y = n * std::cos(azimuthRad);
        HorizonStep& s = out.emplace_back();
        s.di = static_cast<int>(std::floor(x));
        s.dj = static_cast<int>(std::floor(y));
        auto fx = static_cast<float>(x - s.di), fy = static_cast<float>(y - s.dj);
        s.w00 = (1 - fx) * (1 - fy);
        s.w10 = fx * (1 - fy);
        s.w01 = (1 - fx) * fy;
        s.w11 = fx * fy;
        s.perDistanceM = static_cast<float>(1.0 / (n * spacingM));
    }
    return out;
}

// Raises maxTan[i] to the tangent of the terrain's elevation seen from each post i of row j at
// `step` (the posts whose step lands inside the grid: the steps go outward, so a post whose
// step has left the grid has no horizon beyond it). A plain loop over the row, which the
// compiler vectorises.
void RaiseHorizonRow(std::span<const float> h, int nx, int ny, int j, const HorizonStep& step,
                     std::vector<float>& maxTan) {
    int b = j + step.dj;
    if (b < 0 || b + 1 >= ny) return;
    int iBegin = std::max(0, -step.di), iEnd = std::min(nx, nx - 1 - step.di);
    const float* row = h.data() + static_cast<std::size_t>(j) * nx;
    // Row b's start: post i's step lands at column i + step.di >= 0 of it (iBegin), so every
    // index below stays inside the grid.
    const float* rowB = h.data() + static_cast<std::size_t>(b) * nx;
    for (int i = iBegin; i < iEnd; ++i) {
        // Differences from the post's own height: exactly 0 over flat ground, whatever the
        // rounding of the weights.
        const float* at = rowB + (i + step.di);
        float h0 = row[i];
        float rise = step.w00 * (at[0] - h0) + step.w10 * (at[1] - h0) + step.w01 * (at[nx] - h0) +
                     step.w11 * (at[nx + 1] - h0);
        maxTan[i] = std::max(maxTan[i], rise * step.perDistanceM);
    }
}

}  // namespace

Expected<std::vector<float>> SkyViewFactors(std::span<const float> heightsM, int nx, int ny,
                                            double spacingM, const SkyViewOptions& options) {
    if (auto ok = CheckHeightGrid("sky-view factor", heightsM, nx, ny, spacingM); !ok) {
        return ok.error();
    }
    if (options.azimuths < 1 || !(options.radiusM > 0.0)) {
        return Error{
            fmt::format("sky-view factor: {} azimuths out to {:g} m; both must be positive",
                        options.azimuths, options.radiusM)};
    }
    std::vector<float> svf(heightsM.size(), 0.0f);
    std::vector<float> maxTan(nx);
    for (int a = 0; a < options.azimuths; ++a) {
        auto steps =
            StepsAlong(2.0 * std::numbers::pi * a / options.azimuths, options.radiusM, spacingM);
        for (int j = 0; j < ny; ++j) {
            std::fill(maxTan.begin(), maxTan.end(), 0.0f);
            for (const HorizonStep& step : steps)
                RaiseHorizonRow(heightsM, nx, ny, j, step, maxTan);
            float* out = &svf[static_cast<std::size_t>(j) * nx];
            for (int i = 0; i < nx; ++i)
                out[i] += maxTan[i] / std::sqrt(1.0f + maxTan[i] * maxTan[i]);
        }
    }
    const float perAzimuth = 1.0f / static_cast<float>(options.azimuths);
    for (float& s : svf) s = 1.0f - s * perAzimuth;
    return svf;
}

Expected<SkyViewField> SkyViewField::Build(
    double widthM, double depthM, double spacingM,
    const std::function<double(double xM, double yM)>& heightAtM, const SkyViewOptions& options) {
    auto heights = SampleHeightsM("sky-view factor", widthM, depthM, spacingM, heightAtM);
    if (!heights) return heights.error();
    auto svf = SkyViewFactors(heights->values, heights->nx, heights->ny, spacingM, options);
    if (!svf) return svf.error();
    return SkyViewField({heights->nx, heights->ny, spacingM, std::move(*svf)});
}

}  // namespace bfv::raytracer
