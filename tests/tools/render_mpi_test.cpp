// The distributed renderer draws exactly what the single-process program draws: for every
// rank count, screen decomposition and number of display receive threads, every frame's
// checksum equals the --sequential render's.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Quote;
using test_support::RunBfv;
using test_support::RunBfvMpi;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

// A view that shows sky, near and far terrain (several mip levels) in 10 frames; 7 columns
// per message so that messages do not divide the slices evenly.
const std::string kFlight =
    "render --headless --frames 10 --size 320x180 --pitch -12 --agl 500 --png-every 0 "
    "--columns-per-message 7 ";

class RenderMatchesSequential
    : public ::testing::TestWithParam<std::tuple<int, std::string, int>> {
protected:
    static void SetUpTestSuite() {
        TempDir dir;
        RunResult run = RunBfv(kFlight + "--sequential --out " + Quote(dir.File("out")));
        ASSERT_EQ(run.exitCode, 0) << run.err;
        reference_ = Slurp(dir.File("out/checksums.txt"));
    }
    static std::string reference_;
};

std::string RenderMatchesSequential::reference_;

TEST_P(RenderMatchesSequential, EveryFrameChecksumIsEqual) {
    auto [nRanks, decomposition, receiveThreads] = GetParam();
    ASSERT_EQ(std::count(reference_.begin(), reference_.end(), '\n'), 10);
    TempDir dir;
    RunResult run = RunBfvMpi(nRanks, kFlight + "--decomposition " + decomposition +
                                          " --receive-threads " + std::to_string(receiveThreads) +
                                          " --out " + Quote(dir.File("out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(Slurp(dir.File("out/checksums.txt")), reference_);
}

TEST(RenderThreads, SequentialThreadsDrawTheSameFrames) {
    TempDir dir;
    ASSERT_EQ(RunBfv(kFlight + "--sequential --out " + Quote(dir.File("one"))).exitCode, 0);
    ASSERT_EQ(RunBfv(kFlight + "--sequential --threads 3 --out " + Quote(dir.File("three"))).exitCode, 0);
    EXPECT_EQ(Slurp(dir.File("one/checksums.txt")), Slurp(dir.File("three/checksums.txt")));
}

INSTANTIATE_TEST_SUITE_P(
    RanksDecompositionsReceiveThreads, RenderMatchesSequential,
    ::testing::Combine(::testing::Values(3, 4, 6), ::testing::Values("contiguous", "interleaved"),
                       ::testing::Values(1, 2)),
    [](const auto& nameInfo) {
        // Built with += : GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
        std::string name = "N";
        name += std::to_string(std::get<0>(nameInfo.param));
        name += "_" + std::get<1>(nameInfo.param) + "_K";
        name += std::to_string(std::get<2>(nameInfo.param));
        return name;
    });

}  // namespace
}  // namespace bfv::tools
