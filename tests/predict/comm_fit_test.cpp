// The link fits of eqs. 16-19 against synthetic sweeps with known parameters, and against
// the source paper's Tables 1 and 2.

#include "predict/comm_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

namespace bfv::predict {
namespace {

// The paper's Table 1 sizes and powers of two from 256 B to 4 MiB: commbench's default.
std::vector<double> DefaultSizes() {
    std::vector<double> sizes = {200, 600, 1000, 1400, 2000, 6000, 10000, 20000, 80000, 640000};
    for (double n = 256; n <= 4 * 1048576; n *= 2) sizes.push_back(n);
    std::sort(sizes.begin(), sizes.end());
    return sizes;
}

// A synthetic link: time and CPU per message are lines in the size, per regime.
struct Regime {
    double upToBytes;       // last size of this regime
    double msgSetupS;       // MSGSETUP
    double alcbwBytesPerS;  // ALCBW
};
struct CpuLine {
    double setupS;          // CPU seconds per message
    double apbbwBytesPerS;  // APBBW
};

// Sweep over `sizes` with times from `regimes` and CPU from send/receive lines, each value
// multiplied by a uniform factor in [1 - noise, 1 + noise] from a generator seeded by `seed`.
std::vector<SweepPoint> Sweep(const std::vector<double>& sizes, const std::vector<Regime>& regimes,
                              double noise, unsigned seed, CpuLine send = {1e-6, 10e9},
                              CpuLine receive = {1e-6, 10e9}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> factor(1.0 - noise, 1.0 + noise);
    std::vector<SweepPoint> sweep;
    for (double n : sizes) {
        const Regime* r = &regimes.back();
        for (const Regime& candidate : regimes) {
            if (n <= candidate.upToBytes) {
                r = &candidate;
                break;
            }
        }
        double t = (r->msgSetupS + n / r->alcbwBytesPerS) * factor(rng);
        double s = (send.setupS + n / send.apbbwBytesPerS) * factor(rng);
        double v = (receive.setupS + n / receive.apbbwBytesPerS) * factor(rng);
        sweep.push_back({n, t, s, v});
    }
    return sweep;
}

const std::vector<Regime> kOneRegime = {{1e12, 5e-6, 2e9}};
// Eager up to 64 KiB (2 us, 5 GB/s), rendezvous above (20 us, 8 GB/s).
const std::vector<Regime> kTwoRegimes = {{65536, 2e-6, 5e9}, {1e12, 20e-6, 8e9}};

TEST(CommFit, HockneyRecoversSetupAndBandwidthFromNoisySweeps) {
    for (unsigned seed = 1; seed <= 10; ++seed) {
        auto fit = FitHockney(Sweep(DefaultSizes(), kOneRegime, 0.03, seed));
        ASSERT_TRUE(fit.ok()) << fit.error().message;
        EXPECT_NEAR(fit->msgSetupS, 5e-6, 0.5e-6) << "seed " << seed;
        EXPECT_NEAR(fit->alcbwBytesPerS, 2e9, 0.2e9) << "seed " << seed;
        EXPECT_EQ(fit->points, static_cast<int>(DefaultSizes().size()));
    }
}

TEST(CommFit, ExactSweepIsFittedExactly) {
    auto fit = FitHockney(Sweep(DefaultSizes(), {{1e12, 0.47e-3, 2.1e6}}, 0.0, 1));
    ASSERT_TRUE(fit.ok()) << fit.error().message;
    EXPECT_NEAR(fit->msgSetupS, 0.47e-3, 1e-9);
    EXPECT_NEAR(fit->alcbwBytesPerS, 2.1e6, 1e-3);
    EXPECT_LT(fit->relativeSse, 1e-20);
}

TEST(CommFit, NoisySingleRegimeKeepsOneSegment) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        auto pieces = FitPiecewise(Sweep(DefaultSizes(), kOneRegime, 0.03, seed));
        ASSERT_TRUE(pieces.ok()) << pieces.error().message;
        EXPECT_EQ(pieces->fits.size(), 1u)
            << "seed " << seed << ": split noise at " << pieces->breakpointsBytes.front();
    }
}

TEST(CommFit, TwoRegimeSweepRecoversBreakpointAndBothSegments) {
    for (unsigned seed = 1; seed <= 10; ++seed) {
        auto pieces = FitPiecewise(Sweep(DefaultSizes(), kTwoRegimes, 0.03, seed));
        ASSERT_TRUE(pieces.ok()) << pieces.error().message;
        ASSERT_EQ(pieces->fits.size(), 2u) << "seed " << seed;
        EXPECT_EQ(pieces->breakpointsBytes, std::vector<double>{65536}) << "seed " << seed;
        EXPECT_NEAR(pieces->fits[0].msgSetupS, 2e-6, 0.2e-6);
        EXPECT_NEAR(pieces->fits[0].alcbwBytesPerS, 5e9, 0.5e9);
        EXPECT_NEAR(pieces->fits[1].msgSetupS, 20e-6, 2e-6);
        EXPECT_NEAR(pieces->fits[1].alcbwBytesPerS, 8e9, 0.8e9);
    }
}

TEST(CommFit, ThreeRegimesAreFoundWhenTheDataHasThem) {
    const std::vector<Regime> three = {{8192, 1e-6, 2e9}, {262144, 10e-6, 5e9}, {1e12, 60e-6, 9e9}};
    auto pieces = FitPiecewise(Sweep(DefaultSizes(), three, 0.01, 3));
    ASSERT_TRUE(pieces.ok()) << pieces.error().message;
    EXPECT_EQ(pieces->breakpointsBytes, (std::vector<double>{8192, 262144}));
}

TEST(CommFit, ApbbwPerSideFromSyntheticCpuTimes) {
    auto sweep = Sweep(DefaultSizes(), kOneRegime, 0.03, 7, {0.5e-6, 10e9}, {0.8e-6, 4e9});
    auto fit = FitHockney(sweep);
    ASSERT_TRUE(fit.ok());
    auto send = FitApbbwBytesPerS(sweep, *fit, Side::Send);
    auto receive = FitApbbwBytesPerS(sweep, *fit, Side::Receive);
    ASSERT_TRUE(send.ok() && receive.ok());
    EXPECT_NEAR(*send, 10e9, 1e9);
    EXPECT_NEAR(*receive, 4e9, 0.4e9);
}

TEST(CommFit, ApbbwFallsBackToTheLargeMessageCpuFractionWhenCpuDoesNotGrow) {
    // The sender's CPU stays at 3 us per message whatever the size (it sleeps while the
    // receiver copies): APBBW = ALCBW / CPU% of the largest message.
    auto sweep = Sweep(DefaultSizes(), kOneRegime, 0.0, 1);
    for (SweepPoint& p : sweep) p.senderCpuS = 3e-6;
    auto fit = FitHockney(sweep);
    ASSERT_TRUE(fit.ok());
    auto send = FitApbbwBytesPerS(sweep, *fit, Side::Send);
    ASSERT_TRUE(send.ok());
    const SweepPoint& largest = sweep.back();
    EXPECT_NEAR(*send, 2e9 / (3e-6 / largest.oneWayS), 1e6);
}

TEST(CommFit, LinkProfileCarriesSegmentsNHalfAndApbbw) {
    auto sweep = Sweep(DefaultSizes(), kTwoRegimes, 0.0, 1, {0.5e-6, 20e9}, {0.8e-6, 12e9});
    std::reverse(sweep.begin(), sweep.end());  // any order is accepted
    auto profile = FitLinkProfile(sweep, "synthetic");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->name, "synthetic");
    ASSERT_EQ(profile->segments.size(), 2u);
    EXPECT_EQ(profile->segments[0].minBytes, 200);
    EXPECT_EQ(profile->segments[0].maxBytes, 65536);
    EXPECT_EQ(profile->segments[1].minBytes, 65536);
    EXPECT_EQ(profile->segments[1].maxBytes, 4 * 1048576);
    EXPECT_EQ(profile->breakpointsBytes, std::vector<double>{65536});
    EXPECT_NEAR(profile->nHalfBytes, 20e-6 * 8e9, 1.0);  // n½ of the rendezvous regime
    EXPECT_NEAR(profile->apbbwSendBytesPerS, 20e9, 1e6);
    EXPECT_NEAR(profile->apbbwReceiveBytesPerS, 12e9, 1e6);
    EXPECT_NEAR(profile->segments[1].params.apbbwBytesPerS, 12e9, 1e6) << "the busier side";
    EXPECT_NEAR(profile->ParamsFor(1e5).msgSetupS, 20e-6, 1e-12);
    EXPECT_TRUE(ParseLinkProfile(LinkProfileJson(*profile), "fit").ok());
}

// Table 2's LAM/MPI parameters (0.47 ms, 2.1 MB/s) give Table 1's "theoretical" LAM column
// through eq. 16; a fit to a sweep made from them gives the column back.
TEST(CommFit, PaperTable2LamValuesRegenerateTable1TheoreticalColumn) {
    const std::vector<double> sizes = {200,  600,   1000,  1400,  2000,
                                       6000, 10000, 20000, 80000, 640000};
    const double theoreticalMBPerS[] = {.31, .73, .99, 1.17, 1.35, 1.79, 1.91, 2.01, 2.09, 2.1};
    auto fit = FitHockney(Sweep(sizes, {{1e12, 0.47e-3, 2.1e6}}, 0.03, 11));
    ASSERT_TRUE(fit.ok());
    const LinkParams link{fit->msgSetupS, fit->alcbwBytesPerS, 5.3e6};
    for (size_t i = 0; i < sizes.size(); ++i) {
        const double mbPerS = A2abwBytesPerS(link, sizes[i]) / 1e6;
        EXPECT_NEAR(mbPerS, theoreticalMBPerS[i], theoreticalMBPerS[i] * 0.15) << sizes[i] << " B";
        if (sizes[i] >= 1400) {
            EXPECT_NEAR(mbPerS, theoreticalMBPerS[i], theoreticalMBPerS[i] * 0.05) << sizes[i];
        }
    }
}

// Fitting Table 1's *measured* LAM/MPI bandwidths lands near Table 2's parameters.
TEST(CommFit, PaperTable1MeasuredLamBandwidthsFitNearTable2) {
    const double sizes[] = {200, 600, 1000, 1400, 2000, 6000, 10000, 20000, 80000, 640000};
    const double measuredMBPerS[] = {.31, .73, 1.0, 1.2, 1.3, 1.9, 1.8, 2.1, 1.8, 2.0};
    std::vector<SweepPoint> sweep;
    for (int i = 0; i < 10; ++i)
        sweep.push_back({sizes[i], sizes[i] / (measuredMBPerS[i] * 1e6), 0, 0});
    auto fit = FitHockney(sweep);
    ASSERT_TRUE(fit.ok());
    EXPECT_NEAR(fit->msgSetupS, 0.47e-3, 0.47e-3 * 0.2);
    EXPECT_NEAR(fit->alcbwBytesPerS, 2.1e6, 2.1e6 * 0.2);
}

TEST(CommFit, BadSweepsAreRefusedWithTheReason) {
    auto sweep = Sweep(DefaultSizes(), kOneRegime, 0.0, 1);
    EXPECT_NE(ValidateSweep(std::span(sweep).first(2)).error().message.find("at least 3"),
              std::string::npos);
    auto bad = sweep;
    bad[2].oneWayS = 0;
    EXPECT_EQ(ValidateSweep(bad).error().message,
              "sweep point 2 (512 bytes): oneWayS must be > 0, got 0");
    bad = sweep;
    bad[0].msgBytes = -1;
    EXPECT_NE(ValidateSweep(bad).error().message.find("msgBytes must be > 0"), std::string::npos);
    bad = sweep;
    bad[4].receiverCpuS = -1e-6;
    EXPECT_NE(ValidateSweep(bad).error().message.find("receiverCpuS must be >= 0"),
              std::string::npos);
    std::vector<SweepPoint> sameSize(4, SweepPoint{1000, 1e-6, 0, 0});
    EXPECT_NE(ValidateSweep(sameSize).error().message.find("2 distinct"), std::string::npos);
    EXPECT_FALSE(FitHockney(sameSize).ok());
    EXPECT_FALSE(FitLinkProfile(sameSize, "x").ok());
}

TEST(CommFit, ALineThroughZeroTakesTheSmallestMessagesTimeAsSetup) {
    // A bandwidth line minus an offset (a token bucket's burst): the intercept (-0.5 us) and
    // eq. 17 from the smallest message (0.5 - 1.0 us) are both negative; MSGSETUP is the
    // smallest message's one-way time, ALCBW the fitted 1 GB/s, and the SSE is the returned
    // line's.
    std::vector<SweepPoint> burst = {
        {1000, 0.5e-6, 0, 0}, {2000, 1.5e-6, 0, 0}, {4000, 3.5e-6, 0, 0}};
    auto fit = FitHockney(burst);
    ASSERT_TRUE(fit.ok()) << fit.error().message;
    EXPECT_DOUBLE_EQ(fit->msgSetupS, 0.5e-6);
    EXPECT_NEAR(fit->alcbwBytesPerS, 1e9, 1e3);
    double sse = 0.0;
    for (const SweepPoint& p : burst) {
        sse += std::pow((0.5e-6 + p.msgBytes / 1e9 - p.oneWayS) / p.oneWayS, 2);
    }
    EXPECT_NEAR(fit->relativeSse, sse, 1e-9);
}

TEST(CommFit, ARateLimitedLinkWithABurstFits) {
    // commbench's ping-pong over the emulated cluster's 80 Mbit/s tbf link (10 ms burst):
    // messages within the burst go at twice the rate (the bucket refills during the reply),
    // larger ones at the sustained 10 MB/s, so every line over the large sizes has a negative
    // intercept. Columns: bytes, one-way us, stream us, send CPU %, receive CPU %.
    const double measured[][5] = {{200, 7.32, 21.9, 8.3, 13.6},
                                  {256, 9.73, 27.8, 6.8, 11.7},
                                  {512, 29.38, 54.9, 6.2, 14.1},
                                  {1000, 54.16, 105.9, 4.5, 14.3},
                                  {2048, 113.24, 214.9, 4.4, 13.5},
                                  {4096, 218.01, 429.7, 5.1, 15.7},
                                  {8192, 433.53, 858.2, 3.4, 15.2},
                                  {16384, 861.45, 1713.7, 4.0, 16.3},
                                  {32768, 1737.99, 3459.0, 9.4, 17.3},
                                  {65536, 3450.37, 6929.1, 8.2, 14.1},
                                  {131072, 6881.15, 13554.5, 7.5, 11.0},
                                  {262144, 17604.49, 27144.0, 6.1, 9.7},
                                  {524288, 45033.42, 55016.7, 7.4, 10.7},
                                  {1048576, 99828.94, 109374.7, 5.8, 6.8},
                                  {2097152, 209491.25, 219350.2, 7.2, 7.8},
                                  {4194304, 428724.69, 438432.2, 6.4, 8.4}};
    std::vector<SweepPoint> sweep;
    for (const auto& m : measured) {
        sweep.push_back({m[0], m[1] * 1e-6, m[2] * 1e-6 * m[3] / 100, m[2] * 1e-6 * m[4] / 100});
    }
    auto profile = FitLinkProfile(sweep, "emulated");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_GT(profile->overall.msgSetupS, 0.0);
    for (const LinkSegment& segment : profile->segments) EXPECT_GT(segment.params.msgSetupS, 0.0);
    // No line fits both regimes; the fitted rate lies between the sustained and the burst
    // rate. (Predictions of a stream cap it with commbench's many-to-one rate.)
    for (double bytes : {200.0, 16384.0, 4194304.0}) {
        EXPECT_GT(profile->ParamsFor(bytes).alcbwBytesPerS, 9.5e6) << bytes;
        EXPECT_LT(profile->ParamsFor(bytes).alcbwBytesPerS, 20e6) << bytes;
    }
}

TEST(CommFit, FitsThatMakeNoPhysicalSenseAreErrors) {
    // Times that shrink with size: no positive ALCBW.
    std::vector<SweepPoint> shrinking = {
        {100, 3e-6, 0, 0}, {1000, 2e-6, 0, 0}, {10000, 1e-6, 0, 0}};
    EXPECT_NE(FitHockney(shrinking).error().message.find("do not grow"), std::string::npos);
    auto unsorted = Sweep(DefaultSizes(), kOneRegime, 0.0, 1);
    std::swap(unsorted[0], unsorted[5]);
    EXPECT_NE(FitPiecewise(unsorted).error().message.find("sorted"), std::string::npos);
    auto noCpu = Sweep(DefaultSizes(), kOneRegime, 0.0, 1);
    for (SweepPoint& p : noCpu) p.receiverCpuS = 0;
    EXPECT_NE(FitLinkProfile(noCpu, "x").error().message.find("receive side"), std::string::npos);
}

}  // namespace
}  // namespace bfv::predict
