#include "pipeline/rank_keeper.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <thread>

#include "common/mpi_group.h"
#include "common/peer_loss.h"

namespace bfv::pipeline {

namespace {

// The line a keeper writes when `signal` ended its rank, process `child`: which rank, as the
// ranks name each other (Group::Describe).
void SayLost(pid_t child, int signal) {
    const char* rank = std::getenv("PMI_RANK");
    const char* size = std::getenv("PMI_SIZE");
    common::Group group;
    group.rank = rank ? std::atoi(rank) : -1;
    group.size = size ? std::atoi(size) : 0;
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    group.hosts.assign(static_cast<std::size_t>(std::max(group.size, 0)), host);
    const char* name = sigabbrev_np(signal);
    std::fprintf(stderr, "%s bfv render: lost: %s (pid %d) was ended by SIG%s\n",
                 group.size >= 3 ? group.LogPrefix().c_str() : "",
                 group.Describe(group.rank).c_str(), static_cast<int>(child), name ? name : "?");
    std::fflush(stderr);
}

// Every signal Hydra sends a rank's process group (SIGINT, SIGTERM, SIGUSR1, ...) is the rank's
// to take: the keeper ignores them.
void IgnoreRankSignals() {
    for (int number : {SIGINT, SIGTERM, SIGUSR1, SIGHUP, SIGQUIT}) std::signal(number, SIG_IGN);
}

// The keeper's life: it ignores the rank's signals and exits as its child did. It holds the
// rank's PMI socket open: when a signal ends the rank, Hydra learns of it only as the keeper
// exits, `lingerS` seconds later, by when the other ranks have found the rank gone and ended
// the job with the report.
[[noreturn]] void Keep(pid_t child, double lingerS) {
    prctl(PR_SET_NAME, "bfv keeper", 0, 0, 0);
    IgnoreRankSignals();
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) std::_Exit(1);
    }
    if (!WIFSIGNALED(status)) std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    prctl(PR_SET_NAME, common::kLostKeeperName, 0, 0, 0);  // how the other ranks tell
    SayLost(child, WTERMSIG(status));
    std::this_thread::sleep_for(std::chrono::duration<double>(lingerS));
    std::_Exit(128 + WTERMSIG(status));
}

}  // namespace

void KeepRankProcess(double stallTimeoutS) {
    const char* pmiFd = std::getenv("PMI_FD");
    const char* setting = std::getenv("BFV_RANK_KEEPER");
    if (pmiFd == nullptr || (setting != nullptr && std::strcmp(setting, "0") == 0)) return;
    std::fflush(nullptr);
    pid_t keeper = getpid();
    pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "bfv render: could not fork the rank keeper (%s); running without\n",
                     std::strerror(errno));
        return;
    }
    if (child > 0) {
        IgnoreRankSignals();  // before the exec too, which keeps ignored signals ignored
        double lingerS = common::LostReportWaitS(stallTimeoutS) + 1.0;
        std::string pid = std::to_string(child), linger = std::to_string(lingerS);
        execl("/proc/self/exe", "bfv", kKeeperArgument, pid.c_str(), linger.c_str(), nullptr);
        Keep(child, lingerS);  // without exec (no /proc): keeps it all the same
    }
    // Hydra's clean-up kills the processes it started, the keepers: the rank goes with its own.
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != keeper) std::_Exit(1);  // the keeper was killed before the line above
}

void RunKeeperIfAsked(int argc, char** argv) {
    if (argc != 4 || std::strcmp(argv[1], kKeeperArgument) != 0) return;
    Keep(static_cast<pid_t>(std::atol(argv[2])), std::atof(argv[3]));
}

}  // namespace bfv::pipeline
