#pragma once

// A cgroup's CPU limit on this process (Linux CFS bandwidth control: cgroup v2's cpu.max, v1's
// cpu.cfs_quota_us and cpu.cfs_period_us), as containers set it (Docker's --cpus, a Kubernetes
// CPU limit, Slurm's cgroup plugin, tools/emulated-cluster's hosts), and how often it has held
// the group back (cpu.stat). The predictor's machine description takes the limit as a host's
// cpuQuotaCores and quotaPeriodS; report.json gives each rank's.

#include <deque>
#include <string>
#include <utility>

namespace bfv::common {

/// A CPU quota and the counters of its cgroup.
struct CpuQuota {
    double cores = 0.0;             // CPU time per period, in cores; 0: no quota
    double periodS = 0.0;           // the quota's period, seconds (0 without a quota)
    double periods = 0.0;           // periods in which the group had work (nr_periods)
    double throttledPeriods = 0.0;  // periods in which it was held back (nr_throttled)
    double throttledS = 0.0;        // seconds it was held back (throttled_usec or _time)
};

/// The quota of the cgroup that /proc/self/cgroup (`procCgroupPath`) names under the cgroup
/// mount `cgroupRoot`: the tightest of the group's and its ancestors' quotas (v2: cpu.max; v1:
/// the cpu controller's cpu.cfs_quota_us over cpu.cfs_period_us, mounted as cpu, cpu,cpuacct or
/// cpuacct,cpu), with the counters of the group itself. No quota (cores 0) when the files are
/// absent or unreadable: not every system mounts the cpu controller, and a quota of "max" or
/// -1 is none. Never fails.
CpuQuota ReadCpuQuota(const std::string& procCgroupPath = "/proc/self/cgroup",
                      const std::string& cgroupRoot = "/sys/fs/cgroup");

/// `now` with its counters less `start`'s (the periods and holds between the two readings).
CpuQuota QuotaSince(const CpuQuota& start, const CpuQuota& now);

/// This process's quota, with the counters since the process started (read once at start-up,
/// and again at each call).
CpuQuota ProcessCpuQuota();

/// The share of one core a single rank gets under a CPU quota of `quotaCores` cores (0: none):
/// the quota, at most 1; 1 without a quota. The predictor's stretch of a rank under a quota
/// takes it from here.
double QuotaCoreShare(double quotaCores);

/// The share of a core a rank's CPU-bound work (a tracer's trace) has sustained over its last
/// kFrames frames: their CPU seconds over their wall seconds, at most 1. One frame's wall time
/// under a CPU quota depends on where in the quota's period it fell (at a 10 ms period a 20 ms
/// trace takes 20 to 30 ms, a 2 ms one 2 to 10), so the dynamic split balances CPU seconds over
/// this share (SecondsOf): the time the work takes at the rate the rank sustains. That is the
/// quota as the host delivers it, below the nominal quota where hosts contend for cores (0.16
/// of a core for a quota of 0.2 on an emulated cluster of five hosts on two cores), and on a
/// crowded host without a quota, the share of a core the rank gets. The predictor's UnderQuotaS
/// stretches a CPU-bound calculation the same way, by the host's measured cpuQuotaCores.
class SustainedShare {
  public:
    static constexpr int kFrames = 16;

    /// Adds one frame's work: `wallS` and `cpuS` seconds (>= 0), forgetting the frame kFrames
    /// before.
    void Add(double wallS, double cpuS);

    /// The share, in (0, 1]: 1 before any frame with both wall and CPU time.
    double Share() const;

    /// Wall seconds `cpuS` seconds of CPU take at that share.
    double SecondsOf(double cpuS) const { return cpuS / Share(); }

  private:
    std::deque<std::pair<double, double>> frames_;  // (wall, CPU) seconds, oldest first
};

}  // namespace bfv::common
