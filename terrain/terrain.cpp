#include "terrain/terrain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace bfv::terrain {

Expected<void> CheckPostHeights(std::span<const float> heightsM, int columns, NanHeights nan) {
    std::size_t bad = 0, first = 0;
    for (std::size_t k = 0; k < heightsM.size(); ++k) {
        bool nodata = nan == NanHeights::Nodata && std::isnan(heightsM[k]);
        if (nodata || kPostHeightRangeM.Contains(heightsM[k])) continue;
        if (bad++ == 0) first = k;
    }
    if (bad == 0) return {};
    return Error{fmt::format(
        "{} {} not {} heights {}; the first is {} at row {}, column {}", bad,
        bad == 1 ? "post is" : "posts are", nan == NanHeights::Nodata ? "nodata or" : "finite",
        kPostHeightRangeM.Describe(), heightsM[first], first / columns, first % columns)};
}

HeightRange ComputeHeightRange(const Terrain& terrain) {
    BFV_CHECK(!terrain.heightsM.empty());
    auto [lo, hi] = std::minmax_element(terrain.heightsM.begin(), terrain.heightsM.end());
    return {*lo, *hi};
}

double BilinearPosts(const float* values, int nx, int ny, double spacingXM, double spacingYM,
                     double xM, double yM) {
    BFV_CHECK(nx >= 2 && ny >= 2);
    double gx = std::clamp(xM / spacingXM - 0.5, 0.0, nx - 1.0);
    double gy = std::clamp(yM / spacingYM - 0.5, 0.0, ny - 1.0);
    int i = std::min(static_cast<int>(gx), nx - 2);
    int j = std::min(static_cast<int>(gy), ny - 2);
    double fx = gx - i, fy = gy - j;
    const float* p = values + static_cast<std::size_t>(j) * nx + i;
    double south = p[0] + (p[1] - p[0]) * fx;
    double north = p[nx] + (p[nx + 1] - p[nx]) * fx;
    return south + (north - south) * fy;
}

double BilinearHeightM(const Terrain& terrain, double xM, double yM) {
    return BilinearPosts(terrain.heightsM.data(), terrain.nx, terrain.ny, terrain.spacingXM,
                         terrain.spacingYM, xM, yM);
}

double SmoothedHeightM(const Terrain& terrain, double xM, double yM, double radiusM) {
    double sum = 0.0;
    for (int dj = -1; dj <= 1; ++dj) {
        for (int di = -1; di <= 1; ++di) {
            sum += BilinearHeightM(terrain, xM + di * radiusM, yM + dj * radiusM);
        }
    }
    return sum / 9.0;
}

}  // namespace bfv::terrain
