#pragma once

#include <span>
#include <vector>

namespace bfv::common {

// Summary statistics of samples, shared by the run report (FPS) and the comm benchmark
// (message times).

/// Mean of `values`; 0 when empty.
double Mean(std::span<const double> values);

/// Linear-interpolated percentile of `sorted` (ascending, non-empty) at q in [0, 1]: q = 0.5
/// of an even count is the mean of the two middle values.
double Percentile(std::span<const double> sorted, double q);

/// Median of `values` (any order, non-empty): Percentile(sorted values, 0.5).
double Median(std::vector<double> values);

/// Load imbalance of per-worker times (>= 0): the slowest over the mean, 1 for a perfect
/// balance; 1 when empty or when no worker took any time.
double Imbalance(std::span<const double> timesS);

}  // namespace bfv::common
