// Reading a JSON file and taking numbers out of it, with errors that name the file or field.

#include "common/json_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/expected_error.h"
#include "tests/temp_dir.h"

namespace bfv::common {
namespace {

using test_support::ErrorOf;
using test_support::TempDir;

TEST(JsonFile, ReadsAndParsesAFile) {
    TempDir dir;
    std::string path = dir.File("m.json");
    std::ofstream(path) << R"({"name": "m2", "cores": [4, 8]})";
    Expected<nlohmann::json> doc = ReadJsonFile(path, "machine file");
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    EXPECT_EQ((*doc)["name"], "m2");
    EXPECT_EQ((*doc)["cores"][1], 8);
}

TEST(JsonFile, AMissingFileIsNamedWithWhatItIsFor) {
    TempDir dir;
    std::string path = dir.File("none.json");
    EXPECT_EQ(ErrorOf(ReadJsonFile(path, "flight file")),
              "flight file '" + path + "': cannot open it");
}

TEST(JsonFile, TextThatIsNotJsonIsNamed) {
    TempDir dir;
    std::string path = dir.File("bad.json");
    for (const char* text : {"{\"a\": 1,", "not json", "", "[1e999]"}) {
        std::ofstream(path, std::ios::trunc) << text;
        EXPECT_EQ(ErrorOf(ReadJsonFile(path, "profile")), "profile '" + path + "': not valid JSON")
            << text;
    }
}

TEST(JsonFile, NumberInRangeIsTaken) {
    Expected<double> v = JsonNumberIn(nlohmann::json(2.5), "cpuSpeed", Range::Positive());
    ASSERT_TRUE(v.ok()) << v.error().message;
    EXPECT_EQ(*v, 2.5);
    EXPECT_EQ(*JsonNumberIn(nlohmann::json(7), "n", Range::Closed(1, 10)), 7.0);
}

TEST(JsonFile, NumberOutOfRangeOrNotANumberIsNamed) {
    EXPECT_EQ(ErrorOf(JsonNumberIn(nlohmann::json(-3), "\"bytesPerS\"",
                                   Range::AboveUpTo(0, 1000, "B/s"))),
              "\"bytesPerS\" must be > 0 and <= 1000 B/s, got -3");
    EXPECT_EQ(ErrorOf(JsonNumberIn(nlohmann::json("fast"), "\"bytesPerS\"", Range::Positive())),
              "\"bytesPerS\" must be a number");
    EXPECT_EQ(ErrorOf(JsonNumberIn(nlohmann::json(), "x", Range::Positive())),
              "x must be a number");
    EXPECT_EQ(ErrorOf(JsonNumberIn(nlohmann::json(true), "x", Range::Positive())),
              "x must be a number");
}

TEST(JsonFile, IntegerMustBeWholeAndInRange) {
    Expected<int> cores = JsonIntegerIn(nlohmann::json(16), "cores", Range::Closed(1, 1024));
    ASSERT_TRUE(cores.ok()) << cores.error().message;
    EXPECT_EQ(*cores, 16);
    EXPECT_EQ(*JsonIntegerIn(nlohmann::json(3.0), "cores", Range::Closed(1, 1024)), 3);
    EXPECT_EQ(ErrorOf(JsonIntegerIn(nlohmann::json(2.5), "cores", Range::Closed(1, 1024))),
              "cores must be a whole number, got 2.5");
    EXPECT_EQ(ErrorOf(JsonIntegerIn(nlohmann::json(0), "cores", Range::Closed(1, 1024))),
              "cores must be >= 1 and <= 1024, got 0");
    EXPECT_EQ(ErrorOf(JsonIntegerIn(nlohmann::json("4"), "cores", Range::Closed(1, 1024))),
              "cores must be a number");
}

// A misspelt key is named with the known one it is a slip of, when one is near enough.
TEST(JsonFile, AnUnknownKeyIsNamedWithTheClosestKnownOne) {
    nlohmann::json doc = {{"speedMph", 60}, {"loop", true}};
    EXPECT_EQ(ErrorOf(JsonKnownKeys(doc, "flight", {"loop", "speedMPerS"})),
              "flight has an unknown key \"speedMph\" (did you mean \"speedMPerS\"?); the keys "
              "are: loop, speedMPerS");
    EXPECT_EQ(ErrorOf(JsonKnownKeys(nlohmann::json{{"colour", 1}}, "x", {"loop", "speedMPerS"})),
              "x has an unknown key \"colour\"; the keys are: loop, speedMPerS");
    EXPECT_TRUE(JsonKnownKeys(doc, "flight", {"loop", "speedMph"}).ok());
    EXPECT_TRUE(JsonKnownKeys(nlohmann::json::array(), "x", {"a"}).ok()) << "not an object";
    EXPECT_EQ(ClosestKey("CPUSPEED", {"cores", "cpuSpeed"}), "cpuSpeed") << "case is a slip";
    EXPECT_EQ(ClosestKey("nic", {"nics", "name"}), "nics");
    EXPECT_EQ(ClosestKey("rateMbit", {"nics", "name", "cores"}), "");
}

}  // namespace
}  // namespace bfv::common
