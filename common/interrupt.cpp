#include "common/interrupt.h"

#include <time.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <string>

namespace bfv::common {

namespace {

// Set by the handler on whichever thread the signal lands (process-directed: the main thread,
// a display receive thread, a tile worker, MPI's own), read by the main thread: an atomic, not
// volatile sig_atomic_t, which is safe only within one thread. Lock-free, so async-signal-safe.
std::atomic<int> gSignal = 0;
static_assert(std::atomic<int>::is_always_lock_free);

// When the first signal came, CLOCK_MONOTONIC nanoseconds (0: none yet).
std::atomic<std::int64_t> gFirstSignalNs = 0;
static_assert(std::atomic<std::int64_t>::is_always_lock_free);

/// CLOCK_MONOTONIC in nanoseconds (clock_gettime is async-signal-safe, POSIX.1-2008).
std::int64_t MonotonicNs() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

extern "C" void OnInterrupt(int signal) {
    std::int64_t nowNs = MonotonicNs();
    std::int64_t firstNs = 0;
    if (gFirstSignalNs.compare_exchange_strong(firstNs, nowNs)) {
        gSignal.store(signal, std::memory_order_relaxed);
        return;
    }
    if (nowNs - firstNs < static_cast<std::int64_t>(kRepeatGraceS * 1e9)) return;  // the same
    std::signal(signal, SIG_DFL);  // a later one ends the process, as without a handler
    std::raise(signal);
}

}  // namespace

void InstallInterruptHandlers() {
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

int InterruptSignal() { return gSignal.load(std::memory_order_relaxed); }

const char* SignalName(int signal) {
    switch (signal) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
    }
    thread_local std::string name;
    name = "signal " + std::to_string(signal);
    return name.c_str();
}

}  // namespace bfv::common
