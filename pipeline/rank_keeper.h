#pragma once

namespace bfv::pipeline {

// The rank keeper. MPICH's Hydra (4.0.2, pm/pmiserv/pmip.c and pmip_cb.c) kills every process
// it started on a host, by process group, as soon as a rank's PMI socket closes without
// MPI_Finalize, or as soon as it reaps a process that a signal ended, even under
// `mpiexec -disable-auto-cleanup` for the latter: a SIGKILLed rank (the OOM killer, a kill -9)
// took the others with it before any could say a word. So under mpiexec each rank's process
// forks before MPI_Init: the parent, the keeper ("bfv keeper" in ps), only waits for its
// child, the rank, holding the rank's PMI socket open. When a signal ends the rank, the keeper
// names it on stderr; the other ranks find it gone (common/peer_loss.h) and end the job with
// the report; the keeper exits with 128 + the signal, an ordinary failed exit to Hydra, once
// they have had the time to (common::LostReportWaitS, plus a second); a rank lost before the
// others watch it (TellKeeperRanksWatch: inside MPI_Init) is passed on at once. Otherwise the
// keeper exits with its rank's code. Hydra signals the keeper's process group; the rank, in a
// group of its own, gets those signals from the keeper, so that Hydra's force abort (a second
// Ctrl-C to mpiexec: SIGKILL to every group it started) kills the keepers alone. A rank whose
// keeper is gone is interrupted (SIGTERM, PR_SET_PDEATHSIG; after a first Ctrl-C, the same
// interrupt), ends with the report if it can, and ends itself kOrphanGraceS after its keeper
// if it has not by then, so Hydra's clean-up still ends every rank.

/// How long a rank outlives its keeper at most, seconds: longer than a clean end with its
/// report takes (0.1-0.2 s at N = 4), short enough that a job Hydra force-aborts still ends
/// at once to the user.
inline constexpr double kOrphanGraceS = 2.0;

/// Under Hydra (PMI_FD set) and with the keeper not turned off (BFV_RANK_KEEPER=0): forks; in
/// the parent never returns (it exits as described above; `stallTimeoutS` is --stall-timeout,
/// 0: never), in the child returns. The parent execs bfv anew as the keeper (kKeeperArgument),
/// so that it shares no memory with the rank: a write to a page the two shared costs the rank a
/// copy and a TLB shoot-down, which at exit alone added 0.17 s. Call before MPI_Init and before
/// any thread starts. Elsewhere does nothing.
void KeepRankProcess(double stallTimeoutS);

/// In a rank under a keeper, once every rank watches this one (common::WatchForLostRanks):
/// tells the keeper, which from then on lingers after the rank's loss so that the others can
/// report it; before, it passes the loss on to Hydra at once. Call once; elsewhere does nothing.
void TellKeeperRanksWatch();

/// The first argument of bfv exec'd as a keeper:
/// `bfv --rank-keeper CHILD_PID LINGER_S PIPE_FD` (PIPE_FD: TellKeeperRanksWatch's read end).
inline constexpr const char* kKeeperArgument = "--rank-keeper";

/// When `argv` is a keeper's (kKeeperArgument), keeps that child (never returns); else does
/// nothing. Call first in main.
void RunKeeperIfAsked(int argc, char** argv);

}  // namespace bfv::pipeline
