// The per-activity recorder, the clocks it reads and the peak memory figure of the run report.
// (The timeline's own test is in timeline_test.cpp.)

#include "common/instrument.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace bfv::common {
namespace {

TEST(Instrument, ActivitiesHaveTheReportsLowerCaseNames) {
    EXPECT_EQ(ActivityName(Activity::Trace), "trace");
    EXPECT_EQ(ActivityName(Activity::Receive), "receive");
    EXPECT_EQ(ActivityName(Activity::TerrainRead), "terrain_read");
    EXPECT_EQ(ActivityName(Activity::TerrainSend), "terrain_send");
    EXPECT_EQ(ActivityName(Activity::TerrainReceive), "terrain_receive");
    EXPECT_EQ(ActivityName(Activity::Present), "present");
    std::set<std::string_view> names;
    for (int a = 0; a < kActivityCount; ++a) names.insert(ActivityName(static_cast<Activity>(a)));
    EXPECT_EQ(names.size(), static_cast<std::size_t>(kActivityCount)) << "names are distinct";
}

TEST(Instrument, RecorderSumsTimeAndTrafficPerActivity) {
    Recorder r;
    r.Add(Activity::Send, 0.5, 0.25);
    r.Add(Activity::Send, 0.25, 0.125);
    r.AddTraffic(Activity::Send, 1000.0, 2.0);
    r.AddTraffic(Activity::Send, 24.0, 1.0);
    EXPECT_EQ(r.Get(Activity::Send).wallS, 0.75);
    EXPECT_EQ(r.Get(Activity::Send).cpuS, 0.375);
    EXPECT_EQ(r.Get(Activity::Send).bytes, 1024.0);
    EXPECT_EQ(r.Get(Activity::Send).messages, 3.0);
    EXPECT_EQ(r.Get(Activity::Trace).wallS, 0.0) << "other activities untouched";
    EXPECT_EQ(&r.All()[static_cast<int>(Activity::Send)], &r.Get(Activity::Send));
}

TEST(Instrument, MergeAddsEveryTotalAndTheDroppedEvents) {
    Recorder main, receive;
    main.Add(Activity::Receive, 1.0, 0.5);
    main.AddTraffic(Activity::Receive, 100.0, 1.0);
    receive.Add(Activity::Receive, 2.0, 1.5);
    receive.AddTraffic(Activity::Receive, 300.0, 3.0);
    receive.Add(Activity::Wait, 4.0, 0.0);
    receive.StartTimeline(1, 1);
    receive.Record(Activity::Receive, 0.0, 0.0, 0.0);
    receive.Record(Activity::Receive, 0.0, 0.0, 0.0);  // past the limit: dropped
    main.Merge(receive);
    EXPECT_EQ(main.Get(Activity::Receive).wallS, 3.0);
    EXPECT_EQ(main.Get(Activity::Receive).cpuS, 2.0);
    EXPECT_EQ(main.Get(Activity::Receive).bytes, 400.0);
    EXPECT_EQ(main.Get(Activity::Receive).messages, 4.0);
    EXPECT_EQ(main.Get(Activity::Wait).wallS, 4.0);
    EXPECT_EQ(main.Timeline().size(), 1u);
    EXPECT_EQ(main.TimelineDropped(), 1u);
}

// A scope that sleeps takes wall time and (almost) no CPU; one that computes takes both.
TEST(Instrument, ScopedActivityRecordsWallAndThreadCpuSeconds) {
    Recorder r;
    {
        ScopedActivity timing(r, Activity::Wait);
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    EXPECT_GE(r.Get(Activity::Wait).wallS, 0.029);
    EXPECT_LT(r.Get(Activity::Wait).wallS, 1.0);
    EXPECT_LT(r.Get(Activity::Wait).cpuS, 0.5 * r.Get(Activity::Wait).wallS);
    {
        ScopedActivity timing(r, Activity::Trace);
        double startS = ThreadCpuS();
        volatile double sink = 0.0;
        while (ThreadCpuS() - startS < 0.02) sink = sink + 1.0;
    }
    EXPECT_GE(r.Get(Activity::Trace).cpuS, 0.02);
    EXPECT_GE(r.Get(Activity::Trace).wallS, r.Get(Activity::Trace).cpuS * 0.99);
}

TEST(Instrument, WallClockIsMonotonicSeconds) {
    double a = WallClockS();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    double b = WallClockS();
    EXPECT_GE(b - a, 0.0099);
    EXPECT_LT(b - a, 1.0);
}

/// This process's resident set now, MiB (/proc/self/statm's second field, in pages).
double ResidentMiB() {
    std::ifstream statm("/proc/self/statm");
    long sizePages = 0, residentPages = 0;
    statm >> sizePages >> residentPages;
    return residentPages * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The peak is never below what is resident now, and follows 16 MiB touched.
TEST(Instrument, PeakResidentMiBIsAtLeastWhatIsResident) {
    EXPECT_GE(PeakResidentMiB(), ResidentMiB() - 0.5);
    std::vector<char> block(16 << 20, 1);
    double resident = ResidentMiB();
    EXPECT_GE(resident, 16.0);
    EXPECT_GE(PeakResidentMiB(), resident - 0.5);
    EXPECT_LT(PeakResidentMiB(), 64.0 * 1024.0) << "MiB, not KiB";
    EXPECT_EQ(block[12345], 1);
}

}  // namespace
}  // namespace bfv::common
