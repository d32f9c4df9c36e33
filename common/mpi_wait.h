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

/// MPI_Wait on `request`, yielding the core while it is pending; sleeps grow to
/// `maxSleepUs` at most.
void WaitYielding(MPI_Request& request, int maxSleepUs = kMaxPollSleepUs);

/// MPI_Waitany over `count` requests, yielding while none is complete. Returns the index of
/// the completed request and fills `status`.
int WaitAnyYielding(int count, MPI_Request* requests, MPI_Status* status);

/// MPI_Waitall over `count` requests, yielding while any is pending.
void WaitAllYielding(int count, MPI_Request* requests);

/// MPI_Probe for a message from `source` with `tag`, yielding until one is there.
void ProbeYielding(int source, int tag, MPI_Comm comm, MPI_Status* status);

}  // namespace bfv::common
