#include "display/split_planner.h"

#include <gtest/gtest.h>

#include <vector>

namespace bfv::display {
namespace {

using common::Decomposition;

TEST(SplitPlanner, StaticDecompositionsKeepTheirSplit) {
    for (Decomposition d : {Decomposition::Contiguous, Decomposition::Interleaved}) {
        SplitPlanner splits(d, 3, 100);
        for (std::uint32_t f = 0; f < 3; ++f) {
            splits.Plan(f);
            EXPECT_TRUE(splits.BoundariesPx(f).empty()) << "no split travels";
            std::vector<common::ColumnSet> columns = splits.Columns(f);
            ASSERT_EQ(columns.size(), 3u);
            for (int t = 0; t < 3; ++t) {
                common::ColumnSet expected = common::ColumnsOf(d, t, 3, 100);
                EXPECT_EQ(columns[t].first, expected.first);
                EXPECT_EQ(columns[t].stride, expected.stride);
                EXPECT_EQ(columns[t].count, expected.count);
            }
            splits.Measure(f, std::vector<double>{0.3, 0.1, 0.1}, std::vector<double>(3, 0.0));
        }
    }
}

// The pipeline: frames 0 and 1 are planned before anything is measured (contiguous); frame 2
// moves half way from frame 1's split toward the balance of frame 0's measurement.
TEST(SplitPlanner, DynamicMovesHalfWayFromTheLastMeasuredFrame) {
    SplitPlanner splits(Decomposition::Dynamic, 2, 100);
    splits.Plan(0);
    splits.Plan(1);
    std::vector<int> contiguous{0, 50, 100};
    EXPECT_EQ(splits.BoundariesPx(0), contiguous);
    EXPECT_EQ(splits.BoundariesPx(1), contiguous);
    // Tracer 0 took 3x as long: balanced, its slice is 2/3 as wide (0..33).
    splits.Measure(0, std::vector<double>{0.3, 0.1}, std::vector<double>{0.0, 0.0});
    splits.Plan(2);
    EXPECT_EQ(splits.BoundariesPx(2), (std::vector<int>{0, 41, 100}));
    std::vector<common::ColumnSet> columns = splits.Columns(2);
    EXPECT_EQ(columns[0].first, 0);
    EXPECT_EQ(columns[0].count, 41);
    EXPECT_EQ(columns[1].first, 41);
    EXPECT_EQ(columns[1].count, 59);
    // Frame 1 (contiguous) measured equal times: frame 3 moves back half way toward 50.
    splits.Measure(1, std::vector<double>{0.2, 0.2}, std::vector<double>{0.0, 0.0});
    splits.Plan(3);
    EXPECT_EQ(splits.BoundariesPx(3), (std::vector<int>{0, 46, 100}));
}

// Equal traces on the halves, but tracer 0 took 0.04 s more over its tiles (a tighter quota):
// the balance gives it 0.08 s of the 0.2 s of trace and tracer 1 0.12 s, both 0.12 s of work,
// so its slice is 40 columns; frame 2 moves half way there, to 45.
TEST(SplitPlanner, DynamicBalancesTheTilesTimeAsWellAsTheTrace) {
    SplitPlanner splits(Decomposition::Dynamic, 2, 100);
    splits.Plan(0);
    splits.Plan(1);
    splits.Measure(0, std::vector<double>{0.1, 0.1}, std::vector<double>{0.04, 0.0});
    splits.Plan(2);
    EXPECT_EQ(splits.BoundariesPx(2), (std::vector<int>{0, 45, 100}));
}

}  // namespace
}  // namespace bfv::display
