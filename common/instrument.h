#pragma once

#include <array>
#include <cstdint>
#include <string_view>

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

/// Per-activity totals. Not thread-safe: give every thread its own and Merge them.
class Recorder {
  public:
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
    void Merge(const Recorder& other);
    const ActivityStats& Get(Activity activity) const { return stats_[static_cast<int>(activity)]; }
    const std::array<ActivityStats, kActivityCount>& All() const { return stats_; }

  private:
    std::array<ActivityStats, kActivityCount> stats_{};
};

/// Monotonic wall clock and the calling thread's CPU clock, in seconds.
double WallClockS();
double ThreadCpuS();

/// Times a scope and adds its wall and CPU time to `recorder` under `activity`.
class ScopedActivity {
  public:
    ScopedActivity(Recorder& recorder, Activity activity)
        : recorder_(recorder), activity_(activity), wallS_(WallClockS()), cpuS_(ThreadCpuS()) {}
    ~ScopedActivity() { recorder_.Add(activity_, WallClockS() - wallS_, ThreadCpuS() - cpuS_); }
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
