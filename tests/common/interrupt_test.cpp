#include "common/interrupt.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace bfv::common {
namespace {

/// Runs `body` in a child process and returns how it ended: its exit code, or 128 + the signal
/// that killed it.
int InChild(void (*body)()) {
    pid_t child = ::fork();
    if (child == 0) {
        body();
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Ctrl-C pressed twice within the grace (or one Ctrl-C delivered twice) is one interrupt: the
// process lives on to end cleanly, and the first signal is the one reported.
TEST(Interrupt, SignalsWithinTheGraceAreTheSameInterrupt) {
    EXPECT_EQ(InChild([] {
                  InstallInterruptHandlers();
                  std::raise(SIGINT);
                  std::raise(SIGINT);
                  std::raise(SIGTERM);
                  ::_exit(InterruptSignal() == SIGINT ? 0 : 1);
              }),
              0);
}

// A signal after the grace ends the process at once, as without a handler: a run that cannot
// stop cleanly can still be stopped.
TEST(Interrupt, ASignalAfterTheGraceEndsTheProcess) {
    EXPECT_EQ(InChild([] {
                  InstallInterruptHandlers();
                  std::raise(SIGINT);
                  std::this_thread::sleep_for(std::chrono::duration<double>(kRepeatGraceS + 0.1));
                  std::raise(SIGINT);
              }),
              128 + SIGINT);
}

// mpiexec's SIGINT or SIGTERM is sent to the process and may be handled on any of its threads
// (the display's receive threads, the tracer's tile workers, MPI's own), while the main thread
// checks InterruptSignal() every frame: the main thread sees the signal, and (under
// tools/run-tsan-tests.sh) ThreadSanitizer sees no race between the handler and the check.
// It runs in the test process itself, which then holds an interrupt: it comes last, after the
// tests whose children would inherit that (they failed when the binary ran as a whole).
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
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    EXPECT_EQ(seen, SIGTERM);
    EXPECT_STREQ(SignalName(seen), "SIGTERM");
}

}  // namespace
}  // namespace bfv::common
