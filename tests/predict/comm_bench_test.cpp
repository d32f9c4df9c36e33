// The comm benchmark's pure parts against hand-computed answers: its statistics, the summary of
// one size's round trips, the conversion into the fit's input, and sweep.csv.

#include "predict/comm_bench.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "tests/lines.h"

namespace bfv::predict {
namespace {

using test_support::Lines;

TEST(CommBench, RelativeStandardErrorIsSdOverMeanRootN) {
    const std::vector<double> samples{1, 2, 3, 4, 5};  // mean 3, sd sqrt(10 / 4)
    EXPECT_NEAR(RelativeStandardError(samples), std::sqrt(2.5) / (3 * std::sqrt(5.0)), 1e-15);
    EXPECT_EQ(RelativeStandardError(std::vector<double>{4, 4, 4}), 0.0);
}

TEST(CommBench, RelativeStandardErrorOfFewerThanTwoSamplesIsOne) {
    EXPECT_EQ(RelativeStandardError({}), 1.0);
    EXPECT_EQ(RelativeStandardError(std::vector<double>{3e-6}), 1.0);
}

TEST(CommBench, OutliersLieMoreThanFiveMadsAboveTheMedian) {
    // Deviations from 10: 0 0 1 1 0 90, median 0.5: the threshold is 10 + 5 * 0.5 = 12.5.
    EXPECT_EQ(CountOutliers(std::vector<double>{10, 10, 11, 9, 10, 100}, 10), 1);
    EXPECT_EQ(CountOutliers(std::vector<double>{10, 10, 11, 9, 10, 12.4}, 10), 0);
    EXPECT_EQ(CountOutliers(std::vector<double>{10, 10, 11, 9, 10, 12.6}, 10), 1);
}

TEST(CommBench, OutlierMadIsFlooredAtOnePercentOfTheMedian) {
    // A timer that repeats one value: the MAD is 0, floored at 0.1, so the threshold is 10.5.
    EXPECT_EQ(CountOutliers(std::vector<double>{10, 10, 10, 10.4, 10.6}, 10), 1);
}

TEST(CommBench, SummaryHalvesRoundTripsIntoOneWayTimes) {
    const std::vector<double> roundTripsS{4e-6, 2e-6, 8e-6, 6e-6, 100e-6};
    const CommBenchSize r = SummarizeRoundTrips(1000, roundTripsS);
    EXPECT_EQ(r.bytes, 1000);
    EXPECT_EQ(r.reps, 5);
    EXPECT_DOUBLE_EQ(r.medianS, 3e-6);
    EXPECT_DOUBLE_EQ(r.minS, 1e-6);
    EXPECT_DOUBLE_EQ(r.meanS, 12e-6);
    // Deviations from the mean 24 us: -20 -22 -16 -18 76, squares summing to 7240.
    EXPECT_NEAR(r.rse, std::sqrt(7240.0 / 4) / (24 * std::sqrt(5.0)), 1e-12);
    EXPECT_EQ(r.outliers, 1) << "100 us is past 6 + 5 * 2 us";
    EXPECT_EQ(r.streamS, 0.0);
    EXPECT_EQ(r.senderCpuS, 0.0);
    EXPECT_EQ(r.receiverCpuS, 0.0);
}

TEST(CommBench, SummaryMedianOfAnEvenCountAveragesTheMiddlePair) {
    EXPECT_DOUBLE_EQ(SummarizeRoundTrips(200, std::vector<double>{8, 2, 6, 4}).medianS, 2.5);
}

TEST(CommBench, SizeDerivesBandwidthAndCpuPercent) {
    CommBenchSize r;
    r.bytes = 2000;
    r.medianS = 1e-6;
    r.streamS = 4e-6;
    r.senderCpuS = 1e-6;
    r.receiverCpuS = 2e-6;
    EXPECT_DOUBLE_EQ(r.A2abwBytesPerS(), 2e9);
    EXPECT_DOUBLE_EQ(r.SenderCpuPercent(), 25.0);
    EXPECT_DOUBLE_EQ(r.ReceiverCpuPercent(), 50.0);
}

TEST(CommBench, ManyToOneTrialGivesAggregateBandwidthAndReceiverCpuFraction) {
    // 2 senders * 50 messages * 1000 B in 10 ms; the receiver busy for 5 ms of them.
    const ManyToOnePoint m = ManyToOneFromTrial(2, 1000, 50, 0.01, 0.005);
    EXPECT_EQ(m.senders, 2);
    EXPECT_EQ(m.msgBytes, 1000.0);
    EXPECT_DOUBLE_EQ(m.aggregateBytesPerS, 1e7);
    EXPECT_DOUBLE_EQ(m.receiverCpuFraction, 0.5);
}

// A sweep measured on an ideal link: one-way = 2 us + bytes / 1 GB/s, and CPU per message
// 1 us + bytes / 4 GB/s (sender) and bytes / 2 GB/s (receiver) over a stream twice as slow.
std::vector<CommBenchSize> IdealSweep() {
    std::vector<CommBenchSize> sweep;
    for (int bytes : {1000, 10000, 100000, 1000000}) {
        CommBenchSize r;
        r.bytes = bytes;
        r.medianS = 2e-6 + bytes / 1e9;
        r.streamS = 2 * r.medianS;
        r.senderCpuS = 1e-6 + bytes / 4e9;
        r.receiverCpuS = bytes / 2e9;
        sweep.push_back(r);
    }
    return sweep;
}

TEST(CommBench, SweepPointsCarryMedianOneWayTimeAndCpuPerSide) {
    const std::vector<CommBenchSize> sweep = IdealSweep();
    const std::vector<SweepPoint> points = SweepPoints(sweep);
    ASSERT_EQ(points.size(), sweep.size());
    for (size_t i = 0; i < points.size(); ++i) {
        EXPECT_EQ(points[i].msgBytes, sweep[i].bytes);
        EXPECT_EQ(points[i].oneWayS, sweep[i].medianS);
        EXPECT_EQ(points[i].senderCpuS, sweep[i].senderCpuS);
        EXPECT_EQ(points[i].receiverCpuS, sweep[i].receiverCpuS);
    }
}

TEST(CommBench, SweepPointsFitBackToTheLinkThatMadeThem) {
    auto profile = FitLinkProfile(SweepPoints(IdealSweep()), "ideal");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_NEAR(profile->overall.msgSetupS, 2e-6, 1e-12);
    EXPECT_NEAR(profile->overall.alcbwBytesPerS, 1e9, 1e3);
}

TEST(CommBench, SweepCsvHasAHeaderAndOneRowPerSize) {
    CommBenchSize r;
    r.bytes = 2000;
    r.reps = 40;
    r.medianS = 2e-6;
    r.minS = 1.5e-6;
    r.meanS = 2.5e-6;
    r.rse = 0.0123456;
    r.outliers = 3;
    r.streamS = 4e-6;
    r.senderCpuS = 1e-6;
    r.receiverCpuS = 3e-6;
    const std::vector<std::string> lines = Lines(SweepCsv(std::vector<CommBenchSize>{r, r}));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0],
              "msgBytes,reps,oneWayMedianUs,oneWayMinUs,oneWayMeanUs,rse,outliers,a2abwMBPerS,"
              "streamUsPerMessage,senderCpuUs,receiverCpuUs,senderCpuPercent,receiverCpuPercent");
    EXPECT_EQ(lines[1],
              "2000,40,2.0000,1.5000,2.5000,0.01235,3,1000.000,4.0000,1.0000,3.0000,"
              "25.00,75.00");
    EXPECT_EQ(lines[2], lines[1]);
    EXPECT_EQ(Lines(SweepCsv({})).size(), 1u) << "an empty sweep is the header alone";
}

}  // namespace
}  // namespace bfv::predict
