#include "predict/predict_report.h"

#include <gtest/gtest.h>

namespace bfv::predict {
namespace {

// Two tracers (0.3 s and 0.4 s of busy time, 0.1 s of it sending) at 2 FPS: each frame starts
// 0.5 s after the last; the display receives from the slowest tracer's end of trace (0.3 s).
TEST(PredictedTimeline, DrawsThePredictedScheduleFramesApart) {
    ClusterPrediction cluster;
    cluster.prediction.fps = 2.0;
    cluster.prediction.sPerFrame[static_cast<int>(Term::Send)] = 0.1;
    cluster.prediction.sPerFrame[static_cast<int>(Term::DisplayReceive)] = 0.05;
    cluster.prediction.sPerFrame[static_cast<int>(Term::DisplayWork)] = 0.02;
    cluster.ranks = {{0, common::Role::TerrainServer, 0, 0.0, 0.0},
                     {1, common::Role::RayTracer, 0, 0.3, 0.3},
                     {2, common::Role::RayTracer, 1, 0.4, 0.4},
                     {3, common::Role::Display, 1, 0.07, 0.07}};
    std::vector<common::RankTimeline> timelines = PredictedTimeline(cluster, 2);
    ASSERT_EQ(timelines.size(), 4u);
    EXPECT_TRUE(timelines[0].events.empty()) << "no terrain term";
    const auto& slow = timelines[2].events;
    ASSERT_EQ(slow.size(), 4u);  // trace, send per frame
    EXPECT_EQ(slow[0].activity, common::Activity::Trace);
    EXPECT_DOUBLE_EQ(slow[0].durationS, 0.3);
    EXPECT_EQ(slow[1].activity, common::Activity::Send);
    EXPECT_DOUBLE_EQ(slow[1].startS, 0.3);
    EXPECT_DOUBLE_EQ(slow[1].durationS, 0.1);
    EXPECT_DOUBLE_EQ(slow[2].startS, 0.5) << "the next frame one period later";
    EXPECT_DOUBLE_EQ(timelines[1].events[0].durationS, 0.2);
    const auto& display = timelines[3].events;
    ASSERT_EQ(display.size(), 4u);
    EXPECT_EQ(display[0].activity, common::Activity::Receive);
    EXPECT_EQ(display[0].thread, 1);
    EXPECT_DOUBLE_EQ(display[0].startS, 0.3);
    EXPECT_DOUBLE_EQ(display[1].startS, 0.35);
    EXPECT_DOUBLE_EQ(display[1].durationS, 0.02);
    EXPECT_EQ(timelines[3].name, "r3 display (predicted, host 1)");
}

// The verdict names each run of N by the term that binds, and where the display's receive
// binds, what binds it at the run's last N.
TEST(Verdict, NamesTheBindingTermsAndTheDisplayNicThatBinds) {
    auto row = [](int n, double fps, Term binding, const std::string& bound) {
        PredictRow r;
        r.cluster.prediction.n = n;
        r.cluster.prediction.fps = fps;
        r.cluster.prediction.binding = binding;
        r.cluster.displayReceiveBound = bound;
        return r;
    };
    std::vector<PredictRow> rows = {row(3, 10.0, Term::RayTrace, "nic0 (gige)"),
                                    row(4, 19.0, Term::RayTrace, "nic0 (gige)"),
                                    row(5, 24.0, Term::DisplayReceive, "nic0 (gige)"),
                                    row(6, 23.5, Term::DisplayReceive, "nic1 (slow)")};
    EXPECT_EQ(Verdict(rows),
              "ray trace bound up to N = 4, display receive bound from N = 5 (at N = 6: nic1 "
              "(slow)) (best 24.0 FPS)");
}

}  // namespace
}  // namespace bfv::predict
