#pragma once

#include <map>
#include <string>

#include "common/expected.h"
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
/// "placement" is "fill" (each host's cores in order, as MPICH fills a hostfile) or "round-robin";
/// link paths are relative to the file.
struct MachineFile {
    predict::Machine machine;
    std::map<std::string, predict::LinkProfile> links;
};

/// Reads and checks a machine description and its link profiles; errors name the file and
/// the field ("machine file 'm.json': hosts[1].cores must be a positive integer").
Expected<MachineFile> ReadMachineFile(const std::string& path);

/// Applies an MPICH hostfile (lines "host" or "host:slots", '#' comments) to `machine`:
/// ranks fill the slots in order. Errors name a host the description lacks.
Expected<void> ApplyHostfile(const std::string& path, predict::Machine& machine);

}  // namespace bfv::predict
