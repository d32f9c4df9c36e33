#pragma once

#include <mpi.h>

namespace bfv::common {

// Waits that leave the core to others. MPICH's blocking calls poll the network in a busy loop;
// when ranks share a host's cores (N larger than the core count, as on a workstation), a
// waiting display or terrain server would then take CPU from the ray tracers. These test for
// completion, spinning briefly, then sleeping between tests: kMinPollSleepUs at first,
// doubling to kMaxPollSleepUs as the wait drags on, so that a long wait (the terrain server's
// between frame commands) costs little CPU and a short one little latency. At most
// kMaxPollSleepUs of latency is added to a wait.
inline constexpr int kMinPollSleepUs = 25;
inline constexpr int kMaxPollSleepUs = 500;
inline constexpr int kIdlePollSleepUs = 2000;  // for ranks to which a late wake-up costs nothing
// The terrain server's loop (terrain-server/server_rank.cpp) tests for commands and sends
// between sleeps of its own, kMinPollSleepUs doubling to this: once its sleeps reach it, a
// waiting server tests half as often as a wait above.
inline constexpr int kMaxStreamIdleSleepUs = 1000;

// Each wait takes a time limit, timeoutS (0 or less: none), and says whether it ended because
// the operation completed or because the limit passed first (the operation is then still
// pending; the caller reports the stall). The limit is checked between sleeps, so it is kept
// to within kMaxPollSleepUs. A wait also ends, as if its limit had passed, once the launcher
// has reported a rank lost (peer_loss.h): the caller's error then becomes that rank's.

/// MPI_Wait on `request`, yielding the core while it is pending; sleeps grow to
/// `maxSleepUs` at most. Returns false when `timeoutS` passed first.
bool WaitYielding(MPI_Request& request, double timeoutS = 0.0, int maxSleepUs = kMaxPollSleepUs);

/// MPI_Waitany over `count` requests, yielding while none is complete. Returns the index of
/// the completed request and fills `status`; MPI_UNDEFINED when `timeoutS` passed first.
int WaitAnyYielding(int count, MPI_Request* requests, MPI_Status* status, double timeoutS = 0.0);

/// MPI_Waitall over `count` requests, yielding while any is pending. Returns false when
/// `timeoutS` passed first.
bool WaitAllYielding(int count, MPI_Request* requests, double timeoutS = 0.0);

/// MPI_Probe for a message from `source` with `tag`, yielding until one is there. Returns
/// false when `timeoutS` passed first.
bool ProbeYielding(int source, int tag, MPI_Comm comm, MPI_Status* status, double timeoutS = 0.0);

}  // namespace bfv::common
