#include "common/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace bfv::common {
namespace {

TEST(Report, FpsStatsOfKnownFrameTimes) {
    // Per-frame FPS 10, 20, 25, 50, 100 (times 0.1, 0.05, 0.04, 0.02, 0.01 s).
    std::vector<double> times{0.05, 0.1, 0.01, 0.04, 0.02};
    FpsStats s = ComputeFpsStats(times);
    EXPECT_EQ(s.frames, 5);
    EXPECT_NEAR(s.mean, 5 / 0.22, 1e-9);  // frames over total time, not the mean of FPS
    EXPECT_NEAR(s.median, 25.0, 1e-9);
    EXPECT_NEAR(s.p5, 10.0 + 0.2 * (20.0 - 10.0), 1e-9);    // rank 0.05 * 4 = 0.2
    EXPECT_NEAR(s.p95, 50.0 + 0.8 * (100.0 - 50.0), 1e-9);  // rank 3.8
}

TEST(Report, FpsStatsOfNothingAreZero) {
    FpsStats s = ComputeFpsStats({});
    EXPECT_EQ(s.frames, 0);
    EXPECT_EQ(s.mean, 0.0);
    EXPECT_EQ(s.median, 0.0);
}

TEST(Report, WarmUpFramesAreLeftOut) {
    RunReport report;
    report.options.output.warmupFrames = 2;
    report.frameTimesS = {1.0, 2.0, 0.1, 0.1, 0.1, 0.1};
    FpsStats s = report.Fps();
    EXPECT_EQ(s.frames, 4);
    EXPECT_NEAR(s.mean, 10.0, 1e-9);
    EXPECT_NEAR(s.p5, 10.0, 1e-9);
    report.frameTimesS = {0.5, 0.25};  // no more frames than the warm-up: count them all
    EXPECT_EQ(report.Fps().frames, 2);
}

// Per-frame imbalance in the JSON; mean and max without the warm-up frames, in the summary.
TEST(Report, TraceImbalanceOfEveryFrame) {
    RunReport report;
    report.mode = RunMode::Mpi;
    report.options.output.warmupFrames = 1;
    report.options.pipeline.decomposition = Decomposition::Dynamic;
    report.frameTimesS = {0.5, 0.1, 0.1, 0.1};
    report.traceImbalance = {3.0, 1.5, 1.25, 1.0};
    EXPECT_DOUBLE_EQ(report.TraceImbalanceMean(), 1.25);
    EXPECT_DOUBLE_EQ(report.TraceImbalanceMax(), 1.5);
    nlohmann::json j = ReportJson(report);
    EXPECT_EQ(j["traceImbalance"].get<std::vector<double>>(), report.traceImbalance);
    EXPECT_DOUBLE_EQ(j["traceImbalanceMean"].get<double>(), 1.25);
    EXPECT_DOUBLE_EQ(j["traceImbalanceMax"].get<double>(), 1.5);
    std::string summary = ReportSummary(report);
    EXPECT_NE(summary.find("trace imbalance (slowest tracer / mean) 1.250 mean, 1.500 max "
                           "(dynamic)"),
              std::string::npos)
        << summary;
    report.traceImbalance.clear();  // --sequential: no tracers
    EXPECT_EQ(report.TraceImbalanceMean(), 0.0);
    EXPECT_EQ(ReportSummary(report).find("imbalance"), std::string::npos);
}

// report.json names the run's mode and end as words, as scripts read them.
TEST(Report, ModeAndEndAreWrittenByName) {
    RunReport report;
    EXPECT_EQ(ReportJson(report)["mode"], "mpi");
    EXPECT_EQ(ReportJson(report)["end"], "completed");
    report.mode = RunMode::Sequential;
    EXPECT_EQ(ReportJson(report)["mode"], "sequential");
    const std::pair<RunEnd, const char*> ends[] = {{RunEnd::Interrupted, "interrupted"},
                                                   {RunEnd::Stalled, "stalled"},
                                                   {RunEnd::Failed, "failed"}};
    for (const auto& [end, name] : ends) {
        report.end = end;
        EXPECT_EQ(ReportJson(report)["end"], name);
        EXPECT_NE(ReportSummary(report).find("ended after 0 frames"), std::string::npos);
    }
}

TEST(Report, JsonHasTheFields) {
    RunReport report;
    report.mode = RunMode::Mpi;
    report.nRanks = 4;
    report.terrainName = "jacksboro_fault";
    report.options.output.warmupFrames = 1;
    report.options.output.serve = "127.0.0.1:8080";
    report.options.shading.maxAnisotropy = 2.0;
    report.options.shading.secantMaxCellPixels = 0.0;
    report.frameTimesS = {0.5, 0.1, 0.1};
    report.checksums = {0x1234, 0xfedcba9876543210ull, 7};
    RankSummary tracer;
    tracer.rank = 1;
    tracer.role = 1;  // Role::RayTracer
    tracer.wallS = 2.0;
    tracer.activities[static_cast<int>(Activity::Send)] = {0.5, 0.25, 3000.0, 30.0};
    report.ranks = {tracer};
    report.slices = {{1000.0, 0.5, 2}};

    nlohmann::json j = ReportJson(report);
    EXPECT_EQ(j["slices"][0]["columnsMean"], 500.0);
    EXPECT_EQ(j["slices"][0]["traceSMean"], 0.25);
    EXPECT_EQ(j["mode"], "mpi");
    EXPECT_EQ(j["nRanks"], 4);
    EXPECT_EQ(j["terrainName"], "jacksboro_fault");
    EXPECT_EQ(j["options"]["view"]["widthPx"], report.options.view.screen.widthPx);
    EXPECT_EQ(j["options"]["output"]["warmupFrames"], 1);
    EXPECT_EQ(j["options"]["output"]["serve"], "127.0.0.1:8080");
    EXPECT_EQ(j["options"]["shading"]["maxAnisotropy"], 2.0);
    EXPECT_EQ(j["options"]["shading"]["secantMaxCellPixels"], 0.0);
    EXPECT_EQ(j["options"]["shading"]["lodBias"], 1.0);
    EXPECT_EQ(j["options"]["shading"]["seaLevelM"], nullptr);
    EXPECT_EQ(j["options"]["pipeline"]["decomposition"], "contiguous");
    EXPECT_EQ(j["options"]["terrain"]["cacheMiB"], 128);
    EXPECT_EQ(j["options"]["prediction"]["machinePath"], "");
    EXPECT_EQ(j["options"]["liveness"]["stallTimeoutS"], 10.0);
    EXPECT_EQ(j["fps"]["framesCounted"], 2);
    EXPECT_NEAR(j["fps"]["mean"].get<double>(), 10.0, 1e-9);
    EXPECT_EQ(j["frameTimesS"].size(), 3u);
    EXPECT_EQ(j["frameChecksums"][0], "0000000000001234");
    EXPECT_EQ(j["frameChecksums"][1], "fedcba9876543210");
    ASSERT_EQ(j["ranks"].size(), 1u);
    const nlohmann::json& send = j["ranks"][0]["activities"]["send"];
    EXPECT_NEAR(send["cpuPercent"].get<double>(), 50.0, 1e-9);
    EXPECT_NEAR(send["msgzBytes"].get<double>(), 100.0, 1e-9);
    EXPECT_NEAR(send["nMsgPerFrame"].get<double>(), 10.0, 1e-9);  // 30 messages over 3 frames
    EXPECT_FALSE(j["ranks"][0]["activities"].contains("trace"));  // idle activities left out
    EXPECT_FALSE(j["ranks"][0].contains("cpuQuota"));             // a host without a quota
}

// A rank under a CPU quota: its quota and holds in report.json and in the printed summary.
// A tracer whose wall time is `traceS` of tracing and packing and `idleS` of waiting for the
// next frame and for its sends.
RankSummary TracerOf(int rank, double traceS, double idleS) {
    RankSummary tracer;
    tracer.rank = rank;
    tracer.role = static_cast<int>(Role::RayTracer);
    tracer.activities[static_cast<int>(Activity::Trace)].wallS = 0.9 * traceS;
    tracer.activities[static_cast<int>(Activity::Pack)].wallS = 0.1 * traceS;
    tracer.activities[static_cast<int>(Activity::Wait)].wallS = 0.5 * idleS;
    tracer.activities[static_cast<int>(Activity::Send)].wallS = 0.5 * idleS;
    // Terrain arriving (at start-up, mostly) is neither busy nor idle in the frame.
    tracer.activities[static_cast<int>(Activity::TerrainReceive)].wallS = 5.0;
    return tracer;
}

// The busiest tracer (the least idle) binds when it is idle under a quarter of its time; when
// every tracer waits longer, they wait on the display.
TEST(Report, TheMeasuredBindingIsTheBusiestTracersIdleShare) {
    RunReport report;
    RankSummary display;
    display.rank = 3;
    display.role = static_cast<int>(Role::Display);
    display.activities[static_cast<int>(Activity::Receive)].wallS = 10.0;
    report.ranks = {TracerOf(1, 9.0, 1.0), TracerOf(2, 6.0, 4.0), display};
    std::optional<MeasuredBinding> traced = MeasureBinding(report);
    ASSERT_TRUE(traced.has_value());
    EXPECT_EQ(traced->role, Role::RayTracer);
    EXPECT_NEAR(traced->busiestTracerIdleShare, 0.1, 1e-12);
    nlohmann::json j = ReportJson(report);
    EXPECT_EQ(j["measuredBinding"]["role"], "tracer");
    EXPECT_NE(ReportSummary(report).find("measured binding: tracer (the busiest tracer idle 10%"),
              std::string::npos)
        << ReportSummary(report);

    report.ranks = {TracerOf(1, 7.0, 3.0), TracerOf(2, 2.0, 8.0), display};
    std::optional<MeasuredBinding> waited = MeasureBinding(report);
    ASSERT_TRUE(waited.has_value());
    EXPECT_EQ(waited->role, Role::Display);
    EXPECT_NEAR(waited->busiestTracerIdleShare, 0.3, 1e-12);
    EXPECT_EQ(ReportJson(report)["measuredBinding"]["role"], "display");

    report.ranks = {display};  // --sequential's one summary, or tracers that never reported
    EXPECT_FALSE(MeasureBinding(report).has_value());
    EXPECT_EQ(ReportJson(report)["measuredBinding"], nullptr);
}

TEST(Report, ARanksCpuQuotaAndItsHoldsAreReported) {
    RunReport report;
    RankSummary tracer;
    tracer.rank = 1;
    tracer.role = 1;  // Role::RayTracer
    tracer.wallS = 10.0;
    tracer.cpuQuota = {0.3, 0.01, 1000, 560, 4.2};
    report.ranks = {tracer};
    nlohmann::json q = ReportJson(report)["ranks"][0]["cpuQuota"];
    EXPECT_EQ(q["cores"], 0.3);
    EXPECT_EQ(q["periodS"], 0.01);
    EXPECT_EQ(q["throttledPeriods"], 560);
    EXPECT_EQ(q["throttledS"], 4.2);
    EXPECT_NE(ReportSummary(report).find("rank 1 runs under a CPU quota of 0.30 cores per 10 ms: "
                                         "held back in 56% of its periods, 4.20 s in all"),
              std::string::npos)
        << ReportSummary(report);
}

}  // namespace
}  // namespace bfv::common
