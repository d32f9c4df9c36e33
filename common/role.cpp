#include "common/role.h"

#include <nlohmann/json.hpp>

namespace bfv::common {

const char* RoleName(Role role) {
    switch (role) {
        case Role::TerrainServer:
            return "server";
        case Role::RayTracer:
            return "tracer";
        case Role::Display:
            return "display";
    }
    return "?";
}

void to_json(nlohmann::json& j, Role role) { j = RoleName(role); }

}  // namespace bfv::common
