#pragma once

namespace bfv::common {

// Interrupts: SIGINT and SIGTERM end a render cleanly instead of killing it. mpiexec (Hydra)
// forwards both to every rank; the handlers only record the signal, and the render loops
// check it between frames, finish the run (quit to every rank, summaries gathered) and write
// the report with "end": "interrupted". A second signal of the same kind kills the process
// as before, so a run that cannot stop cleanly can still be stopped.

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
