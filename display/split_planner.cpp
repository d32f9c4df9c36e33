#include "display/split_planner.h"

#include "common/check.h"

namespace bfv::display {

SplitPlanner::SplitPlanner(common::Decomposition decomposition, int nTracers, int widthPx)
    : decomposition_(decomposition), nTracers_(nTracers), widthPx_(widthPx) {
    BFV_CHECK(nTracers >= 1 && nTracers <= widthPx);
    BFV_CHECK(decomposition != common::Decomposition::Dynamic ||
              nTracers <= common::kMaxDynamicTracers);
}

void SplitPlanner::Plan(std::uint32_t frame) {
    if (decomposition_ != common::Decomposition::Dynamic) return;
    std::vector<int> next = common::ContiguousBoundaries(nTracers_, widthPx_);
    if (measured_ && frame > 0) {
        std::vector<int> balanced = common::BalancedBoundaries(
            boundariesPx_.at(measuredFrame_), measuredTraceS_, measuredTileReceiveS_);
        next = common::DampedBoundaries(boundariesPx_.at(frame - 1), balanced, kDamping);
    }
    boundariesPx_[frame] = std::move(next);
}

std::vector<int> SplitPlanner::BoundariesPx(std::uint32_t frame) const {
    if (decomposition_ != common::Decomposition::Dynamic) return {};
    return boundariesPx_.at(frame);
}

std::vector<common::ColumnSet> SplitPlanner::Columns(std::uint32_t frame) const {
    std::vector<common::ColumnSet> columns;
    for (int t = 0; t < nTracers_; ++t) {
        columns.push_back(decomposition_ == common::Decomposition::Dynamic
                              ? common::SliceOf(boundariesPx_.at(frame), t)
                              : common::ColumnsOf(decomposition_, t, nTracers_, widthPx_));
    }
    return columns;
}

void SplitPlanner::Measure(std::uint32_t frame, std::span<const double> traceS,
                           std::span<const double> tileReceiveS) {
    BFV_CHECK(static_cast<int>(traceS.size()) == nTracers_ && tileReceiveS.size() == traceS.size());
    measured_ = true;
    measuredFrame_ = frame;
    measuredTraceS_.assign(traceS.begin(), traceS.end());
    measuredTileReceiveS_.assign(tileReceiveS.begin(), tileReceiveS.end());
    boundariesPx_.erase(boundariesPx_.begin(), boundariesPx_.lower_bound(frame));
}

}  // namespace bfv::display
