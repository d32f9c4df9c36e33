// Runs `bfv render --profile` and `bfv predict` as child processes: the workflow from a
// measured profile to a table, JSON and verdict, and every kind of bad input.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "predict/link_profile.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

void WriteLink(const TempDir& dir, const std::string& name, double setupS, double alcbw) {
    predict::LinkProfile link;
    link.name = name;
    link.overall = {setupS, alcbw, alcbw * 4};
    link.segments = {{0.0, 1e9, link.overall}};
    link.nHalfBytes = setupS * alcbw;
    link.apbbwSendBytesPerS = link.apbbwReceiveBytesPerS = alcbw * 4;
    std::ofstream(dir.File(name + ".json")) << predict::LinkProfileJson(link).dump();
}

// A measured profile of a small screen, an 8-node cluster on a slow link and its files.
class PredictCommand : public ::testing::Test {
  protected:
    void SetUp() override {
        RunResult run = RunBfv(
            "render --sequential --headless --frames 8 --warmup 2 --size 320x180 "
            "--png-every 0 --out " +
            Quote(dir_.File("out")) + " --profile " + Quote(dir_.File("profile.json")));
        ASSERT_EQ(run.exitCode, 0) << run.err;
        WriteLink(dir_, "shm", 1e-6, 5e9);
        WriteLink(dir_, "slow", 1e-4, 2e5);
        std::ofstream(dir_.File("machine.json")) << R"({"name": "eight", "hosts": [{"name": "node",
            "count": 8, "cores": 1, "nics": ["slow"]}], "links": {"shm": "shm.json", "slow": "slow.json"}})";
    }
    std::string Args() const {
        return "predict --profile " + Quote(dir_.File("profile.json")) + " --machine " +
               Quote(dir_.File("machine.json"));
    }
    TempDir dir_;
};

TEST_F(PredictCommand, ProfileHoldsThePapersResourceMatrix) {
    auto profile = nlohmann::json::parse(Slurp(dir_.File("profile.json")));
    const auto& trace = profile["calculations"]["rayTrace"];
    EXPECT_GT(trace["rtexS"].get<double>(), 0.0);
    // A fraction of the wall time; how large depends on what else runs (ctest -j2 shares the
    // two cores), so only its range is checked.
    EXPECT_GT(trace["cpuFraction"].get<double>(), 0.0);
    EXPECT_LE(trace["cpuFraction"].get<double>(), 1.05);
    // 20 messages of 16 columns, each with a 40-byte header.
    EXPECT_EQ(trace["dvolBytes"].get<double>(), 320 * 180 * 2 + 20 * 40);
    EXPECT_EQ(profile["framesMeasured"], 6);
    double shares = 0.0;
    for (double share : profile["columnCostShares"]) shares += share;
    EXPECT_EQ(profile["columnCostShares"].size(), 64u);
    EXPECT_NEAR(shares, 1.0, 1e-9);
}

TEST_F(PredictCommand, PrintsATableAVerdictAndWritesJson) {
    RunResult run = RunBfv(Args() + " --n 3-8 --json " + Quote(dir_.File("p.json")) +
                           " --single-machine-speed 2 --target-fps 1000000");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "verdict:"));
    EXPECT_TRUE(Contains(run.out, "Amdahl"));
    EXPECT_TRUE(Contains(run.out, "cluster cannot reach it"));
    EXPECT_TRUE(Contains(run.out, "one machine 2.00x as fast"));
    auto json = nlohmann::json::parse(Slurp(dir_.File("p.json")));
    ASSERT_EQ(json["rows"].size(), 6u);
    EXPECT_EQ(json["rows"][0]["n"], 3);
    EXPECT_EQ(json["rows"][5]["ranks"].size(), 8u);
    // A 200 kB/s display link carries 320x180x2 B in ~0.6 s: it binds by N = 8, even where the
    // display's own work measures slow (a sanitized build).
    EXPECT_EQ(json["rows"][5]["binding"], "display receive");
    EXPECT_GT(json["whatIf"]["singleMachine"]["fps"].get<double>(),
              json["rows"][0]["sequentialFps"].get<double>());
}

// On the 200 kB/s link the display's receive binds: the profile's measured codecs raise the
// plateau, and predict says so and which to use.
TEST_F(PredictCommand, SaysWhichColumnCodecTheClusterShouldUse) {
    auto profile = nlohmann::json::parse(Slurp(dir_.File("profile.json")));
    ASSERT_EQ(profile["columnCodecs"].size(), 2u);
    for (const auto& codec : profile["columnCodecs"]) {
        EXPECT_GT(codec["compressionRatio"].get<double>(), 1.2) << codec.dump();
    }
    RunResult none = RunBfv(Args() + " --n 8 --json " + Quote(dir_.File("none.json")));
    ASSERT_EQ(none.exitCode, 0) << none.err;
    EXPECT_TRUE(Contains(none.out, "column codec at N = 8:")) << none.out;
    EXPECT_TRUE(Contains(none.out, "use --column-codec zstd")) << none.out;
    RunResult zstd =
        RunBfv(Args() + " --n 8 --column-codec zstd --json " + Quote(dir_.File("zstd.json")));
    ASSERT_EQ(zstd.exitCode, 0) << zstd.err;
    auto fps = [&](const std::string& file) {
        return nlohmann::json::parse(Slurp(dir_.File(file)))["rows"][0]["fps"].get<double>();
    };
    EXPECT_GT(fps("zstd.json"), 1.2 * fps("none.json"));
}

// The dynamic split's ray trace term is the balanced one: 1/T of the measured trace, no more
// than the slowest contiguous slice's.
TEST_F(PredictCommand, DynamicDecompositionPredictsTheBalancedTrace) {
    auto traceS = [&](const std::string& decomposition) {
        std::string file = decomposition + ".json";
        RunResult run = RunBfv(Args() + " --n 6 --decomposition " + decomposition + " --json " +
                               Quote(dir_.File(file)));
        EXPECT_EQ(run.exitCode, 0) << run.err;
        auto json = nlohmann::json::parse(Slurp(dir_.File(file)));
        return json["rows"][0]["sPerFrame"]["ray trace"].get<double>();
    };
    double interleaved = traceS("interleaved"), dynamic = traceS("dynamic");
    EXPECT_NEAR(dynamic, interleaved, 1e-9 + 1e-6 * interleaved) << "4 tracers, 1/4 each";
    EXPECT_LE(dynamic, traceS("contiguous") * (1 + 1e-9));
}

TEST_F(PredictCommand, MeasuredPointsGiveErrorsAndAKarpFlattFit) {
    std::ofstream(dir_.File("measured.csv")) << "n,fps\n3,100\n4,150\n";
    RunResult run = RunBfv(Args() + " --n 3,4 --measured " + Quote(dir_.File("measured.csv")) +
                           " --json " + Quote(dir_.File("p.json")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto json = nlohmann::json::parse(Slurp(dir_.File("p.json")));
    EXPECT_EQ(json["rows"][1]["measuredFps"], 150.0);
    EXPECT_TRUE(json["rows"][1].contains("errorPercent"));
    EXPECT_TRUE(json["rows"][1]["comparisons"].contains("karpFlatt"));
}

TEST_F(PredictCommand, BadInputIsNamed) {
    auto expectError = [](const RunResult& run, const std::string& part) {
        EXPECT_NE(run.exitCode, 0);
        EXPECT_TRUE(Contains(run.err, part)) << run.err;
    };
    expectError(RunBfv(Args() + " --n 2-4"), "at least 3");
    expectError(RunBfv(Args() + " --n three"), "--n");
    expectError(RunBfv("predict --profile " + Quote(dir_.File("profile.json"))), "--machine");
    std::ofstream(dir_.File("hosts")) << "gpu01:4\n";
    expectError(RunBfv(Args() + " --hostfile " + Quote(dir_.File("hosts"))), "'gpu01'");
    std::ofstream(dir_.File("negative.json")) << R"({"bfvLinkProfileVersion": 1, "name": "slow",
        "overall": {"msgSetupS": 1e-4, "alcbwBytesPerS": -2e6, "apbbwBytesPerS": 8e6}})";
    std::ofstream(dir_.File("machine2.json")) << R"({"hosts": [{"name": "n", "nics": ["slow"]}],
        "links": {"shm": "shm.json", "slow": "negative.json"}})";
    expectError(RunBfv("predict --profile " + Quote(dir_.File("profile.json")) + " --machine " +
                       Quote(dir_.File("machine2.json"))),
                "alcbwBytesPerS");
    std::ofstream(dir_.File("broken.json"))
        << R"({"bfvResourceProfileVersion": 1, "widthPx": 320})";
    expectError(RunBfv("predict --profile " + Quote(dir_.File("broken.json")) + " --machine " +
                       Quote(dir_.File("machine.json"))),
                "heightPx");
    expectError(RunBfv(Args() + " --column-codec gzip"), "--column-codec");
    auto profile = nlohmann::json::parse(Slurp(dir_.File("profile.json")));
    profile["columnCodecs"][0]["compressionRatio"] = 0.5;
    std::ofstream(dir_.File("ratio.json")) << profile.dump();
    expectError(RunBfv("predict --profile " + Quote(dir_.File("ratio.json")) + " --machine " +
                       Quote(dir_.File("machine.json"))),
                "columnCodecs[0].compressionRatio must be >= 1");
    profile["columnCodecs"][0] = {{"codec", "gzip"}};
    std::ofstream(dir_.File("gzip.json")) << profile.dump();
    expectError(RunBfv("predict --profile " + Quote(dir_.File("gzip.json")) + " --machine " +
                       Quote(dir_.File("machine.json"))),
                "columnCodecs[0].codec must be none, lz4 or zstd");
    profile.erase("columnCodecs");
    std::ofstream(dir_.File("old.json")) << profile.dump();
    expectError(RunBfv("predict --profile " + Quote(dir_.File("old.json")) + " --machine " +
                       Quote(dir_.File("machine.json")) + " --column-codec lz4"),
                "no measurement of --column-codec lz4");
}

TEST(PredictSeedCase, ReproducesThePapersPredictions) {
    RunResult run = RunBfv("predict --seed-case");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "sequential 1.19 FPS"));
    // Eq. 22 at N = 8 with buffered columns: about 8.7 FPS (MODEL.md; 8.87 reconstructed).
    size_t row = run.out.find("\n  8 ");
    ASSERT_NE(row, std::string::npos) << run.out;
    std::string line = run.out.substr(row + 1, run.out.find('\n', row + 1) - row - 1);
    EXPECT_TRUE(Contains(line, " 8.8")) << line;
}

TEST(RenderProfile, NeedsSequentialAndOneThread) {
    TempDir dir;
    RunResult run = RunBfv("render --sequential --threads 2 --headless --frames 5 --profile " +
                           Quote(dir.File("p.json")) + " --out " + Quote(dir.File("out")));
    EXPECT_NE(run.exitCode, 0);
    EXPECT_TRUE(Contains(run.err, "--threads 1"));
    EXPECT_FALSE(std::filesystem::exists(dir.File("p.json")));
}

}  // namespace
}  // namespace bfv::tools
