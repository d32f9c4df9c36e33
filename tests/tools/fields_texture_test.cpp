// tools/fields-texture.py: the synthetic imagery the README drapes over the shipped terrain.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Quote;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

std::string FieldsTexture() { return test_support::PythonScript("tools/fields-texture.py"); }

TEST(FieldsTexture, WritesAPatchworkPpmTheSameForASeed) {
    TempDir dir;
    RunResult run =
        RunCommand(FieldsTexture() + " --side 64 --cells 4 " + Quote(dir.File("a.ppm")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::string image = Slurp(dir.File("a.ppm"));
    const std::string header = "P6\n64 64\n255\n";
    ASSERT_EQ(image.size(), header.size() + 64 * 64 * 3);
    EXPECT_EQ(image.substr(0, header.size()), header);
    std::set<std::tuple<int, int, int>> colours;  // the parcels' colours, grain rounded off
    for (std::size_t p = header.size(); p < image.size(); p += 3) {
        colours.insert({static_cast<unsigned char>(image[p]) / 20,
                        static_cast<unsigned char>(image[p + 1]) / 20,
                        static_cast<unsigned char>(image[p + 2]) / 20});
    }
    EXPECT_GT(colours.size(), 3u) << "several crops, not one colour";
    ASSERT_EQ(
        RunCommand(FieldsTexture() + " --side 64 --cells 4 " + Quote(dir.File("b.ppm"))).exitCode,
        0);
    EXPECT_EQ(Slurp(dir.File("b.ppm")), image);
}

TEST(FieldsTexture, RefusesMoreParcelsThanPixels) {
    TempDir dir;
    RunResult run = RunCommand(FieldsTexture() + " --side 8 --cells 9 " + Quote(dir.File("a.ppm")));
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("need 1 <= --cells <= --side"), std::string::npos) << run.err;
    EXPECT_EQ(dir.EntryCount(), 0);
}

}  // namespace
}  // namespace bfv::tools
