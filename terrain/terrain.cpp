#include "terrain/terrain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace bfv::terrain {

Expected<void> CheckPostHeights(std::span<const float> heightsM, int columns, NanHeights nan) {
    PostHeightCheck check(columns, nan);
    check.Add(heightsM);
    return check.Result();
}

void PostHeightCheck::Add(std::span<const float> heightsM) {
    for (std::size_t k = 0; k < heightsM.size(); ++k) {
        bool nodata = nan_ == NanHeights::Nodata && std::isnan(heightsM[k]);
        if (nodata || kPostHeightRangeM.Contains(heightsM[k])) continue;
        if (bad_++ == 0) {
            first_ = seen_ + k;
            firstValue_ = heightsM[k];
        }
    }
    seen_ += heightsM.size();
}

Expected<void> PostHeightCheck::Result() const {
    if (bad_ == 0) return {};
    return Error{fmt::format(
        "{} {} not {} heights {}; the first is {} at row {}, column {}", bad_,
        bad_ == 1 ? "post is" : "posts are", nan_ == NanHeights::Nodata ? "nodata or" : "finite",
        kPostHeightRangeM.Describe(), firstValue_, first_ / columns_, first_ % columns_)};
}

HeightRange ComputeHeightRange(const Terrain& terrain) {
    BFV_CHECK(!terrain.heightsM.empty());
    auto [lo, hi] = std::minmax_element(terrain.heightsM.begin(), terrain.heightsM.end());
    return {*lo, *hi};
}

PostSpan PostSpanAt(double m, double spacingM, int n) {
    double g = std::clamp(m / spacingM - 0.5, 0.0, n - 1.0);
    int index = std::min(static_cast<int>(g), n - 2);
    return {index, g - index};
}

double BilinearRows(const float* south, const float* north, PostSpan x, double fy) {
    const float* s = south + x.index;
    const float* n = north + x.index;
    double southM = s[0] + (s[1] - s[0]) * x.fraction;
    double northM = n[0] + (n[1] - n[0]) * x.fraction;
    return southM + (northM - southM) * fy;
}

double BilinearPosts(const float* values, int nx, int ny, double spacingXM, double spacingYM,
                     double xM, double yM) {
    BFV_CHECK(nx >= 2 && ny >= 2);
    PostSpan x = PostSpanAt(xM, spacingXM, nx), y = PostSpanAt(yM, spacingYM, ny);
    const float* south = values + static_cast<std::size_t>(y.index) * nx;
    return BilinearRows(south, south + nx, x, y.fraction);
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
