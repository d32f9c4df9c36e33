#include "predict/model_machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "predict/model_validate.h"

namespace bfv::predict {

Expected<void> ValidateMachineSpeed(const MachineSpeed& speed, std::string_view name) {
    const std::string context = fmt::format("machine '{}'", name);
    return FirstError({RequirePositive(context, "cpuSpeed", speed.cpuSpeed),
                       RequirePositive(context, "perSpeed", speed.perSpeed)});
}

Expected<void> ValidateLoad(const Load& load, std::string_view name) {
    const std::string context = fmt::format("load '{}'", name);
    return FirstError({RequireNonNegative(context, "rtexS", load.rtexS),
                       RequireFraction(context, "cpuFraction", load.cpuFraction)});
}

double CpuS(const Load& load) { return load.rtexS * load.cpuFraction; }

double WaitS(const Load& load) { return load.rtexS - CpuS(load); }

double CpuSOnM2(double cpuSOnM1, const MachineSpeed& m1, const MachineSpeed& m2) {
    return cpuSOnM1 * m1.cpuSpeed / m2.cpuSpeed;
}

double WaitSOnM2(double waitSOnM1, const MachineSpeed& m1, const MachineSpeed& m2) {
    return waitSOnM1 * m1.perSpeed / m2.perSpeed;
}

Load MoveLoad(const Load& onM1, const MachineSpeed& m1, const MachineSpeed& m2) {
    const double cpuS = CpuSOnM2(CpuS(onM1), m1, m2);     // eq. 5
    const double waitS = WaitSOnM2(WaitS(onM1), m1, m2);  // eq. 6
    const double rtexS = cpuS + waitS;                    // eq. 4, giving eq. 7
    return {rtexS, rtexS > 0.0 ? cpuS / rtexS : 0.0};     // eq. 8
}

double SharedMachineRtexS(std::span<const Load> parallel, std::span<const Load> sequential,
                          int cores) {
    double threadCpuS = 0.0;
    double longestThreadS = 0.0;
    for (const Load& load : parallel) {
        threadCpuS += CpuS(load);
        longestThreadS = std::max(longestThreadS, load.rtexS);
    }
    double sequenceS = 0.0;
    for (const Load& load : sequential) sequenceS += load.rtexS;
    return std::max(threadCpuS / std::max(cores, 1), longestThreadS) + sequenceS;
}

double HostCpuShare(int busyRanks, int cores) {
    if (busyRanks <= cores) return 1.0;
    return static_cast<double>(cores) / busyRanks;
}

double HostFpsLimit(const HostDemand& demand, int cores) {
    const double spareCpuSPerS = cores - demand.cpuSPerS;
    if (spareCpuSPerS <= 0.0) return 0.0;
    if (demand.cpuSPerFrame <= 0.0) return std::numeric_limits<double>::infinity();
    return spareCpuSPerS / demand.cpuSPerFrame;
}

}  // namespace bfv::predict
