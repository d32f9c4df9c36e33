#include "common/interrupt.h"

#include <csignal>
#include <string>

namespace bfv::common {

namespace {

volatile std::sig_atomic_t gSignal = 0;

extern "C" void OnInterrupt(int signal) {
    gSignal = signal;
    // The next one of this kind takes the default action (ends the process).
    std::signal(signal, SIG_DFL);
}

}  // namespace

void InstallInterruptHandlers() {
    std::signal(SIGINT, OnInterrupt);
    std::signal(SIGTERM, OnInterrupt);
}

int InterruptSignal() { return gSignal; }

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
