#include "common/interrupt.h"

#include <atomic>
#include <csignal>
#include <string>

namespace bfv::common {

namespace {

// Set by the handler on whichever thread the signal lands (process-directed: the main thread,
// a display receive thread, a tile worker, MPI's own), read by the main thread: an atomic, not
// volatile sig_atomic_t, which is safe only within one thread. Lock-free, so async-signal-safe.
std::atomic<int> gSignal = 0;
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnInterrupt(int signal) {
    gSignal.store(signal, std::memory_order_relaxed);
    // The next one of this kind takes the default action (ends the process).
    std::signal(signal, SIG_DFL);
}

}  // namespace

void InstallInterruptHandlers() {
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
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
