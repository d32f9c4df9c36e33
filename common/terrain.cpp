#include "common/terrain.h"

#include <algorithm>

#include "common/check.h"

namespace bfv::common {

HeightRange ComputeHeightRange(const Terrain& terrain) {
    BFV_CHECK(!terrain.heightsM.empty());
    auto [lo, hi] = std::minmax_element(terrain.heightsM.begin(), terrain.heightsM.end());
    return {*lo, *hi};
}

double BilinearHeightM(const Terrain& terrain, double xM, double yM) {
    BFV_CHECK(terrain.nx >= 2 && terrain.ny >= 2);
    double gx = std::clamp(xM / terrain.spacingXM - 0.5, 0.0, terrain.nx - 1.0);
    double gy = std::clamp(yM / terrain.spacingYM - 0.5, 0.0, terrain.ny - 1.0);
    int i = std::min(static_cast<int>(gx), terrain.nx - 2);
    int j = std::min(static_cast<int>(gy), terrain.ny - 2);
    double fx = gx - i, fy = gy - j;
    double south = terrain.HeightAt(i, j) + (terrain.HeightAt(i + 1, j) - terrain.HeightAt(i, j)) * fx;
    double north = terrain.HeightAt(i, j + 1) +
                   (terrain.HeightAt(i + 1, j + 1) - terrain.HeightAt(i, j + 1)) * fx;
    return south + (north - south) * fy;
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

}  // namespace bfv::common
