// `bfv predict`: FPS for each N from a resource profile, a machine description and link
// profiles; or the source paper's own case with --seed-case.

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/render_options.h"
#include "predict/machine_file.h"
#include "predict/predict_report.h"
#include "predict/resource_profile.h"
#include "predict/simulate.h"
#include "tools/commands.h"

namespace bfv::tools {

namespace {

struct PredictArgs {
    std::string profilePath;
    std::string machinePath;
    std::string hostfile;
    std::string ranks = "3-16";
    CLI::Option* ranksOption = nullptr;  // given or not
    std::string size;                    // "" = the profile's
    int columnsPerMessage = 0;
    CLI::Option* columnsPerMessageOption = nullptr;  // given or not: else the profile's
    int receiveThreads = 0;                          // 0 = the machine's
    std::string decomposition = "contiguous";
    std::string columnCodec = "none";
    std::string jsonPath;
    std::string tracePath;
    std::string measuredPath;
    double speedRatio = 0.0;
    double targetFps = 0.0;
    bool seedCase = false;
    bool simulate = false;
    predict::SimulationOptions simulation;
};

const char* kPredictHelp =
    "Predict bfv's frame rate for N = 3.. ranks on a described cluster: the source paper's\n"
    "analytical schedule (eqs. 1-22) fed by bfv's own measurements.\n"
    "  1. bfv render --sequential --headless --profile profile.json      (the application)\n"
    "  2. mpiexec -n 2 bfv commbench --name shm --out shm                (each link kind)\n"
    "  3. bfv predict --profile profile.json --machine machine.json\n"
    "machine.json: {\"hosts\": [{\"name\": \"node\", \"count\": 8, \"cores\": 1, \"cpuSpeed\": 1,\n"
    "  \"nics\": [\"gige\"]}], \"intraHostLink\": \"shm\", \"displayReceiveThreads\": 1,\n"
    "  \"links\": {\"shm\": \"shm/link_profile.json\", \"gige\": \"gige/link_profile.json\"}}\n"
    "The display host's NICs: tracer t's columns cross NIC t mod their count, and receive\n"
    "thread t mod K takes them in.\n"
    "A host whose ranks outnumber its cores (N = 5 on 2 cores) shares them in turns: where the\n"
    "intra-host link's profile has the scheduler's tick (commbench measures it), the tracers'\n"
    "frames shorter than a tick wait for a core instead of sharing it smoothly.\n"
    "A host in a container: \"cpuQuotaCores\" (its CPU limit, e.g. 0.5 for docker --cpus 0.5)\n"
    "and \"quotaPeriodS\" (default 0.1); its ranks share the quota, a rank under less than a\n"
    "core runs that share of one, and a rank woken when the host's other ranks have spent it\n"
    "waits for the next period: the term 'host quota'. bfv render's report gives each rank's\n"
    "own quota (its cgroup's).\n"
    "Prints per N the FPS, the term that binds, the per-frame terms and the Amdahl,\n"
    "Gustafson, Karp-Flatt, Hill-Marty, Sun-Chen and latency/bandwidth models, then a verdict\n"
    "(naming the display NIC or receive thread that binds, where the display's receive does).\n"
    "--simulate also plays each N's frames out in a discrete-event simulation (SimGrid) of the\n"
    "same ranks, links and costs, and prints where it parts from the analytic model: set-ups\n"
    "overlapping at the display, tracers sharing a host's NIC, a shared switch (machine field\n"
    "\"switchBytesPerS\"), two frames in flight, a crowded host's cores taking the tracers in\n"
    "turns a scheduler tick at a time. It reaches N in the thousands, e.g.\n"
    "  bfv predict --profile p.json --machine bench/machines/cluster-10gige.json \\\n"
    "      --n 16,64,256,1024 --size 1280x720 --simulate\n"
    "bfv predict --seed-case reproduces the paper's own predictions (eqs. 20 and 22).";

Error ArgError(const std::string& what) { return Error{what}; }

// Ranks a prediction is asked for: the 3 roles at least, and no more than a cluster's worth.
constexpr common::Range kPredictRanksRange = common::Range::Closed(3.0, 4096.0, "ranks");
// Frame rates of --measured, --target-fps, and speed ratios of --single-machine-speed.
constexpr common::Range kMeasuredFpsRange = common::Range::AboveUpTo(0.0, 1e6, "FPS");
constexpr common::Range kWhatIfRange = common::Range::Closed(0.0, 1e6);

// "3-16" or "3,4,8" -> the list of N, each within kPredictRanksRange.
Expected<std::vector<int>> ParseRanks(const std::string& text) {
    std::smatch m;
    std::vector<double> bounds;
    bool range = std::regex_match(text, m, std::regex(R"((\d{1,9})-(\d{1,9}))"));
    if (range) {
        bounds = {std::stod(m[1]), std::stod(m[2])};
    } else if (std::regex_match(text, std::regex(R"(\d{1,9}(,\d{1,9})*)"))) {
        std::stringstream in(text);
        for (std::string part; std::getline(in, part, ',');) bounds.push_back(std::stod(part));
    }
    if (bounds.empty() || (range && bounds[0] > bounds[1]))
        return ArgError("--n: expected a range like 3-16 or a list like 3,4,8, got '" + text + "'");
    for (double n : bounds) {
        if (auto ok = common::CheckRange("--n", n, kPredictRanksRange); !ok) return ok.error();
    }
    std::vector<int> ns;
    if (range) {
        for (int n = static_cast<int>(bounds[0]); n <= bounds[1]; ++n) ns.push_back(n);
    } else {
        ns.assign(bounds.begin(), bounds.end());
    }
    return ns;
}

// A CSV of "n,fps" lines (a header line is allowed); N and FPS range-checked.
Expected<std::vector<std::pair<int, double>>> ReadMeasured(const std::string& path) {
    std::vector<std::pair<int, double>> points;
    if (path.empty()) return points;
    std::ifstream in(path);
    if (!in) return ArgError("--measured '" + path + "': cannot open it");
    std::string line;
    const std::regex row(R"(\s*(\d{1,9})\s*,\s*([0-9.eE+-]+)\s*)");
    for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        const std::string where = "--measured '" + path + "' line " + std::to_string(number);
        if (std::regex_match(line, m, row)) {
            const std::string fpsText = m[2];
            char* end = nullptr;
            double fps = std::strtod(fpsText.c_str(), &end);
            if (*end != '\0') return ArgError(where + ": expected N,FPS");
            double n = std::stod(m[1]);
            if (auto ok = common::CheckRange(where + ": N", n, kPredictRanksRange); !ok)
                return ok.error();
            if (auto ok = common::CheckRange(where + ": FPS", fps, kMeasuredFpsRange); !ok)
                return ok.error();
            points.emplace_back(static_cast<int>(n), fps);
        } else if (number > 1 && !line.empty()) {
            return ArgError(where + ": expected N,FPS");
        }
    }
    return points;
}

Expected<predict::PredictRequest> BuildRequest(const PredictArgs& a) {
    if (a.profilePath.empty() || a.machinePath.empty()) {
        return ArgError("give --profile and --machine (or --seed-case); see bfv predict --help");
    }
    auto loaded = predict::LoadPredictRequest(a.profilePath, a.machinePath);
    if (!loaded) return loaded.error();
    predict::PredictRequest r = *loaded;
    if (!a.hostfile.empty()) {
        if (auto ok = predict::ApplyHostfile(a.hostfile, r.machine); !ok) return ok.error();
    }
    if (a.receiveThreads > 0) r.machine.displayReceiveThreads = a.receiveThreads;
    r.run.decomposition = *common::ParseDecomposition(a.decomposition);  // checked by IsMember
    r.run.codec = *common::ParseColumnCodec(a.columnCodec);
    if (!a.size.empty()) {
        common::ScreenSpec screen;
        if (auto ok = common::ParseScreenSize(a.size, screen); !ok) return ok.error();
        r.run.widthPx = screen.widthPx;
        r.run.heightPx = screen.heightPx;
    }
    if (a.columnsPerMessageOption->count() > 0) {
        if (auto ok = common::CheckRange(
                "--columns-per-message", a.columnsPerMessage,
                common::Range::Closed(1.0, r.run.widthPx, "columns (the screen width)"));
            !ok) {
            return ok.error();
        }
        r.run.columnsPerMessage = a.columnsPerMessage;
    } else {
        // As bfv render does: the default message is at most the screen's width.
        r.run.columnsPerMessage = std::min(r.run.columnsPerMessage, r.run.widthPx);
    }
    auto ns = ParseRanks(a.ranks);
    if (!ns) return ns.error();
    r.ns = *ns;
    if (a.ranksOption->count() == 0) {
        // The default range stops where the tracers would outnumber the screen's columns.
        std::erase_if(r.ns, [&](int n) { return n > std::max(3, r.run.widthPx + 2); });
    }
    auto measured = ReadMeasured(a.measuredPath);
    if (!measured) return measured.error();
    r.measuredFps = *measured;
    return r;
}

void PrintWhatIf(const predict::WhatIf& w) {
    if (w.speedRatio > 0.0) {
        fmt::print(
            "what-if: one machine {:.2f}x as fast runs the sequential program at {:.1f} FPS\n",
            w.speedRatio, w.singleMachineFps);
    }
    if (!(w.targetFps > 0.0)) return;
    std::string cluster = w.ranksForTarget ? fmt::format("N = {} ranks", *w.ranksForTarget)
                                           : "cannot reach it within the N asked";
    std::string single = w.speedRatioForTarget
                             ? fmt::format("needs {:.2f}x this CPU speed", *w.speedRatioForTarget)
                             : "cannot reach it (its non-CPU time alone is too long)";
    fmt::print("target {:.1f} FPS: cluster {}; single machine {}\n", w.targetFps, cluster, single);
}

// Simulates every N of `rows`, printing a line as each finishes, and answers them as JSON:
// [{n, fps, modelFps, partsPercent, busiest, busiestFraction, simulatedS, wallS}].
Expected<nlohmann::json> Simulate(const predict::PredictRequest& request,
                                  const std::vector<predict::PredictRow>& rows,
                                  const predict::SimulationOptions& options) {
    std::printf(
        "\nsimulated (SimGrid, %d frames, the first %d not counted): sim vs model = "
        "(simulated - model) / model\n%5s %10s %10s %12s  %-28s %8s\n",
        options.frames, options.warmupFrames, "N", "model FPS", "sim FPS", "sim vs model",
        "busiest at the simulated rate", "wall s");
    nlohmann::json out = nlohmann::json::array();
    for (const predict::PredictRow& row : rows) {
        predict::ClusterRun run = request.run;
        run.n = row.cluster.prediction.n;
        auto sim = predict::SimulateCluster(request.measured, request.machine, request.links, run,
                                            options);
        if (!sim) return sim.error();
        double model = row.cluster.prediction.fps;
        double parts = (sim->fps - model) / model * 100.0;
        std::string busiest = fmt::format("{} ({:.0f}%)", sim->busiest, sim->busiestFraction * 100);
        std::printf("%5d %10.2f %10.2f %11.1f%%  %-28s %8.2f\n", run.n, model, sim->fps, parts,
                    busiest.c_str(), sim->wallS);
        std::fflush(stdout);
        out.push_back({{"n", run.n},
                       {"fps", sim->fps},
                       {"modelFps", model},
                       {"partsPercent", parts},
                       {"busiest", sim->busiest},
                       {"busiestFraction", sim->busiestFraction},
                       {"simulatedS", sim->simulatedS},
                       {"wallS", sim->wallS}});
    }
    return out;
}

Expected<void> RunPredict(const PredictArgs& a) {
    if (a.simulate) {
        if (auto ok = predict::ValidateSimulationOptions(a.simulation); !ok) return ok;
    }
    auto request = BuildRequest(a);
    if (!request) return request.error();
    auto rows = predict::PredictRows(*request);
    if (!rows) return rows.error();
    std::string verdict = predict::Verdict(*rows);
    predict::WhatIf whatIf = predict::ComputeWhatIf(*request, *rows, a.speedRatio, a.targetFps);
    std::printf("bfv predict: %s on '%s', %dx%d, %d columns/message, K = %d\n",
                a.profilePath.c_str(), request->machine.name.c_str(), request->run.widthPx,
                request->run.heightPx, request->run.columnsPerMessage,
                request->machine.displayReceiveThreads);
    std::fputs(predict::PredictTable(*rows).c_str(), stdout);
    if (request->run.decomposition == common::Decomposition::Dynamic) {
        for (const predict::PredictRow& row : *rows) {
            std::string line = fmt::format("slices at N = {} (columns, trace ms per tracer):",
                                           row.cluster.prediction.n);
            for (const auto& slice : row.cluster.slices)
                line += fmt::format(" {} ({:.1f})", slice.columns, 1e3 * slice.traceS);
            std::printf("%s\n", line.c_str());
        }
    }
    std::printf("verdict: %s\n", verdict.c_str());
    auto codecs = predict::ChooseColumnCodec(*request);
    if (!codecs) return codecs.error();
    int largestN = *std::max_element(request->ns.begin(), request->ns.end());
    std::string codecAdvice = predict::CodecAdvice(*codecs, largestN);
    std::printf("%s\n", codecAdvice.c_str());
    PrintWhatIf(whatIf);
    if (!a.tracePath.empty()) {
        const predict::PredictRow& row =
            *std::find_if(rows->begin(), rows->end(),
                          [&](const auto& r) { return r.cluster.prediction.n == largestN; });
        if (auto ok =
                common::WriteTimeline(a.tracePath, predict::PredictedTimeline(row.cluster, 4));
            !ok) {
            return ok;
        }
        std::printf("wrote the predicted schedule of 4 frames at N = %d to %s\n", largestN,
                    a.tracePath.c_str());
    }
    nlohmann::json simulated = nlohmann::json::array();
    if (a.simulate) {
        auto sims = Simulate(*request, *rows, a.simulation);
        if (!sims) return sims.error();
        simulated = *sims;
    }
    if (a.jsonPath.empty()) return {};
    nlohmann::json doc = predict::PredictJson(*rows, verdict, whatIf);
    doc["columnCodecAdvice"] = codecAdvice;
    if (a.simulate) doc["simulated"] = simulated;
    std::string json = doc.dump(2) + "\n";
    return common::WriteFileAtomic(a.jsonPath, std::as_bytes(std::span(json.data(), json.size())));
}

// The paper's case: eq. 20 (time slices, 256 B columns) and eqs. 22a/b (node budgets,
// columns buffered into one message per tracer), N = 3..16.
void RunSeedCase() {
    predict::ScheduleInputs inputs;
    inputs.app = predict::SeedCase();
    inputs.terrainLink = inputs.screenLink = {0.47e-3, 2.1e6, 5.3e6};  // Table 2, LAM/MPI
    std::printf("The source paper's case (Pentium 100, 256x256, LAM/MPI on 10 Mbit Ethernet):\n");
    std::printf("sequential %.2f FPS\n%3s %10s %-16s %12s %-16s\n",
                predict::SequentialFps(inputs.app), "N", "eq.20 FPS", "binding", "eq.22 FPS",
                "binding");
    for (int n = 3; n <= 16; ++n) {
        auto slices = predict::PredictTimeSlices(inputs, n);
        predict::ScheduleInputs buffered = inputs;
        buffered.bufferColumns = true;
        buffered.displayReceiveSpeedup = 1.2;
        auto budgets = predict::PredictNodeBudgets(buffered, n);
        std::printf("%3d %10.2f %-16s %12.2f %-16s\n", n, slices->fps,
                    std::string(predict::TermName(slices->binding)).c_str(), budgets->fps,
                    std::string(predict::TermName(budgets->binding)).c_str());
    }
}

// What the predicted runs look like, where the profile's or the machine's default does not
// do: screen, message size, receive threads, decomposition, codec.
void AddRunOptions(CLI::App& cmd, PredictArgs& args) {
    CLI::Option_group* group =
        cmd.add_option_group("Run", "The predicted runs, where not the profile's or machine's");
    group->add_option("--size", args.size, "Screen WIDTHxHEIGHT (default: the profile's)");
    args.columnsPerMessageOption =
        group->add_option("--columns-per-message", args.columnsPerMessage,
                          "MSGZ in columns, 1 to the screen width (default: the profile's, or "
                          "the screen width if narrower)");
    group
        ->add_option("-K,--receive-threads", args.receiveThreads,
                     "Display receive threads (default: the machine's)")
        ->check(InRange(common::kReceiveThreadsRange));
    group
        ->add_option("--decomposition", args.decomposition,
                     "contiguous (slices: the profile's per-column costs set each tracer's load), "
                     "interleaved, or dynamic (slices balanced to equal trace time, on hosts of "
                     "different speeds too); each tracer also pays for the planes of the "
                     "profile's camera its columns make it cast")
        ->check(CLI::IsMember(NamesOf(common::kDecompositions)))
        ->capture_default_str();
    group
        ->add_option("--column-codec", args.columnCodec,
                     "Predict with the columns compressed: none, lz4 or zstd (the profile's "
                     "measured ratio and CPU); every run also says which codec is fastest")
        ->check(CLI::IsMember(NamesOf(common::kColumnCodecs)))
        ->capture_default_str();
}

// Where the prediction also goes (JSON, a trace), and measurements to compare it with.
void AddOutputOptions(CLI::App& cmd, PredictArgs& args) {
    CLI::Option_group* group = cmd.add_option_group("Output", "Files written and compared with");
    group->add_option("--json", args.jsonPath, "Also write the prediction as JSON here");
    group->add_option("--trace", args.tracePath,
                      "Write the predicted schedule of 4 frames at the largest N as Chrome trace "
                      "events (JSON), to open in ui.perfetto.dev beside `bfv render --trace`");
    group->add_option("--measured", args.measuredPath,
                      "CSV of measured N,FPS: error column and Karp-Flatt fit");
}

// What-if questions, and the simulation beside the analytic model.
void AddWhatIfOptions(CLI::App& cmd, PredictArgs& args) {
    CLI::Option_group* whatIf = cmd.add_option_group("What-if", "Questions the model answers");
    whatIf
        ->add_option("--single-machine-speed", args.speedRatio,
                     "What-if: a single machine this many times faster")
        ->check(InRange(kWhatIfRange));
    whatIf
        ->add_option("--target-fps", args.targetFps,
                     "What-if: fewest ranks, or CPU speed-up, reaching this FPS")
        ->check(InRange(kWhatIfRange));
    CLI::Option_group* simulation =
        cmd.add_option_group("Simulation", "Each N's frame schedule played out (SimGrid)");
    simulation->add_flag("--simulate", args.simulate,
                         "Also simulate each N's frame schedule (SimGrid) and print where it "
                         "parts from the analytic model (and into --json as \"simulated\")");
    simulation
        ->add_option("--simulate-frames", args.simulation.frames,
                     "Frames each simulation plays out")
        ->check(InRange(predict::kSimulatedFramesRange))
        ->capture_default_str();
    simulation
        ->add_option("--simulate-warmup", args.simulation.warmupFrames,
                     "Frames of each simulation not counted (the pipeline filling); >= 1 and "
                     "below --simulate-frames")
        ->capture_default_str();
}

}  // namespace

void AddPredictCommand(CLI::App& app) {
    auto args = std::make_shared<PredictArgs>();
    CLI::App* cmd = AddSubcommand(app, "predict", kPredictHelp);
    cmd->add_option("--profile", args->profilePath, "Resource profile from bfv render --profile");
    cmd->add_option("--machine", args->machinePath, "Machine description (JSON, see above)");
    cmd->add_option("--hostfile", args->hostfile, "MPICH hostfile placing the ranks (host:slots)");
    args->ranksOption =
        cmd->add_option(
               "--n", args->ranks,
               "Ranks to predict: a range 3-16 or a list 3,4,8 (" + kPredictRanksRange.Describe() +
                   "; the default stops before the tracers outnumber the screen's columns)")
            ->capture_default_str();
    cmd->add_flag("--seed-case", args->seedCase, "Print the source paper's own predictions");
    AddRunOptions(*cmd, *args);
    AddOutputOptions(*cmd, *args);
    AddWhatIfOptions(*cmd, *args);
    cmd->callback([args] {
        if (args->seedCase) return RunSeedCase();
        if (auto ok = RunPredict(*args); !ok) {
            std::fprintf(stderr, "bfv predict: %s\n", ok.error().message.c_str());
            throw CLI::RuntimeError(1);
        }
    });
}

}  // namespace bfv::tools
