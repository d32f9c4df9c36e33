#include "common/mpi_group.h"

namespace bfv::common {

const char* RoleName(Role role) {
    switch (role) {
        case Role::TerrainServer: return "server";
        case Role::RayTracer: return "tracer";
        case Role::Display: return "display";
    }
    return "?";
}

Group Group::World() {
    Group g;
    g.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(g.comm, &g.rank);
    MPI_Comm_size(g.comm, &g.size);
    return g;
}

std::string Group::LogPrefix() const {
    return "[r" + std::to_string(rank) + " " + (size >= 3 ? RoleName(role()) : "rank") + "]";
}

void CheckMpi(int code, const char* call, const char* file, int line) {
    if (code == MPI_SUCCESS) return;
    char message[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, message, &length);
    std::fprintf(stderr, "bfv: MPI call failed at %s:%d: %s: %s\n", file, line, call, message);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

}  // namespace bfv::common
