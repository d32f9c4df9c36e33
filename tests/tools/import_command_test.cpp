// Runs the real `bfv import` (BFV_BINARY) as a child process and checks exit codes, messages
// and the files it leaves.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/terrain_file.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

const std::string jacksboroPath =
    "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz";

TEST(ImportCommand, BinaryExists) {
    ASSERT_TRUE(fs::exists(BFV_BINARY)) << "build the bfv target first: " << BFV_BINARY;
}

TEST(ImportCommand, ImportsTheJacksboroDem) {
    TempDir dir;
    std::string output = dir.File("jacksboro.bfvt");
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "403 x 344")) << run.out;
    EXPECT_TRUE(Contains(run.out, "236.0 to 1076.0 m")) << run.out;
    Expected<common::Terrain> t = common::ReadTerrainFile(output);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->nx, 403);
    EXPECT_EQ(t->ny, 344);
    EXPECT_EQ(t->name, "jacksboro_fault_dem");
    EXPECT_EQ(dir.EntryCount(), 1);  // no temporary file left
}

TEST(ImportCommand, ForceOverwritesAnExistingOutput) {
    TempDir dir;
    std::string output = dir.File("t.bfvt");
    std::ofstream(output) << "old";
    RunResult run = RunBfv("import --force " + Quote(jacksboroPath) + " " + Quote(output));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(common::ReadTerrainFile(output).ok());
}

TEST(ImportCommand, RefusesToOverwriteWithoutForce) {
    TempDir dir;
    std::string output = dir.File("t.bfvt");
    std::ofstream(output) << "old";
    RunResult run = RunBfv("import " + Quote(jacksboroPath) + " " + Quote(output));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "bfv import: output '" + output + "' already exists")) << run.err;
    EXPECT_EQ(Slurp(output), "old");
}

TEST(ImportCommand, RejectsAnUnknownExtension) {
    TempDir dir;
    std::string input = dir.File("dem.tif");
    std::ofstream(input) << "not really a tiff";
    RunResult run = RunBfv("import " + Quote(input) + " " + Quote(dir.File("t.bfvt")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "bfv import: input '" + input + "': unsupported format '.tif'"))
        << run.err;
    EXPECT_TRUE(Contains(run.err, "supported: .npz")) << run.err;
    EXPECT_EQ(dir.EntryCount(), 1);  // only the input
}

TEST(ImportCommand, RejectsAMissingInput) {
    TempDir dir;
    RunResult run =
        RunBfv("import " + Quote(dir.File("none.npz")) + " " + Quote(dir.File("t.bfvt")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "does not exist")) << run.err;
    EXPECT_EQ(dir.EntryCount(), 0);
}

TEST(ImportCommand, ReportsACorruptInputAndWritesNothing) {
    TempDir dir;
    std::string input = dir.File("bad.npz");
    std::ofstream(input) << "not a zip";
    RunResult run = RunBfv("import " + Quote(input) + " " + Quote(dir.File("t.bfvt")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "bfv import: npz '" + input + "': not a zip archive")) << run.err;
    EXPECT_EQ(dir.EntryCount(), 1);
}

TEST(ImportCommand, HelpShowsAnExample) {
    RunResult run = RunBfv("import --help");
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.out, "bfv import /usr/share/matplotlib")) << run.out;
}

}  // namespace
}  // namespace bfv::tools
