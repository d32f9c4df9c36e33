// Runs `bfv render --profile` and `bfv predict` as child processes: the workflow from a
// measured profile to a table, JSON and verdict, and every kind of bad input.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/messages.h"
#include "predict/link_profile.h"
#include "predict/predict_report.h"
#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Contains;
using test_support::Quote;
using test_support::RunBfv;
using test_support::RunCommand;
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
    EXPECT_EQ(trace["dvolBytes"].get<double>(),
              320 * 180 * sizeof(common::Pixel) + 20 * sizeof(common::ColumnsHeader));
    EXPECT_EQ(profile["framesMeasured"], 6);
    double shares = 0.0;
    for (double share : profile["columnCostShares"]) shares += share;
    EXPECT_EQ(profile["columnCostShares"].size(), 64u);
    EXPECT_NEAR(shares, 1.0, 1e-9);
    // The strips are wall times of a few frames, so their sizes are not checked here; how a
    // plane's time spreads over them is, exactly, in
    // Fan.SpreadOverColumnStripsGivesEachStripItsOwnPixels.
    // The camera of the default flight, and the share of the trace its marches took: part of
    // it (the rest shades and places the pixels).
    const auto& view = profile["view"];
    EXPECT_NEAR(view["pitchDeg"].get<double>(), -30.0, 1e-6);
    EXPECT_NEAR(view["hFovDeg"].get<double>(), 60.0, 1e-6);
    EXPECT_TRUE(view["antialias"].get<bool>());
    EXPECT_GT(view["marchShare"].get<double>(), 0.05);
    EXPECT_LT(view["marchShare"].get<double>(), 0.95);
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
    EXPECT_EQ(json["rows"][5]["bindingRole"], "display");
    EXPECT_GT(json["whatIf"]["singleMachine"]["fps"].get<double>(),
              json["rows"][0]["sequentialFps"].get<double>());
}

// A screen narrower than the profile's message (16 columns) is predicted with messages of its
// width, as bfv render sends them, and the default N range stops at one tracer per column.
TEST_F(PredictCommand, ANarrowScreenTakesMessagesOfItsWidthAndAtMostATracerAColumn) {
    RunResult run = RunBfv(Args() + " --size 6x40 --json " + Quote(dir_.File("narrow.json")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto json = nlohmann::json::parse(Slurp(dir_.File("narrow.json")));
    ASSERT_EQ(json["rows"].size(), 6u);  // N = 3..8: 1 to 6 tracers
    EXPECT_EQ(json["rows"].back()["n"], 8);
    EXPECT_TRUE(Contains(run.out, "6x40, 6 columns/message")) << run.out;
    RunResult asked = RunBfv(Args() + " --size 6x40 --n 9");
    EXPECT_NE(asked.exitCode, 0);
    EXPECT_TRUE(
        Contains(asked.err, "bfv predict: N = 9 has more ray tracers than the 6 screen columns"))
        << asked.err;
}

// --simulate plays every N out next to the analytic model: one line each, and the JSON.
TEST_F(PredictCommand, SimulatesEveryNBesideTheModel) {
    RunResult run = RunBfv(Args() +
                           " --n 3,5,8 --simulate --simulate-frames 12 "
                           "--simulate-warmup 4 --json " +
                           Quote(dir_.File("p.json")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "simulated (SimGrid, 12 frames, the first 4 not counted)"))
        << run.out;
    auto json = nlohmann::json::parse(Slurp(dir_.File("p.json")));
    ASSERT_EQ(json["simulated"].size(), 3u);
    for (int i = 0; i < 3; ++i) {
        const auto& sim = json["simulated"][i];
        EXPECT_EQ(sim["n"], json["rows"][i]["n"]);
        EXPECT_EQ(sim["modelFps"], json["rows"][i]["fps"]);
        EXPECT_GT(sim["fps"].get<double>(), 0.0);
    }
    // By N = 8 the 200 kB/s display link binds in the simulation too.
    EXPECT_EQ(json["simulated"][2]["busiest"], "nic0 (slow)");
}

// SimGrid is a module (common/module.h): each simulation's child process loads it, and a
// prediction without --simulate never does (the dynamic loader's record, LD_DEBUG=files).
TEST_F(PredictCommand, OnlyASimulationLoadsSimgrid) {
    std::string traced = "env LD_DEBUG=files " + Quote(BFV_BINARY) + " " + Args();
    RunResult model = RunCommand(traced + " --n 3");
    ASSERT_EQ(model.exitCode, 0) << model.err;
    EXPECT_FALSE(Contains(model.err, "libsimgrid")) << model.err;
    EXPECT_FALSE(Contains(model.err, "libgdal")) << model.err;
    RunResult simulated =
        RunCommand(traced + " --n 3 --simulate --simulate-frames 6 --simulate-warmup 2");
    ASSERT_EQ(simulated.exitCode, 0) << simulated.err;
    EXPECT_TRUE(Contains(simulated.err, "libbfv_simgrid.so")) << simulated.err;
    EXPECT_TRUE(Contains(simulated.err, "libsimgrid.so")) << simulated.err;
}

TEST_F(PredictCommand, BadSimulationOptionsAreNamedBeforeAnyOutput) {
    RunResult frames = RunBfv(Args() + " --simulate --simulate-frames 1");
    EXPECT_NE(frames.exitCode, 0);
    EXPECT_TRUE(Contains(frames.err, "--simulate-frames")) << frames.err;
    RunResult warmup = RunBfv(Args() + " --simulate --simulate-frames 10 --simulate-warmup 10");
    EXPECT_NE(warmup.exitCode, 0);
    EXPECT_TRUE(Contains(warmup.err, "warm-up frames must be >= 1 and below the 10 frames"))
        << warmup.err;
    EXPECT_EQ(warmup.out, "");
}

// On the 200 kB/s link the display's receive binds: the profile's measured codecs raise the
// plateau, and predict says so and which to use.
TEST_F(PredictCommand, SaysWhichColumnCodecTheClusterShouldUse) {
    auto profile = nlohmann::json::parse(Slurp(dir_.File("profile.json")));
    ASSERT_EQ(profile["columnCodecs"].size(), 2u);
    for (const auto& codec : profile["columnCodecs"]) {
        // Tree crowns and field parcels compress less than sky and haze: a little, but some.
        EXPECT_GT(codec["compressionRatio"].get<double>(), 1.05) << codec.dump();
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
    auto predict = [&](const std::string& decomposition) {
        std::string file = decomposition + ".json";
        RunResult run = RunBfv(Args() + " --n 6 --decomposition " + decomposition + " --json " +
                               Quote(dir_.File(file)));
        EXPECT_EQ(run.exitCode, 0) << run.err;
        return nlohmann::json::parse(Slurp(dir_.File(file)))["rows"][0];
    };
    auto traceS = [](const nlohmann::json& row) {
        return row["sPerFrame"]["ray trace"].get<double>();
    };
    const nlohmann::json dynamic = predict("dynamic"), interleaved = predict("interleaved");
    // 4 tracers, a quarter of the measured trace each, and for anti-aliasing the column either
    // side of a slice that it casts too: (columns + 2) / columns of it at most.
    auto profile = nlohmann::json::parse(Slurp(dir_.File("profile.json")));
    const double quarterS = profile["calculations"]["rayTrace"]["rtexS"].get<double>() / 4.0;
    ASSERT_EQ(dynamic["slices"].size(), 4u);
    for (const auto& slice : dynamic["slices"]) {
        const double columns = slice["columns"].get<double>();
        EXPECT_GE(slice["traceS"].get<double>(), quarterS * (1 - 1e-9));
        EXPECT_LE(slice["traceS"].get<double>(), quarterS * (columns + 2) / columns * (1 + 1e-9));
    }
    EXPECT_LE(traceS(dynamic), traceS(predict("contiguous")) * (1 + 1e-9));
    // Interleaved columns under the flight's -30 degrees make each tracer march nearly every
    // plane of the pinhole fan, and cast its neighbours' columns for anti-aliasing.
    EXPECT_GT(traceS(interleaved), 2.0 * traceS(dynamic));
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
    expectError(RunBfv(Args() + " --n 2-4"), "--n must be >= 3 and <= 4096 ranks, got 2");
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

// Numbers out of range, on the command line or in --measured, are refused with their range
// instead of crashing (a 20-digit N) or looping (N = 3-100000000).
TEST_F(PredictCommand, OutOfRangeNumbersNameTheirRange) {
    auto expectError = [](const RunResult& run, const std::string& part) {
        EXPECT_NE(run.exitCode, 0);
        EXPECT_NE(run.exitCode, 124) << "timed out";
        EXPECT_TRUE(Contains(run.err, part)) << part << "\n" << run.err;
    };
    expectError(RunBfv(Args() + " --n 3-100000000", 30),
                "--n must be >= 3 and <= 4096 ranks, got 100000000");
    expectError(RunBfv(Args() + " --n 99999999999999999999", 30), "--n");
    expectError(RunBfv(Args() + " -K 0"),
                "--receive-threads: must be >= 1 and <= 64 threads, got 0");
    expectError(RunBfv(Args() + " --target-fps -5"),
                "--target-fps: must be >= 0 and <= 1000000, got -5");
    expectError(RunBfv(Args() + " --columns-per-message 100000"),
                "--columns-per-message must be >= 1 and <=");
    expectError(RunBfv(Args() + " --columns-per-message 0"),
                "--columns-per-message must be >= 1 and <= 320 columns (the screen width), got 0");
    std::ofstream(dir_.File("m.csv")) << "n,fps\n3,1e999\n";
    expectError(RunBfv(Args() + " --n 3 --measured " + Quote(dir_.File("m.csv"))),
                "line 2: FPS must be > 0 and <= 1000000 FPS, got inf");
    std::ofstream(dir_.File("m.csv")) << "3,.\n";
    expectError(RunBfv(Args() + " --n 3 --measured " + Quote(dir_.File("m.csv"))),
                "line 1: expected N,FPS");
}

TEST(PredictSeedCase, ReproducesThePapersPredictions) {
    RunResult run = RunBfv("predict --seed-case");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(Contains(run.out, "sequential 1.19 FPS"));
    // Eq. 22 at N = 8 with buffered columns: about 8.7 FPS (the source paper; 8.87 reconstructed).
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

// `bfv render --machine --profile`: the run is checked against its own prediction, the one
// `bfv predict` makes for its N, K, decomposition, message size and codec.
TEST_F(PredictCommand, ARenderIsCheckedAgainstItsOwnPrediction) {
    RunResult run = test_support::RunBfvMpi(
        4,
        "render --headless --frames 8 --size 320x180 --png-every 0 --receive-threads 2 "
        "--decomposition interleaved --columns-per-message 5 --column-codec lz4 --out " +
            Quote(dir_.File("run")) + " --machine " + Quote(dir_.File("machine.json")) +
            " --profile " + Quote(dir_.File("profile.json")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto report = nlohmann::json::parse(Slurp(dir_.File("run/report.json")));
    const auto& prediction = report["prediction"];
    ASSERT_TRUE(prediction.is_object()) << report.dump(2);
    auto request =
        predict::LoadPredictRequest(dir_.File("profile.json"), dir_.File("machine.json"));
    ASSERT_TRUE(request.ok()) << request.error().message;
    common::RenderOptions options;
    options.view.screen.widthPx = 320;
    options.view.screen.heightPx = 180;
    options.pipeline.receiveThreads = 2;
    options.pipeline.decomposition = common::Decomposition::Interleaved;
    options.pipeline.columnsPerMessage = 5;
    options.pipeline.columnCodec = common::ColumnCodec::Lz4;
    auto expected = predict::PredictRender(*request, options, 4);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    EXPECT_DOUBLE_EQ(prediction["fps"].get<double>(), expected->fps);
    EXPECT_EQ(prediction["binding"], expected->binding);
    // The slow link's display is the busiest rank predicted; the run says where its own time
    // went.
    EXPECT_EQ(expected->bindingRole, common::Role::Display);
    EXPECT_EQ(prediction["bindingRole"], "display");
    EXPECT_TRUE(report["measuredBinding"].is_object()) << report.dump(2);
    EXPECT_TRUE(Contains(run.out, "measured binding: ")) << run.out;
    EXPECT_EQ(prediction["machine"], "eight");
    double measured = report["fps"]["mean"].get<double>();
    EXPECT_DOUBLE_EQ(prediction["measuredFps"].get<double>(), measured);
    EXPECT_NEAR(prediction["errorPct"].get<double>(), 100.0 * (measured / expected->fps - 1.0),
                1e-9);
    EXPECT_TRUE(Contains(run.out, "predicted ")) << run.out;
    EXPECT_TRUE(Contains(run.out, "on 'eight'")) << run.out;
}

// --trace on both sides: the measured timeline of every rank and thread, and the predicted
// schedule of the same run, as Chrome trace events.
TEST_F(PredictCommand, RenderAndPredictWriteTimelines) {
    RunResult run = test_support::RunBfvMpi(
        4, "render --headless --frames 6 --size 160x90 --png-every 0 --receive-threads 2 --out " +
               Quote(dir_.File("run")) + " --trace " + Quote(dir_.File("measured.json")));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    auto measured = nlohmann::json::parse(Slurp(dir_.File("measured.json")));
    // events by rank, thread and name
    std::map<int, std::map<int, std::map<std::string, int>>> counts;
    std::set<std::string> processes;
    for (const auto& e : measured["traceEvents"]) {
        if (e["ph"] == "X") ++counts[e["pid"].get<int>()][e["tid"].get<int>()][e["name"]];
        if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    }
    EXPECT_EQ(counts[1][0]["trace"], 6);
    EXPECT_EQ(counts[2][0]["trace"], 6);
    EXPECT_EQ(counts[3][0]["present"], 6);
    EXPECT_EQ(counts[3][1]["receive"], 6) << "receive thread 0";
    EXPECT_EQ(counts[3][2]["receive"], 6) << "receive thread 1";
    EXPECT_GT(counts[0][0]["terrain_read"], 0);
    EXPECT_EQ(processes.size(), 4u);

    RunResult predicted = RunBfv(Args() + " --n 4 --trace " + Quote(dir_.File("predicted.json")));
    ASSERT_EQ(predicted.exitCode, 0) << predicted.err;
    auto schedule = nlohmann::json::parse(Slurp(dir_.File("predicted.json")));
    int traces = 0;
    for (const auto& e : schedule["traceEvents"]) traces += e["ph"] == "X" && e["name"] == "trace";
    EXPECT_EQ(traces, 2 * 4) << "2 tracers, 4 frames";

    RunResult unwritable = test_support::RunBfvMpi(
        3, "render --headless --frames 2 --size 64x32 --png-every 0 --out " +
               Quote(dir_.File("run2")) + " --trace " + Quote(dir_.File("no/such/dir/t.json")));
    EXPECT_NE(unwritable.exitCode, 0);
    EXPECT_NE(unwritable.exitCode, 124) << "timed out";
    EXPECT_TRUE(Contains(unwritable.err, "t.json")) << unwritable.err;
}

TEST_F(PredictCommand, RenderRefusesAMachineWithoutAProfileOrWithSequential) {
    RunResult noProfile = test_support::RunBfvMpi(
        3, "render --headless --frames 2 --size 64x32 --out " + Quote(dir_.File("a")) +
               " --machine " + Quote(dir_.File("machine.json")));
    test_support::ExpectCleanFailure(noProfile, "--machine predicts an MPI run", dir_.File("a"));
    RunResult sequential =
        RunBfv("render --sequential --headless --frames 2 --size 64x32 --out " +
               Quote(dir_.File("b")) + " --machine " + Quote(dir_.File("machine.json")) +
               " --profile " + Quote(dir_.File("profile.json")));
    test_support::ExpectCleanFailure(sequential, "--machine predicts an MPI run", dir_.File("b"));
    RunResult broken = test_support::RunBfvMpi(
        3, "render --headless --frames 2 --size 64x32 --out " + Quote(dir_.File("c")) +
               " --machine " + Quote(dir_.File("machine.json")) + " --profile " +
               Quote(dir_.File("machine.json")));
    EXPECT_NE(broken.exitCode, 0);
    EXPECT_NE(broken.exitCode, 124) << "timed out";
    EXPECT_EQ(test_support::Occurrences(broken.err, "bfv render: "), 1) << broken.err;
    EXPECT_FALSE(std::filesystem::exists(dir_.File("c")));
}

}  // namespace
}  // namespace bfv::tools
