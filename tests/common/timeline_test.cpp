#include "common/timeline.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/instrument.h"

namespace bfv::common {
namespace {

// A recorder keeps timed scopes only once its timeline is started, up to its limit, and
// merging appends the other thread's events with their thread number.
TEST(RecorderTimeline, KeepsScopesUpToItsLimitAndMergesThreads) {
    Recorder main;
    main.Record(Activity::Trace, 1.0, 0.5, 0.5);
    EXPECT_TRUE(main.Timeline().empty()) << "no timeline before StartTimeline";
    main.StartTimeline(0, 2);
    main.Record(Activity::Trace, 2.0, 0.25, 0.25);
    main.Record(Activity::Send, 2.25, 0.125, 0.0);
    main.Record(Activity::Wait, 2.5, 0.5, 0.0);
    ASSERT_EQ(main.Timeline().size(), 2u);
    EXPECT_EQ(main.TimelineDropped(), 1u);
    EXPECT_EQ(main.Timeline()[1].activity, Activity::Send);
    EXPECT_EQ(main.Timeline()[1].startS, 2.25);
    EXPECT_EQ(main.Timeline()[1].durationS, 0.125);
    EXPECT_EQ(main.Get(Activity::Trace).wallS, 0.75) << "totals count every scope";
    EXPECT_EQ(main.Get(Activity::Wait).wallS, 0.5);
    Recorder receive;
    receive.StartTimeline(2, 10);
    { ScopedActivity timing(receive, Activity::Receive); }
    main.Merge(receive);
    ASSERT_EQ(main.Timeline().size(), 3u);
    EXPECT_EQ(main.Timeline()[2].thread, 2);
    EXPECT_EQ(main.Timeline()[2].activity, Activity::Receive);
    EXPECT_GE(main.Timeline()[2].durationS, 0.0);
}

// Chrome trace events: microseconds from the earliest event, one process per rank, named
// threads, and the events past the limit said.
TEST(TimelineJson, WritesCompleteEventsWithProcessAndThreadNames) {
    std::vector<RankTimeline> timelines(2);
    timelines[0] = {0, "r0 server", {{10.0, 0.001, Activity::TerrainRead, 0}}, 0};
    timelines[1] = {3,
                    "r3 display",
                    {{10.5, 0.25, Activity::Receive, 1}, {10.75, 0.125, Activity::Present, 0}},
                    7};
    nlohmann::json json = TimelineJson(timelines);
    int complete = 0;
    bool receiveThreadNamed = false, droppedSaid = false;
    for (const auto& e : json["traceEvents"]) {
        if (e["ph"] == "X") {
            ++complete;
            if (e["name"] == "receive") {
                EXPECT_EQ(e["pid"], 3);
                EXPECT_EQ(e["tid"], 1);
                EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.5e6);
                EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.25e6);
            }
            if (e["name"] == "terrain_read") {
                EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0.0);
            }
        } else if (e["name"] == "thread_name" && e["pid"] == 3 && e["tid"] == 1) {
            receiveThreadNamed = e["args"]["name"] == "receive 0";
        } else if (e["name"] == "process_labels") {
            droppedSaid = e["args"]["labels"] == "7 later events not recorded";
        }
    }
    EXPECT_EQ(complete, 3);
    EXPECT_TRUE(receiveThreadNamed);
    EXPECT_TRUE(droppedSaid);
}

}  // namespace
}  // namespace bfv::common
