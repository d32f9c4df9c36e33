#include "common/cpu_quota.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/file_io.h"

namespace bfv::common {

namespace {

namespace fs = std::filesystem;

// A cgroup's cpu.stat as name -> value.
std::map<std::string, double> CpuStat(const fs::path& dir) {
    std::map<std::string, double> stat;
    std::istringstream in(ReadKernelFile((dir / "cpu.stat").string()));
    std::string name;
    double value = 0.0;
    while (in >> name >> value) stat[name] = value;
    return stat;
}

// The quota in cores per period of one cgroup directory, {0, 0} without one. v2: cpu.max
// "QUOTA PERIOD" (µs; "max": none); v1: cpu.cfs_quota_us (-1: none) and cpu.cfs_period_us.
std::pair<double, double> QuotaOf(const fs::path& dir, bool v2) {
    double quotaUs = -1.0, periodUs = 0.0;
    if (v2) {
        std::istringstream in(ReadKernelFile((dir / "cpu.max").string()));
        std::string quota;
        if (in >> quota >> periodUs && quota != "max") quotaUs = std::atof(quota.c_str());
    } else {
        std::istringstream(ReadKernelFile((dir / "cpu.cfs_quota_us").string())) >> quotaUs;
        std::istringstream(ReadKernelFile((dir / "cpu.cfs_period_us").string())) >> periodUs;
    }
    if (quotaUs <= 0.0 || periodUs <= 0.0) return {0.0, 0.0};
    return {quotaUs / periodUs, periodUs * 1e-6};
}

// Where a cgroup is: the controller's mount, the group's path under it, and whether it is a v2
// (unified) group.
struct Group {
    fs::path mount;
    fs::path path;
    bool v2 = false;
};

// The group from /proc/self/cgroup's lines "ID:CONTROLLERS:PATH": the v1 line whose controllers
// include cpu, else the v2 line "0::PATH". An empty mount when neither is mounted under `root`.
Group GroupOf(const std::string& procCgroup, const fs::path& root) {
    std::istringstream in(ReadKernelFile(procCgroup));
    std::string line;
    fs::path unified;
    while (std::getline(in, line)) {
        auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        std::string controllers = line.substr(first + 1, second - first - 1);
        fs::path path = fs::path(line.substr(second + 1)).relative_path();
        if (controllers.empty()) {
            unified = path;
            continue;
        }
        std::istringstream list(controllers);
        for (std::string c; std::getline(list, c, ',');) {
            if (c != "cpu") continue;
            for (const char* mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
                if (fs::exists(root / mount / "cpu.cfs_period_us")) return {root / mount, path};
            }
        }
    }
    for (const fs::path& mount : {root, root / "unified"}) {
        if (fs::exists(mount / "cgroup.controllers")) return {mount, unified, true};
    }
    return {};
}

}  // namespace

CpuQuota ReadCpuQuota(const std::string& procCgroupPath, const std::string& cgroupRoot) {
    CpuQuota q;
    Group group = GroupOf(procCgroupPath, cgroupRoot);
    if (group.mount.empty()) return q;
    // The group and each ancestor up to the mount: the tightest quota binds.
    fs::path dir = group.mount;
    auto tighten = [&](const fs::path& d) {
        auto [cores, periodS] = QuotaOf(d, group.v2);
        if (cores > 0.0 && (q.cores == 0.0 || cores < q.cores)) q = {cores, periodS};
    };
    tighten(dir);
    for (const fs::path& part : group.path) {
        dir /= part;
        tighten(dir);
    }
    std::map<std::string, double> stat = CpuStat(dir);
    q.periods = stat["nr_periods"];
    q.throttledPeriods = stat["nr_throttled"];
    q.throttledS = group.v2 ? stat["throttled_usec"] * 1e-6 : stat["throttled_time"] * 1e-9;
    return q;
}

CpuQuota QuotaSince(const CpuQuota& start, const CpuQuota& now) {
    CpuQuota q = now;
    q.periods = std::max(0.0, now.periods - start.periods);
    q.throttledPeriods = std::max(0.0, now.throttledPeriods - start.throttledPeriods);
    q.throttledS = std::max(0.0, now.throttledS - start.throttledS);
    return q;
}

namespace {
// Read when the program starts, so that ProcessCpuQuota's counters are this process's.
const CpuQuota kQuotaAtStart = ReadCpuQuota();
}  // namespace

CpuQuota ProcessCpuQuota() { return QuotaSince(kQuotaAtStart, ReadCpuQuota()); }

double QuotaCoreShare(double quotaCores) {
    return quotaCores > 0.0 ? std::min(1.0, quotaCores) : 1.0;
}

void SustainedShare::Add(double wallS, double cpuS) {
    frames_.emplace_back(std::max(0.0, wallS), std::max(0.0, cpuS));
    if (frames_.size() > kFrames) frames_.pop_front();
}

double SustainedShare::Share() const {
    double wallS = 0.0, cpuS = 0.0;
    for (const auto& [w, c] : frames_) {
        wallS += w;
        cpuS += c;
    }
    return wallS > 0.0 && cpuS > 0.0 ? std::min(1.0, cpuS / wallS) : 1.0;
}

}  // namespace bfv::common
