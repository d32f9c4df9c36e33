#include "common/decomposition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace bfv::common {
namespace {

TEST(Decomposition, EveryColumnBelongsToExactlyOneTracer) {
    for (Decomposition d :
         {Decomposition::Contiguous, Decomposition::Interleaved, Decomposition::Dynamic}) {
        for (int width : {1, 2, 7, 64, 100, 1279, 1280}) {
            for (int tracers = 1; tracers <= std::min(width, 13); ++tracers) {
                std::vector<int> owners(width, 0);
                int minCount = width, maxCount = 0;
                for (int t = 0; t < tracers; ++t) {
                    ColumnSet set = ColumnsOf(d, t, tracers, width);
                    EXPECT_GE(set.count, 1);
                    minCount = std::min(minCount, set.count);
                    maxCount = std::max(maxCount, set.count);
                    for (int k = 0; k < set.count; ++k) {
                        ASSERT_GE(set.At(k), 0);
                        ASSERT_LT(set.At(k), width);
                        ++owners[set.At(k)];
                    }
                }
                EXPECT_TRUE(std::all_of(owners.begin(), owners.end(), [](int n) { return n == 1; }))
                    << ToString(d) << " W " << width << " T " << tracers;
                EXPECT_LE(maxCount - minCount, 1)
                    << ToString(d) << " W " << width << " T " << tracers;
            }
        }
    }
}

TEST(Decomposition, ContiguousSlicesAreAdjacentInTracerOrder) {
    ColumnSet a = ColumnsOf(Decomposition::Contiguous, 0, 3, 10);
    ColumnSet b = ColumnsOf(Decomposition::Contiguous, 1, 3, 10);
    EXPECT_EQ(a.first, 0);
    EXPECT_EQ(a.stride, 1);
    EXPECT_EQ(b.first, a.first + a.count);
}

TEST(Decomposition, InterleavedTracerStartsAtItsNumber) {
    ColumnSet set = ColumnsOf(Decomposition::Interleaved, 2, 4, 10);
    EXPECT_EQ(set.first, 2);
    EXPECT_EQ(set.stride, 4);
    EXPECT_EQ(set.count, 2);  // columns 2 and 6
}

TEST(Decomposition, MessagesPerFrameRoundsUp) {
    ColumnSet set{0, 1, 100};
    EXPECT_EQ(MessagesPerFrame(set, 1), 100);
    EXPECT_EQ(MessagesPerFrame(set, 16), 7);  // 6 full messages and 4 columns
    EXPECT_EQ(MessagesPerFrame(set, 100), 1);
    EXPECT_EQ(MessagesPerFrame(set, 1000), 1);
    EXPECT_EQ(MessagesPerFrame({0, 1, 1}, 16), 1);
}

TEST(Decomposition, NamesAreTheOptionValues) {
    EXPECT_EQ(ToString(Decomposition::Contiguous), "contiguous");
    EXPECT_EQ(ToString(Decomposition::Interleaved), "interleaved");
    EXPECT_EQ(ToString(Decomposition::Dynamic), "dynamic");
    for (std::string name : {"contiguous", "interleaved", "dynamic"}) {
        auto d = ParseDecomposition(name);
        ASSERT_TRUE(d.ok()) << d.error().message;
        EXPECT_EQ(ToString(*d), name);
    }
    auto bad = ParseDecomposition("balanced");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("'balanced'"), std::string::npos) << bad.error().message;
}

// Slice widths of a split.
std::vector<int> Widths(const std::vector<int>& boundariesPx) {
    std::vector<int> widths;
    for (size_t t = 0; t + 1 < boundariesPx.size(); ++t)
        widths.push_back(boundariesPx[t + 1] - boundariesPx[t]);
    return widths;
}

// Trace times of `boundariesPx` when column x costs costS[x].
std::vector<double> TraceTimes(const std::vector<int>& boundariesPx,
                               const std::vector<double>& costS) {
    std::vector<double> traceS;
    for (size_t t = 0; t + 1 < boundariesPx.size(); ++t) {
        traceS.push_back(std::accumulate(costS.begin() + boundariesPx[t],
                                         costS.begin() + boundariesPx[t + 1], 0.0));
    }
    return traceS;
}

double Imbalance(const std::vector<double>& traceS) {
    double sum = std::accumulate(traceS.begin(), traceS.end(), 0.0);
    return *std::max_element(traceS.begin(), traceS.end()) / (sum / traceS.size());
}

TEST(DynamicSplit, ContiguousBoundariesAreContiguousSlices) {
    for (int width : {1, 7, 100, 1280}) {
        for (int tracers = 1; tracers <= std::min(width, 13); ++tracers) {
            std::vector<int> b = ContiguousBoundaries(tracers, width);
            ASSERT_EQ(b.size(), static_cast<size_t>(tracers + 1));
            for (int t = 0; t < tracers; ++t) {
                ColumnSet slice = SliceOf(b, t),
                          contiguous = ColumnsOf(Decomposition::Contiguous, t, tracers, width);
                EXPECT_EQ(slice.first, contiguous.first);
                EXPECT_EQ(slice.stride, 1);
                EXPECT_EQ(slice.count, contiguous.count);
            }
            EXPECT_TRUE(ValidateBoundaries(b, tracers, width).ok());
        }
    }
}

// Equal cost per column: the balanced split is the contiguous one, and it stays put.
TEST(DynamicSplit, EqualCostsGiveTheContiguousSplit) {
    for (int width : {7, 100, 333, 1280}) {
        for (int tracers = 1; tracers <= std::min(width, 13); ++tracers) {
            std::vector<int> contiguous = ContiguousBoundaries(tracers, width);
            std::vector<double> traceS = TraceTimes(contiguous, std::vector<double>(width, 1e-4));
            EXPECT_EQ(BalancedBoundaries(contiguous, traceS), contiguous)
                << "W " << width << " T " << tracers;
            EXPECT_EQ(DampedBoundaries(contiguous, contiguous, 0.5), contiguous);
        }
    }
    // From any split, equal costs lead back to the contiguous split within a few frames.
    std::vector<int> b{0, 5, 10, 90, 100}, contiguous = ContiguousBoundaries(4, 100);
    std::vector<double> costS(100, 1.0);
    for (int frame = 0; frame < 10; ++frame)
        b = DampedBoundaries(b, BalancedBoundaries(b, TraceTimes(b, costS)), 0.5);
    EXPECT_EQ(b, contiguous);
}

// The right half of the screen costs 3x the left: the balanced split equalises time.
TEST(DynamicSplit, BalancedBoundariesEqualiseTraceTime) {
    std::vector<double> costS(400, 1.0);
    std::fill(costS.begin() + 200, costS.end(), 3.0);  // total 800: 200 per tracer
    std::vector<int> contiguous = ContiguousBoundaries(4, 400);
    std::vector<int> balanced = BalancedBoundaries(contiguous, TraceTimes(contiguous, costS));
    // Each slice's cost is taken as uniform: slice 1 (100..200, cost 100) and slice 2
    // (200..300, cost 300) give the first two boundaries exactly; the third lands in slice 3.
    EXPECT_EQ(balanced, (std::vector<int>{0, 200, 266, 333, 400}));
    EXPECT_LT(Imbalance(TraceTimes(balanced, costS)), 1.01);
    EXPECT_GT(Imbalance(TraceTimes(contiguous, costS)), 1.4);
}

// Water filling, by hand: fixed work 4 and 2 s, weights 1/48 and 1/24 (traces of the whole
// 48 and 24 s): (1 + 4/48 + 2/24) / (1/48 + 1/24) = 18.667 s, shares 0.3056 and 0.6944. With no
// fixed work the level is the total over the weights; a tracer whose fixed work passes the
// level of the others takes none.
TEST(DynamicSplit, WaterLevelSharesTheWorkAboveEachTracersOwn) {
    EXPECT_NEAR(
        WaterLevelS(1.0, std::vector<double>{4.0, 2.0}, std::vector<double>{1.0 / 48, 1.0 / 24}),
        56.0 / 3.0, 1e-9);
    EXPECT_DOUBLE_EQ(WaterLevelS(3.0, std::vector<double>(3, 0.0), std::vector<double>(3, 1.0)),
                     1.0);
    EXPECT_DOUBLE_EQ(WaterLevelS(0.2, std::vector<double>{0.5, 0.0}, std::vector<double>{1, 1}),
                     0.2);
    EXPECT_DOUBLE_EQ(WaterLevelS(0.0, std::vector<double>{0.5, 0.1}, std::vector<double>{1, 1}),
                     0.1);
}

// Equal traces on the halves, tracer 0 with 0.04 s more of fixed work: its share of the 0.2 s
// of trace is 0.08 s (both then work 0.12 s), 40 of the columns. Fixed work that alone passes
// the others' level leaves the tracer its one column.
TEST(DynamicSplit, BalancedBoundariesEqualiseTraceAndFixedWork) {
    std::vector<int> halves{0, 50, 100};
    std::vector<double> traceS{0.1, 0.1};
    EXPECT_EQ(BalancedBoundaries(halves, traceS, std::vector<double>{0.04, 0.0}),
              (std::vector<int>{0, 40, 100}));
    EXPECT_EQ(BalancedBoundaries(halves, traceS, std::vector<double>{0.0, 0.0}), halves);
    EXPECT_EQ(BalancedBoundaries(halves, traceS, std::vector<double>{0.5, 0.0}),
              (std::vector<int>{0, 1, 100}));
    // Over frames, with tracer 1 three times as slow and 2 ms of fixed work against 0.5 ms on
    // tracer 0, damped steps settle where both work the same.
    std::vector<double> costS(100, 1e-4);
    std::vector<int> b{0, 50, 100};
    auto work = [&](const std::vector<int>& split) {
        std::vector<double> trace = TraceTimes(split, costS);
        trace[1] *= 3.0;
        return std::pair{trace, std::vector<double>{0.0005, 0.002}};
    };
    for (int frame = 0; frame < 20; ++frame) {
        auto [trace, fixed] = work(b);
        b = DampedBoundaries(b, BalancedBoundaries(b, trace, fixed), 0.5);
    }
    auto [trace, fixed] = work(b);
    EXPECT_NEAR(trace[0] + fixed[0], trace[1] + fixed[1], 4e-4) << b[1];
    EXPECT_NEAR(b[1], 78.75, 1.0);  // 0.0005 + 1e-4 x = 0.002 + 3e-4 (100 - x)
}

// Damping 0.5 moves each boundary half way, rounding the step up to a whole column.
TEST(DynamicSplit, DampingHalvesTheStep) {
    std::vector<int> current{0, 100, 200, 300, 400}, balanced{0, 200, 266, 299, 400};
    EXPECT_EQ(DampedBoundaries(current, balanced, 0.5), (std::vector<int>{0, 150, 233, 299, 400}));
    EXPECT_EQ(DampedBoundaries(current, balanced, 1.0), balanced);
    EXPECT_EQ(DampedBoundaries(current, balanced, 0.0), current);
}

// On a screen whose cost varies a lot, damped steps converge toward equal time, every slice
// keeps at least one column and every boundary stays on the screen.
TEST(DynamicSplit, ConvergesTowardEqualTimeWithinTheScreen) {
    int width = 640, tracers = 5;
    std::vector<double> costS(width);
    for (int x = 0; x < width; ++x) costS[x] = 1e-5 * (1.0 + 20.0 * (x > 500));
    std::vector<int> b = ContiguousBoundaries(tracers, width);
    double before = Imbalance(TraceTimes(b, costS)), last = before;
    for (int frame = 0; frame < 30; ++frame) {
        b = DampedBoundaries(b, BalancedBoundaries(b, TraceTimes(b, costS)), 0.5);
        ASSERT_TRUE(ValidateBoundaries(b, tracers, width).ok()) << frame;
        last = Imbalance(TraceTimes(b, costS));
    }
    EXPECT_GT(before, 2.0);
    EXPECT_LT(last, 1.05);
}

// A tracer that took all the time, or none at all: every slice keeps one column or more.
TEST(DynamicSplit, EveryTracerKeepsAColumn) {
    std::vector<int> b = ContiguousBoundaries(4, 8);
    std::vector<int> balanced = BalancedBoundaries(b, std::vector<double>{0.0, 0.0, 0.0, 9.0});
    EXPECT_TRUE(ValidateBoundaries(balanced, 4, 8).ok());
    for (int w : Widths(balanced)) EXPECT_GE(w, 1);
    EXPECT_EQ(balanced.back(), 8);
    // Four tracers on four columns: nothing can move.
    std::vector<int> tight = ContiguousBoundaries(4, 4);
    EXPECT_EQ(BalancedBoundaries(tight, std::vector<double>{9.0, 0.1, 0.1, 0.1}), tight);
    EXPECT_EQ(DampedBoundaries(tight, std::vector<int>{0, 0, 0, 0, 4}, 0.5), tight);
    // No time measured: keep the split.
    EXPECT_EQ(BalancedBoundaries(b, std::vector<double>(4, 0.0)), b);
}

TEST(DynamicSplit, ValidateBoundariesNamesWhatIsWrong) {
    auto message = [](std::vector<int> b) {
        auto ok = ValidateBoundaries(b, 3, 30);
        return ok ? std::string() : ok.error().message;
    };
    EXPECT_EQ(message({0, 10, 20, 30}), "");
    EXPECT_NE(message({0, 10, 30}).find("3 boundaries for 3 ray tracers"), std::string::npos);
    EXPECT_NE(message({0, 10, 20, 31}).find("to 31, the screen from 0 to 30"), std::string::npos);
    EXPECT_NE(message({2, 10, 20, 30}).find("from column 2"), std::string::npos);
    EXPECT_NE(message({0, 20, 20, 30}).find("ray tracer 1 gets columns 20..20"), std::string::npos);
    EXPECT_NE(message({0, 25, 20, 30}).find("ray tracer 1"), std::string::npos);
}

// A slice's neighbours are the column either side; an interleaved set's the neighbouring
// tracers' sets whole, the one other set at stride 2.
TEST(Decomposition, NeighbourColumnsAreTheColumnsBesideASet) {
    auto sets = [](const ColumnSet& columns, int widthPx) {
        std::vector<std::tuple<int, int, int>> out;
        for (const ColumnSet& s : NeighbourColumns(columns, widthPx)) {
            out.emplace_back(s.first, s.stride, s.count);
        }
        return out;
    };
    using Sets = std::vector<std::tuple<int, int, int>>;
    EXPECT_EQ(sets({0, 1, 4}, 10), (Sets{{4, 1, 1}}));
    EXPECT_EQ(sets({4, 1, 3}, 10), (Sets{{3, 1, 1}, {7, 1, 1}}));
    EXPECT_EQ(sets({7, 1, 3}, 10), (Sets{{6, 1, 1}}));
    EXPECT_EQ(sets({0, 2, 5}, 10), (Sets{{1, 2, 5}}));
    EXPECT_EQ(sets({1, 2, 5}, 10), (Sets{{0, 2, 5}}));
    EXPECT_EQ(sets({0, 3, 4}, 10), (Sets{{2, 3, 3}, {1, 3, 3}}));
    EXPECT_EQ(sets({2, 3, 3}, 10), (Sets{{1, 3, 3}, {0, 3, 4}}));
    EXPECT_TRUE(sets({0, 1, 10}, 10).empty());
}

}  // namespace
}  // namespace bfv::common
