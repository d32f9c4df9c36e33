#include "pipeline/rank_keeper.h"

#include <fcntl.h>
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

// The write end of the pipe from a rank to its keeper (-1: none): TellKeeperRanksWatch.
int gToKeeperFd = -1;

// Whether the rank wrote its byte to the pipe `fromRankFd` (TellKeeperRanksWatch) before it
// ended.
bool RankWasWatched(int fromRankFd) {
    char byte = 0;  // never blocks: a process the rank forked may hold the write end still
    return fromRankFd >= 0 && fcntl(fromRankFd, F_SETFL, O_NONBLOCK) == 0 &&
           read(fromRankFd, &byte, 1) == 1;
}

// The keeper's life: it ignores the rank's signals and exits as its child did. It holds the
// rank's PMI socket open: when a signal ends a rank the others watch (its byte came through
// `fromRankFd`), Hydra learns of it only as the keeper exits, `lingerS` seconds later, by when
// the other ranks have found the rank gone and ended the job with the report. A rank lost
// before that (inside MPI_Init: nobody watches it yet) is passed on at once: the others wait in
// MPI_Init, where only Hydra can end them. Either way the keeper ends by its rank's signal, which
// Hydra acts on every time (an exit of 128 + the signal inside MPI_Init left Hydra's proxy
// spinning, the job never ending, in 2 of 5 runs).
[[noreturn]] void Keep(pid_t child, double lingerS, int fromRankFd) {
    prctl(PR_SET_NAME, "bfv keeper", 0, 0, 0);
    IgnoreRankSignals();
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) std::_Exit(1);
    }
    if (!WIFSIGNALED(status)) std::_Exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    prctl(PR_SET_NAME, common::kLostKeeperName, 0, 0, 0);  // how the other ranks tell
    SayLost(child, WTERMSIG(status));
    if (RankWasWatched(fromRankFd))
        std::this_thread::sleep_for(std::chrono::duration<double>(lingerS));
    std::signal(WTERMSIG(status), SIG_DFL);  // ends as its rank did: Hydra ends the job on it
    std::raise(WTERMSIG(status));
    std::_Exit(128 + WTERMSIG(status));
}

}  // namespace

void KeepRankProcess(double stallTimeoutS) {
    const char* pmiFd = std::getenv("PMI_FD");
    const char* setting = std::getenv("BFV_RANK_KEEPER");
    if (pmiFd == nullptr || (setting != nullptr && std::strcmp(setting, "0") == 0)) return;
    std::fflush(nullptr);
    int pipeFds[2] = {-1, -1};  // rank -> keeper: TellKeeperRanksWatch's byte
    if (pipe(pipeFds) != 0) {
        std::fprintf(stderr,
                     "bfv render: could not make the rank keeper's pipe (%s); running "
                     "without\n",
                     std::strerror(errno));
        return;
    }
    pid_t keeper = getpid();
    pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "bfv render: could not fork the rank keeper (%s); running without\n",
                     std::strerror(errno));
        close(pipeFds[0]);
        close(pipeFds[1]);
        return;
    }
    if (child > 0) {
        IgnoreRankSignals();  // before the exec too, which keeps ignored signals ignored
        close(pipeFds[1]);    // the read end stays open across the exec
        double lingerS = common::LostReportWaitS(stallTimeoutS) + 1.0;
        std::string pid = std::to_string(child), linger = std::to_string(lingerS),
                    fd = std::to_string(pipeFds[0]);
        execl("/proc/self/exe", "bfv", kKeeperArgument, pid.c_str(), linger.c_str(), fd.c_str(),
              nullptr);
        Keep(child, lingerS, pipeFds[0]);  // without exec (no /proc): keeps it all the same
    }
    close(pipeFds[0]);
    fcntl(pipeFds[1], F_SETFD, FD_CLOEXEC);
    gToKeeperFd = pipeFds[1];
    // Hydra's clean-up kills the processes it started, the keepers: the rank goes with its own.
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != keeper) std::_Exit(1);  // the keeper was killed before the line above
}

void TellKeeperRanksWatch() {
    if (gToKeeperFd < 0) return;
    const char byte = 1;
    if (write(gToKeeperFd, &byte, 1) != 1) {
        std::fprintf(stderr, "bfv render: could not tell the rank keeper (%s)\n",
                     std::strerror(errno));
    }
    close(gToKeeperFd);
    gToKeeperFd = -1;
}

void RunKeeperIfAsked(int argc, char** argv) {
    if (argc != 5 || std::strcmp(argv[1], kKeeperArgument) != 0) return;
    Keep(static_cast<pid_t>(std::atol(argv[2])), std::atof(argv[3]), std::atoi(argv[4]));
}

}  // namespace bfv::pipeline
