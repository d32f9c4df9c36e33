#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/expected.h"

namespace bfv::common {

/// How the screen's columns are shared among the ray tracers. Every decomposition gives the
/// same image bit for bit; they differ in load balance and message pattern.
enum class Decomposition {
    Contiguous,   // tracer t gets one slice of about W/T adjacent columns (the source paper's)
    Interleaved,  // tracer t gets columns t, t+T, t+2T, ...: balances uneven terrain
    Dynamic,      // contiguous slices whose boundaries move every frame toward equal trace
                  //  time (DampedBoundaries); the first frame's split is Contiguous's
};

inline constexpr Decomposition kDecompositions[] = {
    Decomposition::Contiguous, Decomposition::Interleaved, Decomposition::Dynamic};

/// The columns one tracer renders: first, first + stride, ..., count of them.
struct ColumnSet {
    int first = 0;
    int stride = 1;
    int count = 0;

    int At(int k) const { return first + k * stride; }
};

/// Columns of tracer `tracer` (0-based) of `nTracers` on a screen `widthPx` wide. Requires
/// widthPx >= nTracers >= 1, so that every tracer gets at least one column. Dynamic gives its
/// first frame's split (Contiguous's); later frames' come from SliceOf.
ColumnSet ColumnsOf(Decomposition decomposition, int tracer, int nTracers, int widthPx);

/// The columns next to `columns` (a slice's, or an interleaved set's: a whole class of columns
/// modulo its stride, as ColumnsOf gives) on a screen `widthPx` wide that are not in
/// it: the neighbours anti-aliasing reads (raytracer::FindEdgePixels), as column sets (a caster
/// casts them too, as the caster that owns them does). A slice's are the column either side; an
/// interleaved set's are the neighbouring classes whole, the one other class at stride 2.
std::vector<ColumnSet> NeighbourColumns(const ColumnSet& columns, int widthPx);

/// Number of messages a tracer with `columns` sends per frame at `columnsPerMessage` (MSGZ
/// in columns): the last message carries the remainder.
int MessagesPerFrame(const ColumnSet& columns, int columnsPerMessage);

/// "contiguous", "interleaved" or "dynamic".
std::string ToString(Decomposition decomposition);

/// The decomposition named `name` (as ToString writes it). Errors name the value.
Expected<Decomposition> ParseDecomposition(const std::string& name);

// Contiguous slices with moving boundaries (--decomposition dynamic). A split of a screen
// widthPx wide among T tracers is T + 1 boundaries in columns: boundariesPx[0] = 0,
// boundariesPx[T] = widthPx, strictly increasing; tracer t renders columns
// [boundariesPx[t], boundariesPx[t + 1]).

/// Most ray tracers --decomposition dynamic serves: its split travels in a fixed array in every
/// FrameCommand (messages.h).
inline constexpr int kMaxDynamicTracers = 256;

/// The Contiguous decomposition's split as boundaries (nTracers + 1 of them). Requires
/// widthPx >= nTracers >= 1.
std::vector<int> ContiguousBoundaries(int nTracers, int widthPx);

/// Checks a split received from another rank: nTracers + 1 boundaries, from 0 to widthPx,
/// every slice at least one column wide. Errors say which boundary is wrong.
Expected<void> ValidateBoundaries(std::span<const int> boundariesPx, int nTracers, int widthPx);

/// Tracer `tracer`'s columns in a valid split.
ColumnSet SliceOf(std::span<const int> boundariesPx, int tracer);

/// The level of water filling: the time `levelS` at which tracers that each have fixedS[t]
/// seconds (>= 0) of work of their own share `total` (>= 0) of further work, tracer t taking
/// weights[t] (> 0) of it per second above its own: sum over t of
/// weights[t] * max(0, levelS - fixedS[t]) = total. A tracer whose own work passes the level
/// takes none. Both spans hold one value per tracer (at least one).
double WaterLevelS(double total, std::span<const double> fixedS, std::span<const double> weights);

/// The split that equalises each tracer's work on a frame, from one frame's measurement:
/// tracer t took traceS[t] seconds (>= 0) to trace the columns `measuredPx` gave it, taken to
/// cost the same each, and fixedS[t] seconds (>= 0; none when empty) of work that does not
/// depend on its columns (taking in the streamed tiles, which a tracer on a slower host or
/// under a tighter CPU quota takes longer over). Tracer t's share of the trace is the level
/// less its fixed work, the level set so that the shares add up to the whole trace (water
/// filling: a tracer whose fixed work alone passes the level gets none, then one column).
/// Boundary t goes where the cumulative cost reaches the shares of the tracers before it,
/// rounded down to a column (so that equal costs give ContiguousBoundaries), then every slice is
/// kept at least one column wide. A frame that measured no trace time gives `measuredPx` back.
std::vector<int> BalancedBoundaries(std::span<const int> measuredPx, std::span<const double> traceS,
                                    std::span<const double> fixedS = {});

/// Moves every boundary of `currentPx` the fraction `damping` (0..1) of the way to
/// `balancedPx`, rounding the step up to whole columns so that a boundary one column off
/// still arrives (Equalizer's load equalizer damps with 0.5). Both splits are of one screen
/// and tracer count; the result keeps every slice at least one column wide.
std::vector<int> DampedBoundaries(std::span<const int> currentPx, std::span<const int> balancedPx,
                                  double damping);

}  // namespace bfv::common
