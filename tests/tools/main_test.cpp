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

}  // namespace
}  // namespace bfv::tools
