#pragma once

#include <vector>

#include "common/expected.h"
#include "common/mpi_group.h"

namespace bfv::common {

// Lost ranks: a rank whose process ends without MPI_Finalize (SIGKILL, the OOM killer, a
// crash). Each rank's process runs under a keeper (pipeline/rank_keeper.h), so that MPICH's
// launcher, Hydra, does not kill every other rank the moment the lost one's PMI socket closes
// or it reaps the lost process. A rank on the same host sees the lost rank's process gone and
// its keeper named kLostKeeperName (the process ids are gathered at start and looked up at
// most every kLocalCheckIntervalS while a rank waits); every wait on another rank then ends
// (mpi_wait.h), and the display, or the terrain server in the display's place, writes the report as
// "lost" naming the rank and ends the job. Hydra's own notice, SIGUSR1 to every process left under
// `mpiexec -disable-auto-cleanup` (pm/pmiserv/pmip_cb.c of MPICH 4.0.2; MPICH's own handler
// only counts it: its ch4 device has no fault-tolerance calls in 4.0), is taken the same way,
// but comes only when the keeper exits. A rank lost on another host than the display's is
// named by the display's stall limit (rank_protocol.h), as a stopped one is.

/// How long a rank that knows of a lost rank but does not write the report leaves the one
/// that does (see ReportingRank) to end the job, before it ends it itself, seconds, under
/// --stall-timeout `stallTimeoutS` (0: never): on one host the reporting rank finds the lost
/// one within kLocalCheckIntervalS; on another host only its stall limit (at most 2.5 times
/// the timeout, rank_protocol.h) names it, so the wait outlasts that limit.
double LostReportWaitS(double stallTimeoutS);

/// The name ("comm", as ps shows it) a rank's keeper takes when a signal has ended the rank
/// (pipeline/rank_keeper.h): how the other ranks on its host tell a lost rank from one that
/// finished.
inline constexpr const char* kLostKeeperName = "bfv rank lost";

/// How often a waiting rank looks up whether a rank on its host has ended, seconds.
inline constexpr double kLocalCheckIntervalS = 0.25;

/// Starts watching for lost ranks of `group` in a run with --stall-timeout `stallTimeoutS`:
/// gathers every rank's process id and its keeper's (an MPI_Allgather: collective), and
/// installs the SIGUSR1 handler (after MPI_Init: MPICH installs its own there, which this one
/// calls in turn). Call once on every rank, before any thread that waits on another rank
/// starts.
void WatchForLostRanks(const Group& group, double stallTimeoutS);

/// LostReportWaitS of the watched run (3 s before WatchForLostRanks).
double LostReportWaitS();

/// Whether a rank is known lost: Hydra sent SIGUSR1, or a rank's process on this host has
/// ended (looked up at most every kLocalCheckIntervalS). Thread-safe and cheap between
/// look-ups: every wait loop calls it. False before WatchForLostRanks.
bool PeerLossReported();

/// The ranks other than this one whose processes ran on this host and were ended by a signal
/// (the process gone or a zombie, its keeper named kLostKeeperName), in rank order; empty when
/// none was (the lost one ran on another host) or before WatchForLostRanks.
std::vector<int> FindLostRanks(const Group& group);

/// The rank that writes the report when the ranks `lost` are lost (empty: unknown ones): the
/// display, or the terrain server when the display is among them.
int ReportingRank(const Group& group, const std::vector<int>& lost);

/// The error of lost ranks: "lost: <role> rank R on host H [and ...] ended without finishing
/// (killed, or it crashed)", or, when `lost` is empty (the lost rank ran on another host),
/// "lost: a rank on another host than <this rank's> ...".
Error LostError(const Group& group, const std::vector<int>& lost);

}  // namespace bfv::common
