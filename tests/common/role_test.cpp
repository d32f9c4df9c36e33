#include "common/role.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace bfv::common {
namespace {

TEST(Role, RanksTakeTheirRoleByPlace) {
    EXPECT_EQ(RoleOf(0, 3), Role::TerrainServer);
    EXPECT_EQ(RoleOf(1, 3), Role::RayTracer);
    EXPECT_EQ(RoleOf(2, 3), Role::Display);
    EXPECT_EQ(RoleOf(3, 5), Role::RayTracer);
}

// report.json and the predictor's JSON name roles as they always did.
TEST(Role, JsonHoldsTheRolesName) {
    EXPECT_EQ(nlohmann::json(Role::TerrainServer), "server");
    EXPECT_EQ(nlohmann::json(Role::RayTracer), "tracer");
    EXPECT_EQ(nlohmann::json(Role::Display), "display");
}

}  // namespace
}  // namespace bfv::common
