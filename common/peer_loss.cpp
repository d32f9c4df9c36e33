#include "common/peer_loss.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "common/file_io.h"
#include "common/instrument.h"

namespace bfv::common {

namespace {

std::atomic<bool> gPeerLost = false;
static_assert(std::atomic<bool>::is_always_lock_free);

// The watched ranks (WatchForLostRanks), written once before any thread reads them: the
// group, and every rank's process id and its parent's (its keeper's, under Hydra).
Group gWatched;
std::vector<int> gPids, gKeeperPids;
std::atomic<bool> gWatching = false;
double gReportWaitS = 3.0;  // LostReportWaitS of the watched run

// LostReportWaitS without a stall limit (--stall-timeout 0): the reporting rank is on this
// host, or no limit will name the lost rank.
constexpr double kNoStallLimitReportWaitS = 3.0;
std::atomic<double> gLastCheckS = 0.0;  // when a waiting rank last looked its host's ranks up

// MPICH's SIGUSR1 handler, called after ours (it counts the notices for its progress engine).
struct sigaction gPrevious {};

extern "C" void OnPeerLoss(int signal, siginfo_t* info, void* context) {
    gPeerLost.store(true, std::memory_order_relaxed);
    if (gPrevious.sa_flags & SA_SIGINFO) {
        if (gPrevious.sa_sigaction != nullptr) gPrevious.sa_sigaction(signal, info, context);
    } else if (gPrevious.sa_handler != SIG_DFL && gPrevious.sa_handler != SIG_IGN &&
               gPrevious.sa_handler != nullptr) {
        gPrevious.sa_handler(signal);
    }
}

// /proc/PID/NAME's text, empty when there is no such process.
std::string ProcFile(int pid, const char* name) {
    return ReadKernelFile("/proc/" + std::to_string(pid) + "/" + name);
}

// Whether process `pid` has ended: it no longer exists, or it is a zombie not yet reaped.
bool ProcessEnded(int pid) {
    std::string text = ProcFile(pid, "stat");
    if (text.empty()) return true;
    std::size_t close = text.rfind(')');
    return close == std::string::npos || close + 2 >= text.size() || text[close + 2] == 'Z' ||
           text[close + 2] == 'X';
}

}  // namespace

double LostReportWaitS(double stallTimeoutS) {
    return stallTimeoutS > 0.0 ? 2.5 * stallTimeoutS + 1.0 : kNoStallLimitReportWaitS;
}

double LostReportWaitS() { return gReportWaitS; }

void WatchForLostRanks(const Group& group, double stallTimeoutS) {
    gReportWaitS = LostReportWaitS(stallTimeoutS);
    gWatched = group;
    int mine[2] = {static_cast<int>(getpid()), static_cast<int>(getppid())};
    std::vector<int> all(2 * static_cast<size_t>(group.size));
    BFV_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, group.comm));
    for (int r = 0; r < group.size; ++r) {
        gPids.push_back(all[2 * static_cast<size_t>(r)]);
        gKeeperPids.push_back(all[2 * static_cast<size_t>(r) + 1]);
    }
    gWatching.store(true);
    struct sigaction action {};
    action.sa_sigaction = OnPeerLoss;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | SA_SIGINFO;
    sigaction(SIGUSR1, &action, &gPrevious);
}

bool PeerLossReported() {
    if (gPeerLost.load(std::memory_order_relaxed)) return true;
    if (!gWatching.load(std::memory_order_relaxed)) return false;
    double nowS = WallClockS(), lastS = gLastCheckS.load(std::memory_order_relaxed);
    if (nowS - lastS < kLocalCheckIntervalS ||
        !gLastCheckS.compare_exchange_strong(lastS, nowS, std::memory_order_relaxed)) {
        return false;
    }
    if (!FindLostRanks(gWatched).empty()) gPeerLost.store(true, std::memory_order_relaxed);
    return gPeerLost.load(std::memory_order_relaxed);
}

std::vector<int> FindLostRanks(const Group& group) {
    std::vector<int> lost;
    if (gPids.size() != static_cast<size_t>(group.size)) return lost;
    for (int r = 0; r < group.size; ++r) {
        if (r == group.rank ||
            group.hosts[static_cast<size_t>(r)] != group.hosts[static_cast<size_t>(group.rank)]) {
            continue;
        }
        // A rank that ended normally is not lost: only a keeper whose rank a signal ended
        // takes the name kLostKeeperName, and waits.
        if (ProcessEnded(gPids[static_cast<size_t>(r)]) &&
            ProcFile(gKeeperPids[static_cast<size_t>(r)], "comm") ==
                std::string(kLostKeeperName) + "\n") {
            lost.push_back(r);
        }
    }
    return lost;
}

int ReportingRank(const Group& group, const std::vector<int>& lost) {
    bool displayLost = std::find(lost.begin(), lost.end(), group.displayRank()) != lost.end();
    return displayLost ? group.serverRank() : group.displayRank();
}

Error LostError(const Group& group, const std::vector<int>& lost) {
    const std::string how = "ended without finishing (killed, or it crashed)";
    if (lost.empty())
        return Error{"lost: a rank on another host than " + group.Describe(group.rank) + " " + how};
    std::string who;
    for (size_t k = 0; k < lost.size(); ++k)
        who += (k == 0 ? "" : " and ") + group.Describe(lost[k]);
    return Error{"lost: " + who + " " + how};
}

}  // namespace bfv::common
