#pragma once

namespace bfv::common {

// Interrupts: SIGINT and SIGTERM end a render (or an import) cleanly instead of killing it.
// mpiexec (Hydra) forwards both to every rank; the handlers only record the signal, and the
// render loops check it between frames, finish the run (quit to every rank, summaries
// gathered) and write the report with "end": "interrupted". Signals within kRepeatGraceS of
// the first are the same interrupt (Ctrl-C pressed twice, or one Ctrl-C reaching a process
// both from its terminal and from a launcher) and change nothing; one after that ends the
// process at once (the default action), so a run that cannot stop cleanly can still be
// stopped. (Hydra's mpiexec itself answers a second SIGINT by killing the process group of
// every rank's keeper with SIGKILL; the rank, in a group of its own, takes its keeper's death as
// the same interrupt: pipeline/rank_keeper.h, docs/user-guide.md, "How runs end".)

/// Seconds after the first SIGINT or SIGTERM during which more of them are the same interrupt:
/// longer than a clean end takes (0.1-0.2 s at N = 4), shorter than a person waits before
/// pressing Ctrl-C again at a run that does not stop.
inline constexpr double kRepeatGraceS = 2.0;

/// Installs the SIGINT and SIGTERM handlers (idempotent). Call once per process, before the
/// frame loop.
void InstallInterruptHandlers();

/// The signal that interrupted this process (SIGINT or SIGTERM), or 0 when none came.
/// Async-signal-safe to set, cheap to read: the render loops call it every frame.
int InterruptSignal();

/// "SIGINT", "SIGTERM", or "signal N".
const char* SignalName(int signal);

/// The exit code of a run ended by `signal`: 128 + signal (130 for SIGINT), the shell's
/// convention.
inline int InterruptedExitCode(int signal) { return 128 + signal; }

}  // namespace bfv::common
