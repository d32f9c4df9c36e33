#include "pipeline/launcher.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace bfv::pipeline {

namespace {

// The environment a launcher gives each process: its rank and the number of processes.
struct LauncherVariables {
    const char* rank;
    const char* size;
};

constexpr LauncherVariables kLaunchers[] = {{"PMI_RANK", "PMI_SIZE"},
                                            {"SLURM_PROCID", "SLURM_NTASKS"},
                                            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}};

// The launcher that started this process, or null without one.
const LauncherVariables* Launcher() {
    for (const LauncherVariables& launcher : kLaunchers) {
        if (std::getenv(launcher.rank)) return &launcher;
    }
    return nullptr;
}

}  // namespace

bool IsLeadProcess() {
    const LauncherVariables* launcher = Launcher();
    return !launcher || std::string(std::getenv(launcher->rank)) == "0";
}

int LaunchedProcesses() {
    const LauncherVariables* launcher = Launcher();
    const char* size = launcher ? std::getenv(launcher->size) : nullptr;
    return size ? std::max(1, std::atoi(size)) : 1;
}

}  // namespace bfv::pipeline
