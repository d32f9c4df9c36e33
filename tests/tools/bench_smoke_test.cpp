// A smoke sweep of bench/bfv_bench.py: N = 3, 4 and the sequential program, a few frames;
// checks that the results are produced, well formed and consistent.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/subprocess.h"

namespace bfv::tools {
namespace {

using test_support::Quote;
using test_support::RunCommand;
using test_support::RunResult;
using test_support::Slurp;
using test_support::TempDir;

std::string Bench() { return test_support::PythonScript("bench/bfv_bench.py"); }

TEST(BenchSmoke, SweepWritesConsistentResultsAndPlots) {
    TempDir dir;
    std::string out = dir.File("bench");
    RunResult run = RunCommand(Bench() +
                                   " --deployment sequential --deployment mpi --n 3,4 "
                                   "--size 160x90 --frames 12 --warmup 2 --repetitions 2 "
                                   "--column-codec none,lz4 --decomposition contiguous,dynamic "
                                   "--quick-calibration --out " +
                                   Quote(out),
                               300);
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.out.find("mean |error|"), std::string::npos) << run.out;
    // The dynamic rows' measured slices beside the predicted ones.
    EXPECT_NE(run.out.find("mpi N=4 160x90 dynamic slices (columns per tracer): measured "),
              std::string::npos)
        << run.out;

    auto json = nlohmann::json::parse(Slurp(out + "/results.json"));
    ASSERT_EQ(json["rows"].size(), 9u)
        << "sequential, and N = 3, 4 with each codec and decomposition";
    EXPECT_EQ(json["summary"]["repetitionsFinished"], 2);
    double worst = 0.0, worstSpread = 0.0;
    std::vector<double> pairedErrors;
    for (const auto& row : json["rows"]) {
        double best = row["bestFps"], predicted = row["predictedFps"];
        EXPECT_GT(best, 0.0);
        EXPECT_GT(predicted, 0.0);
        EXPECT_EQ(row["runs"], 2);
        EXPECT_GE(best, row["medianFps"].get<double>());
        EXPECT_NEAR(row["errorPercent"].get<double>(), 100.0 * (best - predicted) / best, 1e-6);
        // Every round calibrated and predicted: the best prediction is the largest of them,
        // and the median error pairs the median measured with the median predicted.
        ASSERT_EQ(row["predictedFpsRuns"].size(), 2u);
        double highest = std::max(row["predictedFpsRuns"][0].get<double>(),
                                  row["predictedFpsRuns"][1].get<double>());
        EXPECT_DOUBLE_EQ(predicted, highest);
        double median = row["medianFps"], medianPredicted = row["medianPredictedFps"];
        EXPECT_NEAR(row["medianErrorPercent"].get<double>(),
                    100.0 * (median - medianPredicted) / median, 1e-6);
        worst = std::max(worst, std::abs(row["errorPercent"].get<double>()));
        // The rounds' own spread, and each run against its own round's prediction.
        double lowest = std::min(row["fpsRuns"][0].get<double>(), row["fpsRuns"][1].get<double>());
        double spread = 100.0 * (best - lowest) / median;
        EXPECT_NEAR(row["spreadPercent"].get<double>(), spread, 1e-6);
        worstSpread = std::max(worstSpread, spread);
        ASSERT_EQ(row["pairedErrorsPercent"].size(), 2u);
        for (int round = 0; round < 2; ++round) {
            double m = row["fpsRuns"][round], p = row["predictedFpsRuns"][round];
            EXPECT_NEAR(row["pairedErrorsPercent"][round].get<double>(), 100.0 * (m - p) / m, 1e-6);
            pairedErrors.push_back(100.0 * (m - p) / m);
        }
    }
    EXPECT_NEAR(json["summary"]["worstAbsErrorPercent"].get<double>(), worst, 1e-6);
    EXPECT_NEAR(json["summary"]["worstSpreadPercent"].get<double>(), worstSpread, 1e-6);
    ASSERT_GT(pairedErrors.size(), 1u);
    EXPECT_EQ(json["summary"]["pairedRuns"], pairedErrors.size());
    double pairedMean = 0.0, pairedSquares = 0.0;
    for (double e : pairedErrors) pairedMean += e / pairedErrors.size();
    for (double e : pairedErrors) pairedSquares += (e - pairedMean) * (e - pairedMean);
    EXPECT_NEAR(json["summary"]["meanPairedErrorPercent"].get<double>(), pairedMean, 1e-6);
    EXPECT_NEAR(json["summary"]["stdevPairedErrorPercent"].get<double>(),
                std::sqrt(pairedSquares / (pairedErrors.size() - 1)), 1e-6);  // sample deviation
    EXPECT_NE(run.out.find("the runs' own spread: median "), std::string::npos) << run.out;
    // Each mpi row sets where the best run's time went (its report) beside the busiest rank
    // predicted; the sequential row has neither.
    int bindingRows = 0, agreements = 0;
    for (const auto& row : json["rows"]) {
        if (row["deployment"] == "sequential") {
            EXPECT_EQ(row["measuredBindingRole"], nullptr);
            continue;
        }
        const std::string measured = row["measuredBindingRole"],
                          predicted = row["predictedBindingRole"];
        EXPECT_TRUE(measured == "tracer" || measured == "display") << measured;
        EXPECT_TRUE(predicted == "tracer" || predicted == "display" || predicted == "server")
            << predicted;
        double idle = row["busiestTracerIdleShare"];
        EXPECT_EQ(measured == "tracer", idle < 0.25) << idle;
        ++bindingRows;
        agreements += measured == predicted;
    }
    EXPECT_EQ(json["summary"]["bindingRows"], bindingRows);
    EXPECT_EQ(json["summary"]["bindingAgreements"], agreements);
    EXPECT_NE(run.out.find("busiest rank, predicted against measured"), std::string::npos)
        << run.out;
    // Speedup and efficiency of the mpi rows are over the sequential row.
    double sequential = 0.0;
    for (const auto& row : json["rows"]) {
        if (row["deployment"] == "sequential") sequential = row["bestFps"];
    }
    ASSERT_GT(sequential, 0.0);
    for (const auto& row : json["rows"]) {
        if (row["deployment"] != "mpi") continue;
        EXPECT_DOUBLE_EQ(row["speedupBaseFps"].get<double>(), sequential);
        EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), row["bestFps"].get<double>() / sequential);
        EXPECT_DOUBLE_EQ(row["efficiency"].get<double>(),
                         row["speedup"].get<double>() / (row["n"].get<int>() - 2));
    }

    std::istringstream csv(Slurp(out + "/results.csv"));
    std::string header, line;
    std::getline(csv, header);
    EXPECT_EQ(header.rfind("deployment,n,size,cpm,k,decomposition,codec,bestFps", 0), 0u) << header;
    int rows = 0, lz4 = 0, dynamic = 0;
    while (std::getline(csv, line)) {
        rows += !line.empty();
        lz4 += line.find(",lz4,") != std::string::npos;
        dynamic += line.find(",dynamic,") != std::string::npos;
    }
    EXPECT_EQ(rows, 9);
    EXPECT_EQ(lz4, 4);
    EXPECT_EQ(dynamic, 4);
    for (const char* calibration :
         {"/calibration/profile-160x90-r1.json", "/calibration/profile-160x90-r2.json",
          "/calibration/machine-mpi-160x90-r1.json", "/calibration/machine-mpi-160x90-r2.json"}) {
        EXPECT_TRUE(std::filesystem::exists(out + calibration)) << calibration;
    }
    // Every round measures the shared-memory link (its CPU of waiting drifts with the machine)
    // and predicts from its own.
    for (int round : {1, 2}) {
        std::string r = std::to_string(round);
        auto machine =
            nlohmann::json::parse(Slurp(out + "/calibration/machine-mpi-160x90-r" + r + ".json"));
        EXPECT_EQ(machine["links"]["shm"].get<std::string>(),
                  out + "/calibration/link-shm-r" + r + "/link_profile.json");
        EXPECT_TRUE(std::filesystem::exists(machine["links"]["shm"].get<std::string>()));
    }
    for (const char* plot : {"/fps_vs_n.png", "/scaling.png"}) {
        EXPECT_GT(std::filesystem::file_size(out + plot), 1000u) << plot;
    }
}

TEST(BenchSmoke, BadOptionsFailWithOneMessageAndWriteNothing) {
    TempDir dir;
    std::string out = dir.File("bench");
    for (const char* bad :
         {"--n 2-4", "--size big", "--deployment emulated", "--frames 5 --warmup 10",
          "--deployment cluster", "--column-codec gzip"}) {
        RunResult run = RunCommand(Bench() + " " + bad + " --out " + Quote(out), 60);
        EXPECT_NE(run.exitCode, 0) << bad;
        EXPECT_NE(run.err.find("bfv bench:"), std::string::npos) << bad << ": " << run.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << bad;
    }
}

}  // namespace
}  // namespace bfv::tools
