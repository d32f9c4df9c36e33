#include "common/instrument.h"

#include <sys/resource.h>

#include <chrono>
#include <ctime>

namespace bfv::common {

std::string_view ActivityName(Activity activity) {
    static constexpr std::array<std::string_view, kActivityCount> kNames{
        "trace",           "pack",   "send", "receive", "wait", "terrain_read", "terrain_send",
        "terrain_receive", "present"};
    return kNames[static_cast<int>(activity)];
}

void Recorder::Merge(const Recorder& other) {
    for (int a = 0; a < kActivityCount; ++a) {
        stats_[a].wallS += other.stats_[a].wallS;
        stats_[a].cpuS += other.stats_[a].cpuS;
        stats_[a].bytes += other.stats_[a].bytes;
        stats_[a].messages += other.stats_[a].messages;
    }
    timeline_.insert(timeline_.end(), other.timeline_.begin(), other.timeline_.end());
    timelineDropped_ += other.timelineDropped_;
}

double WallClockS() {
    using Clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double ThreadCpuS() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double PeakResidentMiB() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace bfv::common
