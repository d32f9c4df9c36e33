#pragma once

#include <map>
#include <string>

#include "common/expected.h"
#include "common/ranges.h"
#include "predict/link_profile.h"
#include "predict/model_cluster.h"

namespace bfv::predict {

/// A machine description as `bfv predict --machine FILE` reads it, with the link profiles it
/// names loaded. The file (JSON):
///   {"name": "lab",
///    "hosts": [{"name": "node", "count": 16, "cores": 1, "cpuSpeed": 1.0, "nics": ["gige"]}],
///    "intraHostLink": "shm", "displayReceiveThreads": 1, "placement": "fill",
///    "links": {"shm": "shm.json", "gige": "gige.json"}}
/// "count" repeats a host as name1..nameN; "capacityCores" (default: cores) is the work the
/// host's cores do together, in single-core units (measured: T threads' throughput over one's);
/// "cpuQuotaCores" (default 0: none) is a CPU limit on the host's ranks together, in cores of CPU
/// time per "quotaPeriodS" (default 0.1 s), as a container's cgroup sets it (cpu.max "200000
/// 100000" is cpuQuotaCores 2, quotaPeriodS 0.1; Docker's --cpus 0.5 is 0.5);
/// "placement" is "fill" (each host's cores in order, as MPICH fills a hostfile) or "round-robin";
/// "switchBytesPerS" (default 0: non-blocking) is a switch backplane every remote transfer shares,
/// which only `bfv predict --simulate` charges; link paths are relative to the file.
struct MachineFile {
    predict::Machine machine;
    std::map<std::string, predict::LinkProfile> links;
};

/// Allowed values of a machine file's hosts (displayReceiveThreads takes --receive-threads'
/// range, common::kReceiveThreadsRange; capacityCores is 0 (= cores) up to cores).
inline constexpr common::Range kHostCoresRange = common::Range::Closed(1.0, 4096.0, "cores");
inline constexpr common::Range kHostCountRange = common::Range::Closed(1.0, 100000.0, "hosts");
/// CPU speed relative to the machine that measured the profile.
inline constexpr common::Range kCpuSpeedRange = common::Range::AboveUpTo(0.0, 1000.0);

/// A shared switch backplane's bandwidth, bytes/s (0: a non-blocking switch); only the
/// simulator (`bfv predict --simulate`) charges it.
inline constexpr common::Range kSwitchRateRange = common::Range::Closed(0.0, 1e15, "bytes/s");

/// Slots of one hostfile line ("host:slots").
inline constexpr common::Range kHostfileSlotsRange = common::Range::Closed(1.0, 4096.0, "slots");

/// Reads and checks a machine description and its link profiles; errors name the file, the
/// field, the allowed range and the value ("machine file 'm.json': hosts[1].cores must be >= 1
/// and <= 4096 cores, got 0").
Expected<MachineFile> ReadMachineFile(const std::string& path);

/// Applies an MPICH hostfile (lines "host" or "host:slots", '#' comments) to `machine`:
/// ranks fill the slots in order. Errors name a host the description lacks, or slots outside
/// kHostfileSlotsRange.
Expected<void> ApplyHostfile(const std::string& path, predict::Machine& machine);

}  // namespace bfv::predict
