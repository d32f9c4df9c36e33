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

// The signals Hydra sends a rank's process group (SIGINT, SIGTERM, SIGUSR1, ...) or a user
// might: the rank's to take. The rank has a process group of its own (so that Hydra's force
// abort, SIGKILL to the group, kills the keeper alone), and the keeper passes these on to it.
constexpr int kRankSignals[] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2,
                                SIGHUP, SIGQUIT, SIGCONT, SIGTSTP};

// Ignores kRankSignals: the keeper's start, until Keep passes them on.
void IgnoreRankSignals() {
    for (int number : kRankSignals) std::signal(number, SIG_IGN);
}

// Waits for `child` to end, passing kRankSignals on to it meanwhile, and returns its wait
// status. The signals are taken synchronously (sigwaitinfo, with them and SIGCHLD blocked),
// not by a handler: ThreadSanitizer defers a handler while its process waits in waitpid, and a
// deferred SIGINT never reached the rank. Returns with kRankSignals ignored and unblocked.
int WaitPassingRankSignals(pid_t child) {
    sigset_t waited;
    sigemptyset(&waited);
    for (int number : kRankSignals) sigaddset(&waited, number);
    sigaddset(&waited, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waited, nullptr);
    for (int number : kRankSignals) std::signal(number, SIG_DFL);  // blocked: kept pending
    int status = 0;
    for (;;) {
        pid_t ended = waitpid(child, &status, WNOHANG);
        if (ended == child) break;
        if (ended < 0 && errno != EINTR) std::_Exit(1);
        int signal = sigwaitinfo(&waited, nullptr);  // SIGCHLD: the rank ended (or stopped)
        if (signal > 0 && signal != SIGCHLD) kill(child, signal);
    }
    IgnoreRankSignals();  // drops any still pending
    sigprocmask(SIG_UNBLOCK, &waited, nullptr);
    return status;
}

// In a rank: once its keeper is gone (`fromKeeperFd`, the read end of a pipe whose write end
// only the keeper holds, reads end-of-file), gives the rank kOrphanGraceS to end, then ends
// it. The keeper's death has interrupted the rank (SIGTERM, PR_SET_PDEATHSIG) or came with
// Hydra's force abort after a first Ctrl-C, whose interrupt goes on (the same interrupt,
// common/interrupt.h): either way the rank ends with its report if it can.
void EndRankWhenOrphaned(int fromKeeperFd) {
    std::thread([fromKeeperFd] {
        char byte = 0;
        while (read(fromKeeperFd, &byte, 1) < 0 && errno == EINTR) {
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(kOrphanGraceS));
        std::_Exit(128 + SIGKILL);
    }).detach();
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

// The keeper's life: it passes the rank's signals on to it and exits as its child did. It holds the
// rank's PMI socket open: when a signal ends a rank the others watch (its byte came through
// `fromRankFd`), Hydra learns of it only as the keeper exits, `lingerS` seconds later, by when
// the other ranks have found the rank gone and ended the job with the report. A rank lost
// before that (inside MPI_Init: nobody watches it yet) is passed on at once: the others wait in
// MPI_Init, where only Hydra can end them. Either way the keeper ends by its rank's signal, which
// Hydra acts on every time (an exit of 128 + the signal inside MPI_Init left Hydra's proxy
// spinning, the job never ending, in 2 of 5 runs).
[[noreturn]] void Keep(pid_t child, double lingerS, int fromRankFd) {
    prctl(PR_SET_NAME, "bfv keeper", 0, 0, 0);
    int status = WaitPassingRankSignals(child);
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
    int pipeFds[2] = {-1, -1};    // rank -> keeper: TellKeeperRanksWatch's byte
    int keeperFds[2] = {-1, -1};  // keeper -> rank: end-of-file once the keeper is gone
    auto closePipes = [&] {
        for (int fd : {pipeFds[0], pipeFds[1], keeperFds[0], keeperFds[1]})
            if (fd >= 0) close(fd);
    };
    if (pipe(pipeFds) != 0 || pipe2(keeperFds, O_CLOEXEC) != 0) {
        std::fprintf(stderr,
                     "bfv render: could not make the rank keeper's pipes (%s); running "
                     "without\n",
                     std::strerror(errno));
        closePipes();
        return;
    }
    pid_t keeper = getpid();
    pid_t child = fork();
    if (child < 0) {
        std::fprintf(stderr, "bfv render: could not fork the rank keeper (%s); running without\n",
                     std::strerror(errno));
        closePipes();
        return;
    }
    if (child > 0) {
        IgnoreRankSignals();  // before the exec too, which keeps ignored signals ignored
        close(pipeFds[1]);    // the read end stays open across the exec
        close(keeperFds[0]);
        fcntl(keeperFds[1], F_SETFD, 0);  // held, never written, across the exec
        double lingerS = common::LostReportWaitS(stallTimeoutS) + 1.0;
        std::string pid = std::to_string(child), linger = std::to_string(lingerS),
                    fd = std::to_string(pipeFds[0]);
        execl("/proc/self/exe", "bfv", kKeeperArgument, pid.c_str(), linger.c_str(), fd.c_str(),
              nullptr);
        Keep(child, lingerS, pipeFds[0]);  // without exec (no /proc): keeps it all the same
    }
    close(pipeFds[0]);
    close(keeperFds[1]);
    fcntl(pipeFds[1], F_SETFD, FD_CLOEXEC);
    gToKeeperFd = pipeFds[1];
    // Hydra signals the process group of each process it started, the keeper's, and its clean-up
    // and force abort (a second Ctrl-C) are SIGKILL to that group. In a group of its own the
    // rank outlives its keeper: the keeper's death interrupts it, and it ends with the report
    // (of the first Ctrl-C, whose interrupt goes on), or is ended kOrphanGraceS later. A stopped
    // rank left alone in its group gets SIGHUP from the kernel (an orphaned process group) and
    // ends by it, as with its keeper before: SIGHUP's default action, even under nohup. Its
    // output may have no reader left: a write fails instead of killing it.
    setpgid(0, 0);
    std::signal(SIGHUP, SIG_DFL);
    std::signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (getppid() != keeper) std::_Exit(1);  // the keeper was killed before the line above
    EndRankWhenOrphaned(keeperFds[0]);
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
