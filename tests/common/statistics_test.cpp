#include "common/statistics.h"

#include <gtest/gtest.h>

#include <vector>

namespace bfv::common {
namespace {

TEST(Statistics, MeanOfNothingIsZero) {
    EXPECT_EQ(Mean({}), 0.0);
    std::vector<double> v{1.0, 2.0, 6.0};
    EXPECT_DOUBLE_EQ(Mean(v), 3.0);
}

TEST(Statistics, PercentileInterpolatesBetweenSortedSamples) {
    std::vector<double> sorted{10.0, 20.0, 30.0, 40.0, 50.0};
    EXPECT_DOUBLE_EQ(Percentile(sorted, 0.0), 10.0);
    EXPECT_DOUBLE_EQ(Percentile(sorted, 1.0), 50.0);
    EXPECT_DOUBLE_EQ(Percentile(sorted, 0.5), 30.0);
    EXPECT_DOUBLE_EQ(Percentile(sorted, 0.05), 12.0);  // a fifth of the way from 10 to 20
}

TEST(Statistics, ImbalanceIsTheSlowestOverTheMean) {
    EXPECT_DOUBLE_EQ(Imbalance(std::vector<double>{1.0, 1.0, 1.0}), 1.0);
    EXPECT_DOUBLE_EQ(Imbalance(std::vector<double>{3.0, 1.0, 2.0}), 1.5);
    EXPECT_DOUBLE_EQ(Imbalance(std::vector<double>{}), 1.0);
    EXPECT_DOUBLE_EQ(Imbalance(std::vector<double>{0.0, 0.0}), 1.0);
}

TEST(Statistics, MedianSortsAndAveragesTheMiddlePair) {
    EXPECT_DOUBLE_EQ(Median({5.0, 1.0, 3.0}), 3.0);
    EXPECT_DOUBLE_EQ(Median({4.0, 1.0, 3.0, 2.0}), 2.5);
    EXPECT_DOUBLE_EQ(Median({7.0}), 7.0);
}

}  // namespace
}  // namespace bfv::common
