#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/decomposition.h"

namespace bfv::display {

/// The display's choice of every frame's split of the screen columns among the ray tracers,
/// which the frame command carries to them (messages.h) and the receive threads expect the
/// columns by. Contiguous and interleaved give the same split every frame. Dynamic starts from
/// the contiguous split; each later frame's boundaries move kDamping of the way from the
/// previous frame's toward the split that would have equalised the tracers' work on the last
/// frame measured, their trace and their tiles' (common::BalancedBoundaries, DampedBoundaries).
///
/// The display plans frame f+1 before it has received frame f (the pipeline), so the last
/// frame measured is f-1: Plan(f + 1) follows Measure(f - 1).
class SplitPlanner {
  public:
    /// Equalizer's load equalizer's damping: move half way to the balanced split each frame.
    static constexpr double kDamping = 0.5;

    /// Splits of a screen `widthPx` wide among `nTracers` (1..kMaxDynamicTracers for dynamic,
    /// at most widthPx).
    SplitPlanner(common::Decomposition decomposition, int nTracers, int widthPx);

    /// Chooses frame `frame`'s split. Frames are planned in order from 0.
    void Plan(std::uint32_t frame);

    /// A planned frame's split as boundaries (decomposition.h), for its frame command; empty
    /// unless the decomposition is dynamic.
    std::vector<int> BoundariesPx(std::uint32_t frame) const;

    /// Every tracer's columns in a planned frame, in tracer order.
    std::vector<common::ColumnSet> Columns(std::uint32_t frame) const;

    /// Frame `frame` (planned, received whole) took traceS[t] seconds of trace and
    /// tileReceiveS[t] of taking in tiles on tracer t: the work the next Plan balances.
    /// Forgets the splits of earlier frames.
    void Measure(std::uint32_t frame, std::span<const double> traceS,
                 std::span<const double> tileReceiveS);

  private:
    common::Decomposition decomposition_;
    int nTracers_;
    int widthPx_;
    std::map<std::uint32_t, std::vector<int>> boundariesPx_;  // dynamic: of frames in flight
    bool measured_ = false;
    std::uint32_t measuredFrame_ = 0;
    std::vector<double> measuredTraceS_;
    std::vector<double> measuredTileReceiveS_;
};

}  // namespace bfv::display
