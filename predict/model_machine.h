#pragma once

// Moving a calculation between machines and sharing one machine between calculations:
// section 2 (eqs. 4-8) and section 4.1 (eq. 21) of the source paper (Baer and Decato,
// "Software Performance Modeling in PC Clusters"), as docs/predictor.md reconstructs it.

#include <span>
#include <string_view>

#include "common/expected.h"

namespace bfv::predict {

/// Relative speeds of a machine. Only ratios between machines enter the equations, so any
/// consistent scale works (the paper uses SPECint95: Pentium 100 = 3.33, Pentium Pro 200 = 8.2).
struct MachineSpeed {
    double cpuSpeed = 1.0;  // CPUSPEED: relative CPU speed
    double perSpeed = 1.0;  // PERSPEED: relative peripheral (I/O) speed
};

/// What one calculation costs on one machine: wall time and CPU utilisation.
struct Load {
    double rtexS = 0.0;        // RTEX: wall-clock seconds
    double cpuFraction = 0.0;  // CPU%: 0..1
};

/// CPU demand on one host: CPU seconds per frame (work that follows the frame rate) and per
/// second (work that does not, e.g. receiving the terrain stream).
struct HostDemand {
    double cpuSPerFrame = 0.0;  // CPU seconds per frame, summed over the host's ranks
    double cpuSPerS = 0.0;      // CPU seconds per second of run, summed over the host's ranks
};

/// Checks both speeds are positive: "machine 'm2': cpuSpeed must be > 0, got 0".
Expected<void> ValidateMachineSpeed(const MachineSpeed& speed, std::string_view name);

/// Checks rtexS >= 0 and cpuFraction in [0, 1]: "load 'trace': cpuFraction must be >= 0 and <= 1".
Expected<void> ValidateLoad(const Load& load, std::string_view name);

/// CPU seconds of a load, RTEX * CPU% (eq. 3).
double CpuS(const Load& load);

/// Seconds spent waiting on peripherals (eq. 4, RTEX = CPUS + WAITSEC): RTEX - CPUS.
double WaitS(const Load& load);

/// CPU seconds on M2 of cpuSOnM1 CPU seconds on M1 (eq. 5): CPUS * CPUSPEED[M1] / CPUSPEED[M2].
double CpuSOnM2(double cpuSOnM1, const MachineSpeed& m1, const MachineSpeed& m2);

/// Wait seconds on M2 of waitSOnM1 on M1 (eq. 6): WAITSEC * PERSPEED[M1] / PERSPEED[M2].
double WaitSOnM2(double waitSOnM1, const MachineSpeed& m1, const MachineSpeed& m2);

/// The same calculation moved from M1 to M2: RTEX from eq. 7 and CPU% from eq. 8. Doubling the
/// CPU speed of a load at CPU% 0.5 gives 0.75 of its run time ("only a 25% speed up").
Load MoveLoad(const Load& onM1, const MachineSpeed& m1, const MachineSpeed& m2);

/// Run time in seconds of calculations sharing one machine (eq. 21): those in `parallel` run
/// as threads that soak up each other's idle cycles and cost their CPU seconds; those in
/// `sequential` run one after another and cost their RTEX. Context switches are neglected, as
/// in the paper. Two bounds the paper leaves implicit: the CPU seconds spread over `cores`
/// (>= 1), and the threads take no less than the longest of their own RTEX.
double SharedMachineRtexS(std::span<const Load> parallel, std::span<const Load> sequential,
                          int cores = 1);

/// CPU fraction each of busyRanks CPU-bound ranks gets on a host of `cores` cores: a host gives
/// at most cores x 1 CPU-second per second, shared evenly when ranks oversubscribe it.
/// Requires cores >= 1; 1 when busyRanks <= cores.
double HostCpuShare(int busyRanks, int cores);

/// Highest frame rate, frames per second, a host of `cores` cores can sustain under `demand`:
/// (cores - cpuSPerS) / cpuSPerFrame; 0 when the per-second demand already fills the host,
/// +infinity when nothing on it follows the frame rate.
double HostFpsLimit(const HostDemand& demand, int cores);

}  // namespace bfv::predict
