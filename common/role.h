#pragma once

#include <nlohmann/json_fwd.hpp>

namespace bfv::common {

/// The role a rank plays in `bfv render` (see the README): rank 0 serves terrain, the
/// last rank displays, every rank between traces rays. The predictor's ranks take it too.
enum class Role { TerrainServer, RayTracer, Display };

/// Role of `rank` in a job of `size` >= 3 ranks.
inline Role RoleOf(int rank, int size) {
    if (rank == 0) return Role::TerrainServer;
    return rank == size - 1 ? Role::Display : Role::RayTracer;
}

/// "server", "tracer" or "display".
const char* RoleName(Role role);

/// A role in JSON: its RoleName.
void to_json(nlohmann::json& j, Role role);

}  // namespace bfv::common
