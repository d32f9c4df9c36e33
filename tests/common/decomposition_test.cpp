#include "common/decomposition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace bfv::common {
namespace {

TEST(Decomposition, EveryColumnBelongsToExactlyOneTracer) {
    for (Decomposition d : {Decomposition::Contiguous, Decomposition::Interleaved}) {
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
}

}  // namespace
}  // namespace bfv::common
