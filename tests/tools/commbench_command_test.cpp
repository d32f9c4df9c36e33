// Runs the real `bfv commbench` under mpiexec: the files it writes, many-to-one with more
// ranks, and bad input (one clear message, non-zero exit, nothing written).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "predict/link_profile.h"
#include "tests/lines.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;
using test_support::Contains;
using test_support::ExpectCleanFailure;
using test_support::Lines;
using test_support::Occurrences;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunBfvMpi;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

TEST(CommbenchCommand, TwoRanksWriteAWellFormedProfileAndSweep) {
    TempDir dir;
    std::string out = dir.File("out");
    RunResult run = RunBfvMpi(2, "commbench --quick --out " + Quote(out), 60);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "MSGSETUP")) << run.out;
    EXPECT_TRUE(Contains(run.err, "size 5 of 5")) << "progress on stderr: " << run.err;
    auto profile = predict::ReadLinkProfile(out + "/link_profile.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;  // every parameter checked positive
    EXPECT_EQ(profile->name, "shm");
    EXPECT_EQ(profile->ranks, 2);
    EXPECT_GT(profile->nHalfBytes, 0);
    EXPECT_GT(profile->ParamsFor(1440).alcbwBytesPerS, 0);
    ASSERT_EQ(profile->manyToOne.size(), 2u) << "one sender, two --quick sizes";
    EXPECT_EQ(profile->manyToOne.front().senders, 1);
    // The CPU of waiting, one point per wait length. The reader checks that the measured waits
    // ascend; how far apart they are is a timing (29 ms for the shortest point on a loaded CI
    // host) and is not asserted.
    ASSERT_GE(profile->waitCost.size(), 3u);
    for (const predict::WaitCostPoint& w : profile->waitCost) {
        EXPECT_GE(w.cpuFraction, 0.0);
        EXPECT_LE(w.cpuFraction, 1.0);
    }
    // The same with the host's cores busy, and the scheduler's tick: a Linux tick is 1-10 ms,
    // but other processes waking on the host (the rest of the suite, run in parallel) make the
    // spinning threads change places sooner, so only its range is checked here. How many busy
    // points ascend is a timing too (on a loaded CI host the shortest waits can all come out
    // longer than the next, and such points are dropped): at least one is measured.
    ASSERT_FALSE(profile->waitCostBusy.empty());
    EXPECT_TRUE(Contains(run.err, "on a host whose cores are busy")) << run.err;
    EXPECT_GT(profile->schedulerTickS, 0.0);
    EXPECT_LT(profile->schedulerTickS, 20e-3);
    EXPECT_TRUE(Contains(run.out, "scheduler tick")) << run.out;
    auto lines = Lines(Slurp(out + "/sweep.csv"));
    ASSERT_EQ(lines.size(), 6u) << "a header and one row per --quick size";
    EXPECT_EQ(lines[0].rfind("msgBytes,reps,oneWayMedianUs", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("200,", 0), 0u) << lines[1];
}

TEST(CommbenchCommand, SizesAndNameAreHonoured) {
    TempDir dir;
    std::string out = dir.File("out");
    // Sizes far apart, so that their times grow clearly even when other tests load the cores
    // (the fit refuses times that do not grow with size).
    RunResult run = RunBfvMpi(
        2, "commbench --quick --name mylink --sizes 65536,1024,1048576 --out " + Quote(out), 60);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto profile = predict::ReadLinkProfile(out + "/link_profile.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    EXPECT_EQ(profile->name, "mylink");
    EXPECT_EQ(profile->segments.front().minBytes, 1024);
    EXPECT_EQ(profile->segments.back().maxBytes, 1048576);
    EXPECT_EQ(Lines(Slurp(out + "/sweep.csv")).size(), 4u);
}

TEST(CommbenchCommand, ThreeRanksMeasureManyToOneWithOneAndTwoSenders) {
    TempDir dir;
    std::string out = dir.File("out");
    RunResult run = RunBfvMpi(3, "commbench --quick --out " + Quote(out), 60);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "many-to-one")) << run.out;
    auto profile = predict::ReadLinkProfile(out + "/link_profile.json");
    ASSERT_TRUE(profile.ok()) << profile.error().message;
    std::set<int> senders;
    for (const predict::ManyToOnePoint& m : profile->manyToOne) {
        senders.insert(m.senders);
        EXPECT_GT(m.aggregateBytesPerS, 0);
        EXPECT_GT(m.receiverCpuFraction, 0);
    }
    EXPECT_EQ(senders, (std::set<int>{1, 2}));
}

TEST(CommbenchCommand, OneRankIsRefusedWithOneMessage) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfvMpi(1, "commbench --quick --out " + Quote(out), 30),
                       "needs at least 2 MPI ranks", out);
}

TEST(CommbenchCommand, BadOptionsFailCleanlyAndWriteNothing) {
    TempDir dir;
    std::string out = dir.File("out");
    ExpectCleanFailure(RunBfvMpi(2, "commbench --sizes 100,abc --out " + Quote(out), 30),
                       "'abc' is not a message size", out);
    ExpectCleanFailure(RunBfvMpi(2, "commbench --sizes 0,10,20 --out " + Quote(out), 30),
                       "'0' is not a message size", out);
    ExpectCleanFailure(RunBfvMpi(2, "commbench --sizes 10,20 --out " + Quote(out), 30),
                       "at least 3 distinct sizes", out);
    ExpectCleanFailure(RunBfvMpi(2, "commbench --target-rse -1 --out " + Quote(out), 30),
                       "--target-rse: must be >= 0.0001 and <= 1, got -1", out);
    // CLI11's own Range let NaN through (every comparison with it is false).
    ExpectCleanFailure(RunBfvMpi(2, "commbench --max-seconds-per-size nan --out " + Quote(out), 30),
                       "--max-seconds-per-size: must be >= 0.001 and <= 3600 s, got nan", out);
    // An --out that cannot be made was found only after the measurements.
    std::string file = dir.File("sweep");
    std::ofstream(file) << "taken";
    ExpectCleanFailure(
        RunBfvMpi(2, "commbench --quick --out " + Quote(file + "/x"), 30),
        "--out '" + file + "/x': '" + file + "' is not a folder, so it cannot be made", out);
}

TEST(CommbenchCommand, HelpShowsTheExamples) {
    RunResult run = RunBfv("commbench --help", 30);
    EXPECT_EQ(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.out, "mpiexec -n 2 bfv commbench --name shm"));
    EXPECT_TRUE(Contains(run.out, "UCX_TLS=tcp,self mpiexec -n 2 bfv commbench --name tcp"));
    EXPECT_TRUE(Contains(run.out, "mpiexec -n 5 bfv commbench"));
}

}  // namespace
}  // namespace bfv::tools
