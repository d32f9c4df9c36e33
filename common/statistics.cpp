#include "common/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/check.h"

namespace bfv::common {

double Mean(std::span<const double> values) {
    return values.empty() ? 0.0
                          : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

double Imbalance(std::span<const double> timesS) {
    double meanS = Mean(timesS);
    if (!(meanS > 0.0)) return 1.0;
    return *std::max_element(timesS.begin(), timesS.end()) / meanS;
}

double Percentile(std::span<const double> sorted, double q) {
    BFV_CHECK(!sorted.empty());
    double at = q * (sorted.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(at));
    size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

double Median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return Percentile(values, 0.5);
}

}  // namespace bfv::common
