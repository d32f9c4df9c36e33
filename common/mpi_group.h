#pragma once

#include <mpi.h>

#include <cstdio>
#include <string>

namespace bfv::common {

/// The role a rank plays in `bfv render` (see ARCHITECTURE.md): rank 0 serves terrain, the
/// last rank displays, every rank between traces rays.
enum class Role { TerrainServer, RayTracer, Display };

/// Role of `rank` in a job of `size` >= 3 ranks.
inline Role RoleOf(int rank, int size) {
    if (rank == 0) return Role::TerrainServer;
    return rank == size - 1 ? Role::Display : Role::RayTracer;
}

/// "server", "tracer" or "display".
const char* RoleName(Role role);

/// A communicator with this rank's place in it (OSPRay's Group).
struct Group {
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int size = 0;

    static Group World();
    Role role() const { return RoleOf(rank, size); }
    int displayRank() const { return size - 1; }
    int tracerCount() const { return size - 2; }
    int tracerIndex() const { return rank - 1; }  // 0-based, for ray tracers
    int tracerRank(int index) const { return index + 1; }  // rank of ray tracer `index`
    /// "[r3 tracer]": the prefix of every log line this rank writes.
    std::string LogPrefix() const;
};

/// Checks an MPI call's return code; on failure prints the call and MPI's message, then ends
/// the whole job (an MPI error leaves the ranks' collectives inconsistent: nothing else is
/// safe).
void CheckMpi(int code, const char* call, const char* file, int line);

}  // namespace bfv::common

#define BFV_MPI_CHECK(call) ::bfv::common::CheckMpi((call), #call, __FILE__, __LINE__)
