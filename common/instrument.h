#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace bfv::common {

/// What a rank spends its time on; the columns of the run report's resource matrix.
enum class Activity : int {
    Trace,           // ray casting columns
    Pack,            // copying columns into messages
    Send,            // posting and completing column sends
    Receive,         // receiving columns (display)
    Wait,            // waiting for the next frame command or for peers
    TerrainRead,     // reading and checking the terrain file (server)
    TerrainSend,     // broadcasting terrain (server)
    TerrainReceive,  // receiving terrain and building the pyramid
    Present,         // palette mapping, PNG writing, window presentation (display)
    kCount
};
inline constexpr int kActivityCount = static_cast<int>(Activity::kCount);

/// Lower-case name of an activity as written in reports ("trace", "terrain_send", ...).
std::string_view ActivityName(Activity activity);

/// Totals of one activity on one rank or thread.
struct ActivityStats {
    double wallS = 0.0;     // wall-clock seconds
    double cpuS = 0.0;      // CPU seconds of the calling thread
    double bytes = 0.0;     // payload bytes moved (sent or received)
    double messages = 0.0;  // messages moved
};

/// One timed scope on the timeline (`bfv render --trace`): what, when (WallClockS seconds),
/// for how long, on which thread of the rank (0 = its main thread; 1 + k = the display's
/// receive thread k).
struct TraceEvent {
    double startS = 0.0;
    double durationS = 0.0;
    Activity activity = Activity::Trace;
    int thread = 0;
};

/// Per-activity totals, and with StartTimeline every timed scope as a TraceEvent. Not
/// thread-safe: give every thread its own and Merge them.
class Recorder {
  public:
    /// Keeps every timed scope from now on as an event of `thread`, up to `maxEvents` (later
    /// ones are counted in TimelineDropped, not kept).
    void StartTimeline(int thread, std::size_t maxEvents) {
        timelineThread_ = thread;
        timelineMax_ = maxEvents;
        timeline_.reserve(std::min<std::size_t>(maxEvents, 4096));
    }
    /// A scope of `activity` that started at `startS` and took `wallS` wall and `cpuS` CPU
    /// seconds: adds to the totals, and to the timeline when it is on.
    void Record(Activity activity, double startS, double wallS, double cpuS) {
        Add(activity, wallS, cpuS);
        if (timelineMax_ == 0) return;
        if (timeline_.size() < timelineMax_) {
            timeline_.push_back({startS, wallS, activity, timelineThread_});
        } else {
            ++timelineDropped_;
        }
    }
    void Add(Activity activity, double wallS, double cpuS) {
        ActivityStats& s = stats_[static_cast<int>(activity)];
        s.wallS += wallS;
        s.cpuS += cpuS;
    }
    void AddTraffic(Activity activity, double bytes, double messages) {
        ActivityStats& s = stats_[static_cast<int>(activity)];
        s.bytes += bytes;
        s.messages += messages;
    }
    /// Adds `other`'s totals, and appends its timeline events.
    void Merge(const Recorder& other);
    const ActivityStats& Get(Activity activity) const { return stats_[static_cast<int>(activity)]; }
    const std::array<ActivityStats, kActivityCount>& All() const { return stats_; }
    /// The timeline kept since StartTimeline (empty without it), in the order scopes ended.
    const std::vector<TraceEvent>& Timeline() const { return timeline_; }
    /// Events past the StartTimeline limit, not kept.
    std::size_t TimelineDropped() const { return timelineDropped_; }

  private:
    std::array<ActivityStats, kActivityCount> stats_{};
    std::vector<TraceEvent> timeline_;
    std::size_t timelineMax_ = 0;  // 0: no timeline
    std::size_t timelineDropped_ = 0;
    int timelineThread_ = 0;
};

/// Monotonic wall clock and the calling thread's CPU clock, in seconds.
double WallClockS();
double ThreadCpuS();

/// Times a scope and records it in `recorder` under `activity` (Recorder::Record).
class ScopedActivity {
  public:
    ScopedActivity(Recorder& recorder, Activity activity)
        : recorder_(recorder), activity_(activity), wallS_(WallClockS()), cpuS_(ThreadCpuS()) {}
    ~ScopedActivity() {
        recorder_.Record(activity_, wallS_, WallClockS() - wallS_, ThreadCpuS() - cpuS_);
    }
    ScopedActivity(const ScopedActivity&) = delete;
    ScopedActivity& operator=(const ScopedActivity&) = delete;

  private:
    Recorder& recorder_;
    Activity activity_;
    double wallS_;
    double cpuS_;
};

/// Peak resident set size of this process so far, in MiB (getrusage).
double PeakResidentMiB();

}  // namespace bfv::common
