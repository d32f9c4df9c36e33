#include "common/interrupt.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
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
// tools/run-tsan-tests.sh) ThreadSanitizer sees no race between the handler and the check (a
// race it names fails the child, with its exit code 66). In a child, like the tests above, so
// that no test process holds an interrupt afterwards, whatever the order the tests run in.
TEST(Interrupt, ASignalHandledOnAnotherThreadIsSeenByTheMainThread) {
    EXPECT_EQ(InChild([] {
                  InstallInterruptHandlers();
                  // No wait before the signal: ThreadSanitizer names a race only while it still
                  // holds the history of the main thread's first unsynchronised read.
                  std::thread receiver([] { pthread_kill(pthread_self(), SIGTERM); });
                  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                  while (InterruptSignal() == 0 && std::chrono::steady_clock::now() < deadline)
                      std::this_thread::yield();
                  int seen = InterruptSignal();
                  receiver.join();
                  ::_exit(seen == SIGTERM && std::string(SignalName(seen)) == "SIGTERM" ? 0 : 1);
              }),
              0);
}

}  // namespace
}  // namespace bfv::common
