#include "predict/resource_profile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace bfv::predict {
namespace {

// A profile as `bfv render --profile` writes it (the seed of fuzz/corpus/resource_profile/).
nlohmann::json ValidProfile() {
    auto calculation = [](double rtexS) {
        return nlohmann::json{
            {"rtexS", rtexS}, {"cpuFraction", 0.5}, {"dvolBytes", 1000.0}, {"msgBytes", 100.0}};
    };
    return {{"bfvResourceProfileVersion", 1},
            {"host", "vm"},
            {"terrain", "jacksboro_fault_dem"},
            {"widthPx", 160},
            {"heightPx", 90},
            {"columnsPerMessage", 16},
            {"framesMeasured", 28},
            {"terrainStreamBytesPerS", 317933.0},
            {"calculations",
             {{"terrainServer", calculation(0.0)},
              {"rayTrace", calculation(0.0014)},
              {"display", calculation(0.0003)}}}};
}

TEST(ResourceProfile, ParsesAValidProfile) {
    auto profile = ParseResourceProfile(ValidProfile(), "p.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->terrainName, "jacksboro_fault_dem");
    EXPECT_EQ(profile->widthPx, 160);
    EXPECT_EQ(profile->framesMeasured, 28);
}

// Found by fuzz/resource_profile_fuzz.cpp: a field of the wrong type threw nlohmann::json's
// type_error out of the parser (and `bfv predict` died in std::terminate).
TEST(ResourceProfile, AFieldOfTheWrongTypeIsAnError) {
    for (const char* field : {"terrain", "host", "framesMeasured", "bfvResourceProfileVersion"}) {
        nlohmann::json doc = ValidProfile();
        doc[field] = field == std::string("terrain") || field == std::string("host")
                         ? nlohmann::json(160)
                         : nlohmann::json("many");
        auto profile = ParseResourceProfile(doc, "p.json");
        ASSERT_FALSE(profile.ok()) << field;
        EXPECT_TRUE(profile.error().message.starts_with("resource profile 'p.json': "))
            << profile.error().message;
    }
}

// Found by fuzz/resource_profile_fuzz.cpp (UBSan): a huge number where an integer belongs was
// converted to int (undefined behaviour) before it was checked.
TEST(ResourceProfile, AHugeNumberWhereAnIntegerBelongsIsAnError) {
    for (const char* field : {"bfvResourceProfileVersion", "framesMeasured"}) {
        nlohmann::json doc = ValidProfile();
        doc[field] = 3.3e34;
        auto profile = ParseResourceProfile(doc, "p.json");
        ASSERT_FALSE(profile.ok()) << field;
        EXPECT_TRUE(profile.error().message.find(field) != std::string::npos)
            << profile.error().message;
    }
}

}  // namespace
}  // namespace bfv::predict
