// The distributed renderer draws exactly what the single-process program draws: for every
// rank count, screen decomposition and number of display receive threads, every frame's
// checksum equals the --sequential render's.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>

#include "common/messages.h"
#include "terrain/tile_pyramid.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunBfvMpi;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

// A view that shows sky, near and far terrain (every level from 1 m posts at the bottom of
// the screen to the coarse ones at the horizon) in 10 frames, with --terrain-sync so that every
// tile a frame wants is there; 7 columns per message so that messages do not divide the slices
// evenly. A frame a second of flight and a 6 MiB cache (163 tiles) make the server evict
// tiles on the way.
const std::string kFlight =
    "render --headless --frames 10 --frame-dt 1 --size 320x180 --pitch -20 --agl 300 "
    "--png-every 0 --columns-per-message 7 --terrain-sync --cache-mib 9 --stall-timeout 60 ";

class RenderMatchesSequential : public ::testing::TestWithParam<std::tuple<int, std::string, int>> {
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
    RunResult run =
        RunBfvMpi(nRanks, kFlight + "--decomposition " + decomposition + " --receive-threads " +
                              std::to_string(receiveThreads) + " --out " + Quote(dir.File("out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(Slurp(dir.File("out/checksums.txt")), reference_);
    // Every frame's trace imbalance: the slowest tracer over the mean, 1 with one tracer.
    auto report = nlohmann::json::parse(Slurp(dir.File("out/report.json")));
    ASSERT_EQ(report["traceImbalance"].size(), 10u);
    for (double imbalance : report["traceImbalance"]) {
        EXPECT_GE(imbalance, 1.0);
        EXPECT_LE(imbalance, nRanks - 2.0);
        if (nRanks == 3) {
            EXPECT_EQ(imbalance, 1.0);
        }
    }
    EXPECT_TRUE(Contains(run.out, "trace imbalance")) << run.out;
    // Each tracer's slice over the frames after the warm-up: together the screen's 320 columns.
    ASSERT_EQ(report["slices"].size(), static_cast<std::size_t>(nRanks - 2));
    double columns = 0.0;
    for (const auto& slice : report["slices"]) {
        EXPECT_EQ(slice["frames"], 10 - report["options"]["output"]["warmupFrames"].get<int>());
        EXPECT_GT(slice["traceSMean"].get<double>(), 0.0);
        columns += slice["columnsMean"].get<double>();
    }
    EXPECT_NEAR(columns, 320.0, 1e-9);
    EXPECT_EQ(Contains(run.out, "slices (mean columns"), decomposition == "dynamic") << run.out;
}

// The reference render (--supersample 2) is the same frames in one process on two threads and
// on every rank count and decomposition; anti-aliasing (on by default) changes them.
TEST(RenderSupersample, EveryDeploymentDrawsTheSameReference) {
    const std::string flight = kFlight + "--supersample 2 ";
    TempDir dir;
    RunResult sequential =
        RunBfv(flight + "--sequential --threads 2 --out " + Quote(dir.File("sequential")));
    ASSERT_EQ(sequential.exitCode, 0) << sequential.err;
    const std::string reference = Slurp(dir.File("sequential/checksums.txt"));
    for (auto [nRanks, decomposition] : {std::pair{4, "interleaved"}, std::pair{5, "dynamic"}}) {
        const std::string out = dir.File(std::string("mpi-") + decomposition);
        RunResult run =
            RunBfvMpi(nRanks, flight + "--decomposition " + decomposition + " --out " + Quote(out));
        ASSERT_EQ(run.exitCode, 0) << run.err;
        EXPECT_EQ(Slurp(out + "/checksums.txt"), reference) << decomposition;
    }
    RunResult oneRay =
        RunBfv(kFlight + "--sequential --antialias off --out " + Quote(dir.File("off")));
    RunResult antialiased = RunBfv(kFlight + "--sequential --out " + Quote(dir.File("on")));
    ASSERT_EQ(oneRay.exitCode, 0) << oneRay.err;
    ASSERT_EQ(antialiased.exitCode, 0) << antialiased.err;
    EXPECT_NE(Slurp(dir.File("off/checksums.txt")), Slurp(dir.File("on/checksums.txt")));
    EXPECT_NE(Slurp(dir.File("on/checksums.txt")), reference);
}

// The frames are not only equal but detailed: no sample rendered coarser than it asked for,
// and the fine levels (fractal, down to 1 m) were streamed.
TEST(RenderSync, FramesHaveNoResolutionDeficitAndFineTilesArrive) {
    TempDir dir;
    RunResult run = RunBfvMpi(4, kFlight + "--out " + Quote(dir.File("out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto report = nlohmann::json::parse(Slurp(dir.File("out/report.json")));
    for (double deficit : report["resolutionDeficit"]) EXPECT_EQ(deficit, 0.0);
    const auto& stream = report["ranks"][0]["terrainStream"];
    EXPECT_GT(stream["tilesRefined"].get<double>(), 100.0);
    EXPECT_GT(stream["tilesEvicted"].get<double>(), 0.0);
    // Each tracer's tiles stay within --cache-mib plus the pinned coarse levels (85 tiles).
    double pinnedMiB = 85.0 * static_cast<double>(terrain::kResidentTileBytes) / (1 << 20);
    EXPECT_LE(report["ranks"][1]["residentTileMiB"].get<double>(), 9.0 + pinnedMiB);
}

// Budget 0: nothing beyond the pinned levels is sent, the run does not stall, and every
// terrain sample is reported as coarser than it asked for.
TEST(RenderBudget, ZeroBudgetRendersCoarseLevelsWithoutStalling) {
    TempDir dir;
    RunResult run = RunBfvMpi(3,
                              "render --headless --frames 20 --size 160x90 --png-every 0 "
                              "--terrain-budget 0 --out " +
                                  Quote(dir.File("out")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto report = nlohmann::json::parse(Slurp(dir.File("out/report.json")));
    EXPECT_EQ(report["frameChecksums"].size(), 20u);
    EXPECT_EQ(report["ranks"][0]["terrainStream"]["tilesSent"].get<double>(), 0.0);
    EXPECT_GT(report["resolutionDeficitMean"].get<double>(), 0.9);
    EXPECT_TRUE(Contains(run.out, "resolution deficit")) << run.out;
}

// Compressed columns draw the same frames, and the report gives what the link saved.
TEST(RenderColumnCodec, CompressedColumnsDrawTheSameFramesAndReportTheRatio) {
    std::string reference;
    {
        TempDir dir;
        ASSERT_EQ(RunBfv(kFlight + "--sequential --out " + Quote(dir.File("out"))).exitCode, 0);
        reference = Slurp(dir.File("out/checksums.txt"));
    }
    for (std::string codec : {"lz4", "zstd"}) {
        TempDir dir;
        RunResult run = RunBfvMpi(4, kFlight + "--column-codec " + codec +
                                         " --receive-threads 2 --out " + Quote(dir.File("out")));
        ASSERT_EQ(run.exitCode, 0) << run.err;
        EXPECT_EQ(Slurp(dir.File("out/checksums.txt")), reference) << codec;
        auto report = nlohmann::json::parse(Slurp(dir.File("out/report.json")));
        const auto& columns = report["columns"];
        EXPECT_EQ(columns["codec"], codec);
        // Tree crowns and parcels compress less than sky and haze: a little, but some.
        EXPECT_GT(columns["compressionRatio"].get<double>(), 1.05) << codec;
        EXPECT_EQ(
            columns["rawBytes"].get<double>(),
            10.0 * (320 * 180 * sizeof(common::Pixel) + 2 * 23 * sizeof(common::ColumnsHeader)))
            << "10 frames, 23 messages a tracer";
        EXPECT_TRUE(Contains(run.out, "columns: codec " + codec)) << run.out;
    }
}

TEST(RenderThreads, SequentialThreadsDrawTheSameFrames) {
    TempDir dir;
    ASSERT_EQ(RunBfv(kFlight + "--sequential --out " + Quote(dir.File("one"))).exitCode, 0);
    ASSERT_EQ(
        RunBfv(kFlight + "--sequential --threads 3 --out " + Quote(dir.File("three"))).exitCode, 0);
    EXPECT_EQ(Slurp(dir.File("one/checksums.txt")), Slurp(dir.File("three/checksums.txt")));
}

INSTANTIATE_TEST_SUITE_P(RanksDecompositionsReceiveThreads, RenderMatchesSequential,
                         ::testing::Combine(::testing::Values(3, 4, 6),
                                            ::testing::Values("contiguous", "interleaved",
                                                              "dynamic"),
                                            ::testing::Values(1, 2)),
                         [](const auto& nameInfo) {
                             // Built with += : GCC 12 warns falsely (-Wrestrict) on "literal" +
                             // std::string.
                             std::string name = "N";
                             name += std::to_string(std::get<0>(nameInfo.param));
                             name += "_" + std::get<1>(nameInfo.param) + "_K";
                             name += std::to_string(std::get<2>(nameInfo.param));
                             return name;
                         });

}  // namespace
}  // namespace bfv::tools
