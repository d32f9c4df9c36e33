#include "predict/predict_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/messages.h"
#include "predict/machine_file.h"
#include "predict/resource_profile.h"

namespace bfv::predict {

namespace {

using nlohmann::json;

double PixelScale(const PredictRequest& r) {
    return static_cast<double>(r.run.widthPx) * r.run.heightPx /
           (static_cast<double>(r.measured.widthPx) * r.measured.heightPx);
}

// Seconds of the sequential frame on a host of relative speed `speed` (eq. 7), and the part
// of it that is not the ray trace.
struct SequentialFrame {
    double totalS = 0.0;
    double serialS = 0.0;
};

SequentialFrame SequentialAt(const PredictRequest& r, double speed) {
    auto onHost = [speed](const Calculation& c, double scale) {
        return c.rtexS * scale * (c.cpuFraction / speed + 1.0 - c.cpuFraction);
    };
    double scale = PixelScale(r);
    double traceS = onHost(r.measured.app.rayTrace, scale);
    double serialS = onHost(r.measured.app.display, scale) +
                     onHost(r.measured.app.terrainServer, 1.0) +
                     onHost(r.measured.app.tileReceive, 1.0);
    return {traceS + serialS, serialS};
}

void AddComparisons(const PredictRequest& req, std::optional<double> karpFlattF, PredictRow& row) {
    double speed = req.machine.hosts.front().cpuSpeed;
    SequentialFrame seq = SequentialAt(req, speed);
    double seqFps = 1.0 / seq.totalS, f = seq.serialS / seq.totalS,
           p = row.cluster.prediction.n - 2;
    row.amdahlFps = seqFps * AmdahlSpeedup(f, p);
    row.gustafsonFps = seqFps * GustafsonSpeedup(f, p);
    if (karpFlattF) row.karpFlattFps = seqFps * AmdahlSpeedup(*karpFlattF, p);
    double r = speed * speed;  // BCEs per node: perf(r) = sqrt(r) = the node's speed
    row.hillMartyFps = HillMartySymmetricSpeedup(1.0 - f, p * r, r) / SequentialAt(req, 1.0).totalS;
    row.sunChenFps = seqFps * SunChenMemoryBoundedSpeedup(1.0 - f, p, std::sqrt(p));
    double msgBytes = static_cast<double>(
        common::ColumnsMessageBytes(req.run.columnsPerMessage, req.run.heightPx));
    const auto& nics = req.machine.hosts[row.cluster.ranks.back().host].nics;  // the display's
    const LinkProfile& link = req.links.at(nics.empty() ? req.machine.intraHostLink : nics.front());
    LinkParams lp = link.ParamsFor(msgBytes);
    LatencyBandwidthParams net{lp.alcbwBytesPerS, 0.0, 0.0, lp.msgSetupS};
    DistributedRun run{seq.totalS, 1.0 - f, p,
                       std::ceil(static_cast<double>(req.run.widthPx) / req.run.columnsPerMessage),
                       msgBytes};
    row.latencyBandwidthFps = 1.0 / LatencyBandwidthTimeS(net, run);
}

Expected<std::optional<double>> FitKarpFlatt(const PredictRequest& r) {
    if (r.measuredFps.empty()) return std::optional<double>();
    std::vector<ScalingPoint> points{{1, SequentialAt(r, r.machine.hosts.front().cpuSpeed).totalS}};
    for (auto [n, fps] : r.measuredFps) {
        if (!(fps > 0.0))
            return Error{"measured FPS at N = " + std::to_string(n) + " must be positive"};
        if (n >= 3) points.push_back({n - 2, 1.0 / fps});
    }
    if (points.size() < 2) return std::optional<double>();
    auto f = FitSerialFraction(points);
    if (!f) return f.error();
    return std::optional<double>(*f);
}

std::string Fmt(std::optional<double> v) { return v ? fmt::format("{:8.1f}", *v) : "       -"; }

}  // namespace

Expected<PredictRequest> LoadPredictRequest(const std::string& profilePath,
                                            const std::string& machinePath) {
    auto profile = ReadResourceProfile(profilePath);
    if (!profile) return profile.error();
    auto machine = ReadMachineFile(machinePath);
    if (!machine) return machine.error();
    PredictRequest r;
    r.measured = {profile->app,    profile->widthPx, profile->heightPx, profile->columnCostShares,
                  profile->codecs, profile->view};
    r.machine = machine->machine;
    r.links = machine->links;
    r.run = {profile->widthPx,
             profile->heightPx,
             profile->columnsPerMessage,
             3,
             common::Decomposition::Contiguous,
             common::ColumnCodec::None};
    return r;
}

Expected<common::RunPrediction> PredictRender(PredictRequest request,
                                              const common::RenderOptions& options, int nRanks) {
    request.machine.displayReceiveThreads = options.pipeline.receiveThreads;
    ClusterRun run{options.view.screen.widthPx,        options.view.screen.heightPx,
                   options.pipeline.columnsPerMessage, nRanks,
                   options.pipeline.decomposition,     options.pipeline.columnCodec};
    auto cluster = PredictCluster(request.measured, request.machine, request.links, run);
    if (!cluster) return cluster.error();
    return common::RunPrediction{cluster->prediction.fps,
                                 std::string(TermName(cluster->prediction.binding)),
                                 BusiestRole(*cluster), request.machine.name, ""};
}

std::vector<common::RankTimeline> PredictedTimeline(const ClusterPrediction& cluster, int frames) {
    const Prediction& p = cluster.prediction;
    double periodS = p.fps > 0.0 ? 1.0 / p.fps : 0.0;
    double sendS = p.SPerFrame(Term::Send);
    double traceS = 0.0;  // the slowest tracer's trace: the display's columns are complete then
    for (const RankBudget& rank : cluster.ranks) {
        if (rank.role == common::Role::RayTracer)
            traceS = std::max(traceS, rank.wallSPerFrame - sendS);
    }
    std::vector<common::RankTimeline> timelines;
    for (const RankBudget& rank : cluster.ranks) {
        common::RankTimeline& t = timelines.emplace_back();
        t.rank = rank.rank;
        t.name = fmt::format("r{} {} (predicted, host {})", rank.rank, common::RoleName(rank.role),
                             rank.host);
        for (int f = 0; f < frames; ++f) {
            double startS = f * periodS;
            auto add = [&](common::Activity activity, double atS, double durationS, int thread) {
                if (durationS > 0.0) t.events.push_back({atS, durationS, activity, thread});
            };
            if (rank.role == common::Role::RayTracer) {
                double mineS = std::max(rank.wallSPerFrame - sendS, 0.0);
                add(common::Activity::Trace, startS, mineS, 0);
                add(common::Activity::Send, startS + mineS, sendS, 0);
            } else if (rank.role == common::Role::Display) {
                double receiveS = p.SPerFrame(Term::DisplayReceive);
                add(common::Activity::Receive, startS + traceS, receiveS, 1);
                add(common::Activity::Present, startS + traceS + receiveS,
                    p.SPerFrame(Term::DisplayWork), 0);
            } else {
                add(common::Activity::TerrainSend, startS, p.SPerFrame(Term::TerrainStream), 0);
            }
        }
    }
    return timelines;
}

Expected<std::vector<PredictRow>> PredictRows(const PredictRequest& request) {
    auto karpFlatt = FitKarpFlatt(request);
    if (!karpFlatt) return karpFlatt.error();
    std::vector<PredictRow> rows;
    for (int n : request.ns) {
        ClusterRun run = request.run;
        run.n = n;
        auto cluster = PredictCluster(request.measured, request.machine, request.links, run);
        if (!cluster) return cluster.error();
        PredictRow row;
        row.cluster = *cluster;
        AddComparisons(request, *karpFlatt, row);
        for (auto [mn, fps] : request.measuredFps) {
            if (mn == n) row.measuredFps = fps;
        }
        rows.push_back(row);
    }
    return rows;
}

Expected<std::vector<CodecChoice>> ChooseColumnCodec(const PredictRequest& request) {
    std::vector<common::ColumnCodec> codecs{common::ColumnCodec::None};
    for (const CodecCost& cost : request.measured.codecs) codecs.push_back(cost.codec);
    std::vector<CodecChoice> choices;
    for (common::ColumnCodec codec : codecs) {
        ClusterRun run = request.run;
        run.n = *std::max_element(request.ns.begin(), request.ns.end());
        run.codec = codec;
        auto cluster = PredictCluster(request.measured, request.machine, request.links, run);
        if (!cluster) return cluster.error();
        choices.push_back({codec, cluster->prediction.fps, cluster->prediction.binding});
    }
    constexpr double kWorthIt = 1.01;  // a codec must beat none by more than 1%
    auto effective = [&](const CodecChoice& c) {
        return c.codec == common::ColumnCodec::None ? c.fps * kWorthIt : c.fps;
    };
    std::stable_sort(
        choices.begin(), choices.end(),
        [&](const CodecChoice& a, const CodecChoice& b) { return effective(a) > effective(b); });
    return choices;
}

std::string CodecAdvice(const std::vector<CodecChoice>& choices, int n) {
    std::string s = fmt::format("column codec at N = {}:", n);
    for (std::size_t k = 0; k < choices.size(); ++k) {
        s += fmt::format("{} {} {:.1f}{}", k ? "," : "", common::ToString(choices[k].codec),
                         choices[k].fps, k ? "" : " FPS");
    }
    if (choices.size() == 1) return s + " (the profile measured no codec: profile again)";
    return s + fmt::format(" ({}): use --column-codec {}", TermName(choices[0].binding),
                           common::ToString(choices[0].codec));
}

std::string Verdict(const std::vector<PredictRow>& rows) {
    if (rows.empty()) return "no ranks asked for";
    std::string verdict;
    size_t start = 0;
    for (size_t i = 1; i <= rows.size(); ++i) {
        if (i < rows.size() &&
            rows[i].cluster.prediction.binding == rows[start].cluster.prediction.binding)
            continue;
        std::string term(TermName(rows[start].cluster.prediction.binding));
        int from = rows[start].cluster.prediction.n, to = rows[i - 1].cluster.prediction.n;
        verdict +=
            fmt::format("{}{} bound {}", verdict.empty() ? "" : ", ", term,
                        start == 0 && i == rows.size() ? fmt::format("for N = {}..{}", from, to)
                        : start == 0                   ? fmt::format("up to N = {}", to)
                                                       : fmt::format("from N = {}", from));
        if (rows[start].cluster.prediction.binding == Term::DisplayReceive) {
            verdict += fmt::format(" (at N = {}: {})", to, rows[i - 1].cluster.displayReceiveBound);
        }
        start = i;
    }
    double best = 0.0;
    for (const PredictRow& r : rows) best = std::max(best, r.cluster.prediction.fps);
    return verdict + fmt::format(" (best {:.1f} FPS)", best);
}

WhatIf ComputeWhatIf(const PredictRequest& request, const std::vector<PredictRow>& rows,
                     double speedRatio, double targetFps) {
    WhatIf w;
    w.speedRatio = speedRatio;
    w.targetFps = targetFps;
    double base = request.machine.hosts.front().cpuSpeed;
    if (speedRatio > 0.0)
        w.singleMachineFps = 1.0 / SequentialAt(request, base * speedRatio).totalS;
    if (!(targetFps > 0.0)) return w;
    for (const PredictRow& r : rows) {
        if (r.cluster.prediction.fps >= targetFps) {
            w.ranksForTarget = r.cluster.prediction.n;
            break;
        }
    }
    // 1/target = sum of RTEX (CPU% / R + 1 - CPU%) over the calculations (eq. 7), solved for R.
    SequentialFrame cpuBound = SequentialAt(request, 1e12);  // the part speed cannot shrink
    SequentialFrame atBase = SequentialAt(request, base);
    double cpuS = (atBase.totalS - cpuBound.totalS) * base;  // CPU seconds at speed 1
    double room = 1.0 / targetFps - cpuBound.totalS;
    if (room > 0.0) w.speedRatioForTarget = cpuS / room / base;
    return w;
}

std::string PredictTable(const std::vector<PredictRow>& rows) {
    std::string s = fmt::format(
        "{:>3} {:>8} {:<16} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} | {:>8} {:>8} {:>8} {:>8} {:>8} "
        "{:>8} {:>8}\n",
        "N", "FPS", "binding", "trace", "send", "recv", "disp", "hostCPU", "quota", "measured",
        "Amdahl", "Gustafsn", "KarpFlt", "HillMrty", "SunChen", "LatBw");
    s += fmt::format("{:>3} {:>8} {:<16} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} |\n", "", "", "", "ms",
                     "ms", "ms", "ms", "ms", "ms");
    for (const PredictRow& r : rows) {
        const Prediction& p = r.cluster.prediction;
        auto ms = [&](Term t) { return p.SPerFrame(t) * 1e3; };
        s += fmt::format(
            "{:>3} {:>8.1f} {:<16} {:>7.2f} {:>7.2f} {:>7.2f} {:>7.2f} {:>7.2f} {:>7.2f} | {} "
            "{:>8.1f} {:>8.1f} {} {:>8.1f} {:>8.1f} {:>8.1f}\n",
            p.n, p.fps, TermName(p.binding), ms(Term::RayTrace), ms(Term::Send),
            ms(Term::DisplayReceive), ms(Term::DisplayWork), ms(Term::HostCpu), ms(Term::HostQuota),
            Fmt(r.measuredFps), r.amdahlFps, r.gustafsonFps, Fmt(r.karpFlattFps), r.hillMartyFps,
            r.sunChenFps, r.latencyBandwidthFps);
    }
    return s;
}

json PredictJson(const std::vector<PredictRow>& rows, const std::string& verdict, const WhatIf& w) {
    json out = {{"bfvPredictionVersion", 1}, {"verdict", verdict}, {"rows", json::array()}};
    for (const PredictRow& r : rows) {
        const Prediction& p = r.cluster.prediction;
        json terms = json::object();
        for (int t = 0; t < kTermCount; ++t)
            terms[std::string(TermName(static_cast<Term>(t)))] = p.sPerFrame[t];
        json ranks = json::array();
        for (const RankBudget& b : r.cluster.ranks) {
            ranks.push_back({{"rank", b.rank},
                             {"role", b.role},
                             {"host", b.host},
                             {"wallSPerFrame", b.wallSPerFrame},
                             {"cpuSPerFrame", b.cpuSPerFrame}});
        }
        json slices = json::array();
        for (const ClusterPrediction::Slice& slice : r.cluster.slices)
            slices.push_back({{"columns", slice.columns}, {"traceS", slice.traceS}});
        json row = {{"n", p.n},
                    {"fps", p.fps},
                    {"binding", TermName(p.binding)},
                    {"bindingRole", BusiestRole(r.cluster)},
                    {"displayReceiveBound", r.cluster.displayReceiveBound},
                    {"sPerFrame", terms},
                    {"ranks", ranks},
                    {"slices", slices},
                    {"sequentialFps", r.cluster.sequentialFps},
                    {"comparisons",
                     {{"amdahl", r.amdahlFps},
                      {"gustafson", r.gustafsonFps},
                      {"hillMarty", r.hillMartyFps},
                      {"sunChen", r.sunChenFps},
                      {"latencyBandwidth", r.latencyBandwidthFps}}}};
        if (r.karpFlattFps) row["comparisons"]["karpFlatt"] = *r.karpFlattFps;
        if (r.measuredFps) {
            row["measuredFps"] = *r.measuredFps;
            row["errorPercent"] = 100.0 * (*r.measuredFps - p.fps) / *r.measuredFps;
        }
        out["rows"].push_back(row);
    }
    if (w.speedRatio > 0.0)
        out["whatIf"]["singleMachine"] = {{"speedRatio", w.speedRatio},
                                          {"fps", w.singleMachineFps}};
    if (w.targetFps > 0.0) {
        json target = {{"fps", w.targetFps}};
        target["clusterRanks"] = w.ranksForTarget ? json(*w.ranksForTarget) : json(nullptr);
        target["singleMachineSpeedRatio"] =
            w.speedRatioForTarget ? json(*w.speedRatioForTarget) : json(nullptr);
        out["whatIf"]["target"] = target;
    }
    return out;
}

}  // namespace bfv::predict
