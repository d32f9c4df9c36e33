#pragma once

#include <mpi.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "common/role.h"

namespace bfv::common {

/// A communicator with this rank's place in it (OSPRay's Group).
struct Group {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 0;
    std::vector<std::string> hosts;  // host (processor) name of every rank; empty if unknown

    /// MPI_COMM_WORLD, with every rank's host name (an MPI_Allgather: collective).
    static Group World();
    Role role() const { return RoleOf(rank, size); }
    int serverRank() const { return 0; }  // the terrain server
    int displayRank() const { return size - 1; }
    int tracerCount() const { return size - 2; }
    int tracerIndex() const { return rank - 1; }           // 0-based, for ray tracers
    int tracerRank(int index) const { return index + 1; }  // rank of ray tracer `index`
    /// "[r3 tracer]": the prefix of every log line this rank writes.
    std::string LogPrefix() const;
    /// "ray tracer rank 2 on host node7": a rank as messages about it name it.
    std::string Describe(int otherRank) const;
};

/// In a job whose ranks span hosts, messages up to this many bytes go eager under UCX
/// (MpiSession sets UCX_RNDV_THRESH to it unless the environment sets it): their bytes go into
/// the link at the send, where UCX's rendezvous protocol, its default above a few KiB over TCP,
/// moves them only while the sender is inside MPI. A tracer is inside MPI only between planes,
/// and a container's CPU quota (cgroup CFS bandwidth) stops it for most of every period: a lone
/// tracer under 0.3 of a core on a 300 Mbit/s link rendered 8.4 FPS with rendezvous columns and
/// 12.7 eager, the link's rate. 256 KiB holds a columns message of 16 columns up to 5,000 rows
/// and every terrain message. On one host UCX's own choice stays: there eager columns measured
/// 7% slower at 1280x720 with more ranks than cores (N = 5, 6).
inline constexpr int kEagerMessageBytes = 256 * 1024;

/// Whether a job's ranks may span hosts: false only when the launcher says that every rank of
/// the job runs on this host (`localRanks`, Hydra's MPI_LOCALNRANKS, equals `worldSize`, its
/// PMI_SIZE; null when unset: unknown, so true).
bool RanksMaySpanHosts(const char* localRanks, const char* worldSize);

/// MPI for the life of one command (RAII): the constructor calls MPI_Init_thread asking for
/// `requested` and sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so that a failing call returns
/// its code to BFV_MPI_CHECK (which names the call and the rank) instead of MPICH's default
/// abort; the destructor calls MPI_Finalize, bounded: when it has not returned within
/// kFinalizeTimeoutS (Debian's MPICH 4.0.2 with UCX 1.13 over TCP can wait forever in it with
/// three or more ranks, openucx/ucx#8738), the process says so on stderr and exits with the
/// code given to Finish (every result is written before MPI_Finalize, and every message was
/// received). Before MPI_Init, when the job's ranks may span hosts (RanksMaySpanHosts), the
/// constructor sets UCX_RNDV_THRESH to kEagerMessageBytes unless the environment already sets
/// it (see there). Only one may exist per process.
class MpiSession {
  public:
    explicit MpiSession(int requested = MPI_THREAD_MULTIPLE);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    const Group& World() const { return world_; }
    /// The thread level MPI gave (MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE).
    int Provided() const { return provided_; }
    /// Error when MPI gave less than `required`, naming both levels and `why` (what needs it).
    Expected<void> RequireThreadLevel(int required, const std::string& why) const;
    /// Records the command's exit code (the one a hung MPI_Finalize exits with) and returns it:
    /// `return mpi.Finish(code);`.
    int Finish(int exitCode) {
        exitCode_ = exitCode;
        return exitCode;
    }

  private:
    Group world_;
    int provided_ = MPI_THREAD_SINGLE;
    int exitCode_ = 1;  // a command that did not say how it ended failed
};

/// How long MPI_Finalize may take before MpiSession exits without it, seconds (a healthy one
/// takes well under a second; the emulated cluster's shim bounded the same wait at 1 s).
inline constexpr double kFinalizeTimeoutS = 5.0;

/// Runs `call` and returns its result. When it has not returned within `timeoutS` seconds, a
/// watchdog thread writes `message` (one line) to stderr and ends the process at once with
/// `exitCode` (std::_Exit: no destructors, no atexit handlers, open files not flushed).
int ReturnWithin(const std::function<int()>& call, double timeoutS, int exitCode,
                 const std::string& message);

/// "MPI_THREAD_MULTIPLE" and so on for a thread level.
const char* ThreadLevelName(int level);

/// Checks an MPI call's return code; on failure prints the call and MPI's message, then ends
/// the whole job (an MPI error leaves the ranks' collectives inconsistent: nothing else is
/// safe).
void CheckMpi(int code, const char* call, const char* file, int line);

/// Ends the whole job with MPI_Abort(comm, errorCode) after a message this rank has just
/// written and flushed to stderr. MPI_Abort has the launcher kill every process at once, and a
/// message still in the pipe to Hydra's proxy is then lost (pmodels/mpich#518), so this first
/// waits kAbortMessageGraceMs for the proxy to forward it.
[[noreturn]] void AbortAfterMessage(MPI_Comm comm, int errorCode);

/// How long AbortAfterMessage lets the launcher forward a message before MPI_Abort, in ms.
inline constexpr int kAbortMessageGraceMs = 500;

}  // namespace bfv::common

#define BFV_MPI_CHECK(call) ::bfv::common::CheckMpi((call), #call, __FILE__, __LINE__)
