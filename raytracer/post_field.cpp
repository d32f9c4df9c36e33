#include "raytracer/post_field.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "terrain/tile_pyramid.h"

namespace bfv::raytracer {

float PostField::AtM(double xM, double yM) const {
    double x = std::clamp(xM / spacingM, 0.0, nx - 1.0);
    double y = std::clamp(yM / spacingM, 0.0, ny - 1.0);
    int i = std::min(static_cast<int>(x), nx - 2), j = std::min(static_cast<int>(y), ny - 2);
    return terrain::BilinearInCell(&values[static_cast<std::size_t>(j) * nx + i],
                                   static_cast<float>(x - i), static_cast<float>(y - j), nx);
}

Expected<PostField> SampleHeightsM(const char* what, double widthM, double depthM, double spacingM,
                                   const std::function<double(double xM, double yM)>& heightAtM) {
    for (double v : {widthM, depthM, spacingM}) {
        if (!(v > 0.0) || !std::isfinite(v)) {
            return Error{
                fmt::format("{}: extent {:g} x {:g} m at posts {:g} m apart is not positive", what,
                            widthM, depthM, spacingM)};
        }
    }
    PostField field;
    field.spacingM = spacingM;
    field.nx = std::max(static_cast<int>(std::ceil(widthM / spacingM)) + 1, 2);
    field.ny = std::max(static_cast<int>(std::ceil(depthM / spacingM)) + 1, 2);
    field.values.resize(static_cast<std::size_t>(field.nx) * field.ny);
    for (int j = 0; j < field.ny; ++j) {
        for (int i = 0; i < field.nx; ++i) {
            field.values[static_cast<std::size_t>(j) * field.nx + i] = static_cast<float>(
                heightAtM(std::min(i * spacingM, widthM), std::min(j * spacingM, depthM)));
        }
    }
    if (auto ok = CheckHeightGrid(what, field.values, field.nx, field.ny, spacingM); !ok) {
        return ok.error();
    }
    return field;
}

Expected<void> CheckHeightGrid(const char* what, std::span<const float> heightsM, int nx, int ny,
                               double spacingM) {
    if (!(spacingM > 0.0) || !std::isfinite(spacingM)) {
        return Error{fmt::format("{}: post spacing {:g} m is not positive", what, spacingM)};
    }
    if (nx < 1 || ny < 1) return Error{fmt::format("{}: the grid of posts is empty", what)};
    if (heightsM.size() != static_cast<std::size_t>(nx) * ny) {
        return Error{
            fmt::format("{}: {} heights for {} x {} posts", what, heightsM.size(), nx, ny)};
    }
    auto bad =
        std::find_if(heightsM.begin(), heightsM.end(), [](float h) { return !std::isfinite(h); });
    if (bad != heightsM.end()) {
        auto k = bad - heightsM.begin();
        return Error{
            fmt::format("{}: post ({}, {}) has a height that is not finite", what, k % nx, k / nx)};
    }
    return {};
}

}  // namespace bfv::raytracer
