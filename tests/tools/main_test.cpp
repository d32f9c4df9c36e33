// Runs the real `bfv` with a command line that names no known subcommand.

#include <gtest/gtest.h>

#include <string>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Contains;
using test_support::Occurrences;
using test_support::RunBfv;
using test_support::RunBfvMpi;
using test_support::RunResult;

TEST(BfvCommand, UnknownCommandIsNamedWithTheValidOnes) {
    RunResult run = RunBfv("frobnicate --frames 3", 30);
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "unknown command 'frobnicate'")) << run.err;
    EXPECT_TRUE(Contains(run.err, "render, import, info, commbench, predict")) << run.err;
}

TEST(BfvCommand, UnknownCommandIsSaidOnceUnderMpiexec) {
    RunResult run = RunBfvMpi(3, "frobnicate", 30);
    EXPECT_NE(run.exitCode, 0);
    EXPECT_EQ(Occurrences(run.err, "unknown command 'frobnicate'"), 1) << run.err;
}

TEST(BfvCommand, KnownCommandsAndOptionsStillParse) {
    EXPECT_EQ(RunBfv("info --help", 30).exitCode, 0);
    RunResult none = RunBfv("", 30);
    EXPECT_NE(none.exitCode, 0);
    EXPECT_TRUE(Contains(none.err, "subcommand is required")) << none.err;
}

// CLI11 alone says "At Most 1 required but received 2"; every command names the option and
// says it was given twice (`bfv info` has no option that takes a value: its --json is a flag,
// which may be repeated).
TEST(BfvCommand, AnOptionGivenTwiceIsNamed) {
    const char* commands[][2] = {
        {"render --frames 3 --frames 4", "bfv render: --frames"},
        {"render -K 2 --receive-threads 3", "bfv render: --receive-threads"},
        {"import --seed 1 --seed 2 in.tif out.bfvp", "bfv import: --seed"},
        {"predict --size 64x36 --size 32x18", "bfv predict: --size"},
        {"commbench --name a --name b", "bfv commbench: --name"}};
    for (const auto& [line, named] : commands) {
        RunResult run = RunBfv(line, 30);
        EXPECT_NE(run.exitCode, 0) << line;
        EXPECT_TRUE(Contains(run.err, std::string(named) + " was given twice; give it once"))
            << line << ": " << run.err;
        EXPECT_FALSE(Contains(run.err, "At Most")) << run.err;
    }
    RunResult thrice = RunBfv("render --frames 3 --frames 4 --frames 5", 30);
    EXPECT_TRUE(Contains(thrice.err, "--frames was given 3 times; give it once")) << thrice.err;
    RunResult mpi = RunBfvMpi(3, "render --frames 3 --frames 4", 30);
    EXPECT_NE(mpi.exitCode, 0);
    EXPECT_EQ(Occurrences(mpi.err, "--frames was given twice"), 1) << mpi.err;
}

// CLI11 read an empty value as 0 (`render --frames ''` rendered 300 frames, `--fov ''` answered
// "got 0") or as no file: every option that takes a value, of every command, refuses it.
TEST(BfvCommand, AnEmptyValueIsRefusedNamingTheOption) {
    const char* commands[][2] = {
        {"render --sequential --headless --frames ''", "bfv render: --frames"},
        {"render --sequential --headless --speed ''", "bfv render: --speed"},
        {"render --sequential --headless --pitch ''", "bfv render: --pitch"},
        {"render --sequential --headless --cache-mib ''", "bfv render: --cache-mib"},
        {"render --sequential --headless --fov ''", "bfv render: --fov"},
        {"render --sequential --headless --exaggeration ''", "bfv render: --exaggeration"},
        {"render --sequential --headless --snow-line ''", "bfv render: --snow-line"},
        {"render --sequential --headless -K ''", "bfv render: --receive-threads"},
        {"render --sequential --headless --record ''", "bfv render: --record"},
        {"import --seed '' in.tif out.bfvp", "bfv import: --seed"},
        {"import --finest-spacing '' in.tif out.bfvp", "bfv import: --finest-spacing"},
        {"predict --target-fps ''", "bfv predict: --target-fps"},
        {"commbench --max-seconds-per-size ''", "bfv commbench: --max-seconds-per-size"},
        {"info ''", "bfv info: FILE"}};
    for (const auto& [line, named] : commands) {
        RunResult run = RunBfv(line, 30);
        EXPECT_NE(run.exitCode, 0) << line;
        EXPECT_EQ(run.err, std::string(named) + " needs a value, got an empty one\n") << line;
    }
}

// `bfv --bogus` answered "A subcommand is required" without naming the flag.
TEST(BfvCommand, AnUnknownFirstOptionIsNamed) {
    RunResult bogus = RunBfv("--bogus", 30);
    EXPECT_NE(bogus.exitCode, 0);
    EXPECT_EQ(bogus.err,
              "bfv: unknown option '--bogus'; give a command first: render, import, info, "
              "commbench, predict (`bfv --help` describes them)\n");
    RunResult misplaced = RunBfv("--frames=3 render", 30);
    EXPECT_NE(misplaced.exitCode, 0);
    EXPECT_EQ(misplaced.err,
              "bfv: --frames is an option of bfv render: give the command first, as in `bfv "
              "render --frames ...`\n");
    EXPECT_EQ(RunBfv("--help", 30).exitCode, 0);
}

}  // namespace
}  // namespace bfv::tools
