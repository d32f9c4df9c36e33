#include "common/interrupt.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace bfv::common {
namespace {

// mpiexec's SIGINT or SIGTERM is sent to the process and may be handled on any of its threads
// (the display's receive threads, the tracer's tile workers, MPI's own), while the main thread
// checks InterruptSignal() every frame: the main thread sees the signal, and (under
// tools/run-tsan-tests.sh) ThreadSanitizer sees no race between the handler and the check.
TEST(Interrupt, ASignalHandledOnAnotherThreadIsSeenByTheMainThread) {
    InstallInterruptHandlers();
    // No wait before the signal: ThreadSanitizer names a race only while it still holds the
    // history of the main thread's first unsynchronised read.
    std::thread receiver([] { pthread_kill(pthread_self(), SIGTERM); });  // handled right here
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (InterruptSignal() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    int seen = InterruptSignal();
    receiver.join();
    std::signal(SIGINT, SIG_DFL);  // the handler already put SIGTERM's back
    EXPECT_EQ(seen, SIGTERM);
    EXPECT_STREQ(SignalName(seen), "SIGTERM");
}

}  // namespace
}  // namespace bfv::common
