#include "predict/model_scaling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace bfv::predict {
namespace {

// Run times of a program with serial fraction f under Amdahl's law, T(1) = 100 s.
std::vector<ScalingPoint> AmdahlRuns(double serialFraction, double noise = 0.0) {
    std::vector<ScalingPoint> points;
    int sign = 1;
    for (int p = 1; p <= 64; p *= 2) {
        const double timeS = 100.0 * (serialFraction + (1.0 - serialFraction) / p);
        points.push_back({p, timeS * (p == 1 ? 1.0 : 1.0 + sign * noise)});
        sign = -sign;
    }
    return points;
}

// Seed 001 section 2.1: f = 0.01 gives 13.913 on 16 processors and 83.797 on 512.
TEST(ModelScaling, AmdahlMatchesSeed001Examples) {
    EXPECT_NEAR(AmdahlSpeedup(0.01, 16), 13.913, 5e-4);
    EXPECT_NEAR(AmdahlSpeedup(0.01, 512), 83.797, 5e-4);
    EXPECT_NEAR(Efficiency(13.913, 16), 0.869565, 1e-4);
    EXPECT_NEAR(Efficiency(83.797, 512), 0.163666, 1e-5);
}

// Seed 001 section 2.1: "sk = 0.01 + 0.99 * 512 = 506.89".
TEST(ModelScaling, GustafsonMatchesSeed001Example) {
    EXPECT_NEAR(GustafsonSpeedup(0.01, 512), 506.89, 1e-9);
}

TEST(ModelScaling, KarpFlattRecoversTheSerialFractionOfAmdahlData) {
    const auto metrics = MeasuredScaling(AmdahlRuns(0.05));
    ASSERT_TRUE(metrics.ok()) << metrics.error().message;
    ASSERT_EQ(metrics->size(), 7u);
    EXPECT_TRUE(std::isnan(metrics->front().serialFraction));
    for (const ScalingMetrics& m : *metrics) {
        if (m.p == 1) continue;
        EXPECT_NEAR(m.serialFraction, 0.05, 1e-12) << "p = " << m.p;
        EXPECT_NEAR(m.efficiency, m.speedup / m.p, 1e-12);
    }
    EXPECT_NEAR(metrics->back().speedup, 1.0 / (0.05 + 0.95 / 64), 1e-9);
    const Expected<double> fit = FitSerialFraction(AmdahlRuns(0.05));
    ASSERT_TRUE(fit.ok());
    EXPECT_NEAR(*fit, 0.05, 1e-12);
}

TEST(ModelScaling, SerialFractionFitToleratesNoise) {
    const Expected<double> fit = FitSerialFraction(AmdahlRuns(0.1, 0.02));
    ASSERT_TRUE(fit.ok());
    EXPECT_NEAR(*fit, 0.1, 0.01);
}

TEST(ModelScaling, MissingSequentialRunIsAnError) {
    const std::vector<ScalingPoint> points = {{2, 60.0}, {4, 40.0}};
    const Expected<double> fit = FitSerialFraction(points);
    ASSERT_FALSE(fit.ok());
    EXPECT_EQ(fit.error().message, "scaling: no point with p = 1 to take T(1) from");
}

TEST(ModelScaling, NonPositiveTimeIsAnErrorNamingThePoint) {
    const std::vector<ScalingPoint> points = {{1, 100.0}, {2, 60.0}, {4, 0.0}};
    const auto metrics = MeasuredScaling(points);
    ASSERT_FALSE(metrics.ok());
    EXPECT_EQ(metrics.error().message, "scaling point 2: timeS must be > 0, got 0");
}

// Seed 004 eq. 3 by hand: f = 0.9, n = 16, r = 4 -> 1 / (0.1/2 + 0.9*4/(2*16)) = 6.154;
// r = 1 is Amdahl with serial fraction 1 - f on n cores.
TEST(ModelScaling, HillMartySymmetric) {
    EXPECT_NEAR(HillMartySymmetricSpeedup(0.9, 16, 4), 1.0 / 0.1625, 1e-12);
    EXPECT_NEAR(HillMartySymmetricSpeedup(0.9, 16, 1), AmdahlSpeedup(0.1, 16), 1e-12);
    EXPECT_NEAR(HillMartyPerf(4.0), 2.0, 1e-12);
}

// Sun-Chen: G(m) = 1 is Amdahl, G(m) = m is Gustafson (seed 004 eqs. 8 and 10); by hand
// f = 0.9, m = 4, G = 8: (0.1 + 7.2) / (0.1 + 1.8) = 3.8421.
TEST(ModelScaling, SunChenSpansAmdahlToGustafson) {
    EXPECT_NEAR(SunChenMemoryBoundedSpeedup(0.9, 16, 1.0), AmdahlSpeedup(0.1, 16), 1e-12);
    EXPECT_NEAR(SunChenMemoryBoundedSpeedup(0.9, 16, 16.0), GustafsonSpeedup(0.1, 16), 1e-12);
    EXPECT_NEAR(SunChenFixedTimeSpeedup(0.9, 16), 14.5, 1e-12);
    EXPECT_NEAR(SunChenMemoryBoundedSpeedup(0.9, 4, 8.0), 7.3 / 1.9, 1e-12);
}

// Seed 004 eq. 19: "0.0049 ms" per km at NVP 0.67; eq. 14's 7.67e-6 s per mile is NVP 0.70.
TEST(ModelScaling, PropagationDelayMatchesSeed004) {
    EXPECT_NEAR(PropagationDelaySPerM(0.67) * 1000.0, 0.0049e-3, 0.0049e-3 * 0.02);
    EXPECT_NEAR(PropagationDelaySPerM(0.70) * 1609.344, 7.67e-6, 7.67e-6 * 0.005);
}

// Seed 004 eqs. 15-18 by hand: T_seq 100 s, f 0.9, 4 nodes -> 100 / 3.7 s of computing;
// 1000 messages of 1 MB at 125 MB/s over 100 m at 5 ns/m with 10 us overhead -> 8.0105 s.
TEST(ModelScaling, LatencyBandwidthModelByHand) {
    const LatencyBandwidthParams link = {125e6, 5e-9, 100.0, 10e-6};
    const DistributedRun run = {100.0, 0.9, 4.0, 1000.0, 1e6};
    EXPECT_NEAR(MessageTimeS(link, 1e6), 8.0105e-3, 1e-12);
    EXPECT_NEAR(LatencyBandwidthTimeS(link, run), 100.0 / 3.7 + 8.0105, 1e-9);
    EXPECT_NEAR(LatencyBandwidthSpeedup(link, run), 100.0 / (100.0 / 3.7 + 8.0105), 1e-9);
}

TEST(ModelScaling, ZeroBandwidthIsAnErrorNamingTheField) {
    const Expected<void> result = ValidateLatencyBandwidth({0.0, 0.0, 0.0, 0.0}, "ib");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message,
              "latency/bandwidth 'ib': bandwidthBytesPerS must be > 0, got 0");
}

}  // namespace
}  // namespace bfv::predict
