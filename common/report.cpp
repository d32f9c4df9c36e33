#include "common/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/mpi_group.h"
#include "common/statistics.h"

namespace bfv::common {

namespace {

using nlohmann::json;

std::string RankRoleName(const RunReport& report, const RankSummary& rank) {
    if (report.mode == RunMode::Sequential) return RunModeName(report.mode);
    return RoleName(static_cast<Role>(rank.role));
}

json ActivityJson(const ActivityStats& s, int frames) {
    double perFrame = frames > 0 ? 1.0 / frames : 0.0;
    json j{{"wallS", s.wallS},
           {"cpuS", s.cpuS},
           {"cpuPercent", s.wallS > 0 ? 100.0 * s.cpuS / s.wallS : 0.0},
           {"bytes", s.bytes},
           {"messages", s.messages},
           {"rtexSPerFrame", s.wallS * perFrame}};
    if (s.messages > 0) {
        j["dvolBytesPerFrame"] = s.bytes * perFrame;
        j["msgzBytes"] = s.bytes / s.messages;
        j["nMsgPerFrame"] = s.messages * perFrame;
    }
    return j;
}

json SlicesJson(const std::vector<TracerSlice>& slices) {
    json out = json::array();
    for (std::size_t t = 0; t < slices.size(); ++t) {
        out.push_back({{"tracer", t},
                       {"columnsMean", slices[t].ColumnsMean()},
                       {"traceSMean", slices[t].TraceSMean()},
                       {"frames", slices[t].frames}});
    }
    return out;
}

json RankJson(const RunReport& report, const RankSummary& rank) {
    int frames = static_cast<int>(report.frameTimesS.size());
    json activities = json::object();
    for (int a = 0; a < kActivityCount; ++a) {
        const ActivityStats& s = rank.activities[a];
        if (s.wallS > 0 || s.bytes > 0) {
            activities[std::string(ActivityName(static_cast<Activity>(a)))] =
                ActivityJson(s, frames);
        }
    }
    json out = {{"rank", rank.rank},
                {"role", RankRoleName(report, rank)},
                {"wallS", rank.wallS},
                {"peakRssMiB", rank.peakRssMiB},
                {"activities", activities}};
    if (rank.residentTileMiB > 0) out["residentTileMiB"] = rank.residentTileMiB;
    if (const CpuQuota& q = rank.cpuQuota; q.cores > 0) {
        out["cpuQuota"] = {{"cores", q.cores},
                           {"periodS", q.periodS},
                           {"periods", q.periods},
                           {"throttledPeriods", q.throttledPeriods},
                           {"throttledS", q.throttledS}};
    }
    const TerrainStreamStats& t = rank.terrain;
    if (t.tilesSent > 0 || t.tilesRead > 0 || t.queueDepthMax > 0) {
        double wall = std::max(rank.wallS, 1e-9);
        out["terrainStream"] = {
            {"tilesSent", t.tilesSent},        {"tilesPerS", t.tilesSent / wall},
            {"bytesSent", t.bytesSent},        {"bytesPerS", t.bytesSent / wall},
            {"tilesEvicted", t.tilesEvicted},  {"tilesRead", t.tilesRead},
            {"tilesRefined", t.tilesRefined},  {"queueDepthMean", t.queueDepthMean},
            {"queueDepthMax", t.queueDepthMax}};
    }
    return out;
}

json TerrainJson(const TerrainOptions& o) {
    return {{"terrainPath", o.terrainPath},
            {"terrainMessageBytes", o.terrainMessageBytes},
            {"terrainBudgetBytesPerS", o.terrainBudgetBytesPerS},
            {"terrainSync", o.terrainSync},
            {"preload", o.preload},
            {"cacheMiB", o.cacheMiB},
            {"blendFrames", o.blendFrames}};
}

json ViewJson(const ViewOptions& o) {
    return {{"flightPath", o.flightPath.empty() ? "default circuit" : o.flightPath},
            {"widthPx", o.screen.widthPx},
            {"heightPx", o.screen.heightPx},
            {"hFovDeg", DegreesFromRadians(o.screen.hFovRad)},
            {"aglM", o.flightStyle.aglM},
            {"pitchDeg", DegreesFromRadians(o.flightStyle.pitchRad)},
            {"speedMPerS", o.flightStyle.speedMPerS},
            {"frameDtS", o.frameDtS},
            {"recordPath", o.recordPath}};
}

json ShadingJson(const ShadingOptions& o) {
    return {{"hazeHalfDistanceM", o.hazeHalfDistanceM},
            {"lodBias", o.lodBias},
            {"maxAnisotropy", o.maxAnisotropy},
            {"secantMaxCellPixels", o.secantMaxCellPixels},
            {"seaLevelM", o.seaLevelM ? json(*o.seaLevelM) : json(nullptr)},
            {"water", o.water},
            {"sunAzimuthDeg", o.sunAzimuthDeg},
            {"sunElevationDeg", o.sunElevationDeg},
            {"shadows", o.shadows}};
}

json PipelineJson(const PipelineOptions& o) {
    return {{"sequential", o.sequential},
            {"threads", o.threads},
            {"decomposition", ToString(o.decomposition)},
            {"columnsPerMessage", o.columnsPerMessage},
            {"receiveThreads", o.receiveThreads},
            {"columnCodec", ToString(o.columnCodec)}};
}

json OutputJson(const OutputOptions& o) {
    return {{"headless", o.headless}, {"frames", o.frames},     {"warmupFrames", o.warmupFrames},
            {"outDir", o.outDir},     {"pngEvery", o.pngEvery}, {"tracePath", o.tracePath},
            {"serve", o.serve}};
}

// The options by concern, one object per RenderOptions part, keys named as its fields.
json OptionsJson(const RenderOptions& o) {
    return {
        {"terrain", TerrainJson(o.terrain)},
        {"view", ViewJson(o.view)},
        {"shading", ShadingJson(o.shading)},
        {"pipeline", PipelineJson(o.pipeline)},
        {"output", OutputJson(o.output)},
        {"prediction",
         {{"profilePath", o.prediction.profilePath}, {"machinePath", o.prediction.machinePath}}},
        {"liveness", {{"stallTimeoutS", o.liveness.stallTimeoutS}}}};
}

}  // namespace

const char* RunModeName(RunMode mode) {
    switch (mode) {
        case RunMode::Mpi:
            return "mpi";
        case RunMode::Sequential:
            return "sequential";
    }
    return "?";
}

const char* RunEndName(RunEnd end) {
    switch (end) {
        case RunEnd::Completed:
            return "completed";
        case RunEnd::Interrupted:
            return "interrupted";
        case RunEnd::Stalled:
            return "stalled";
        case RunEnd::Failed:
            return "failed";
        case RunEnd::Lost:
            return "lost";
    }
    return "?";
}

void to_json(nlohmann::json& j, RunMode mode) { j = RunModeName(mode); }

void to_json(nlohmann::json& j, RunEnd end) { j = RunEndName(end); }

FpsStats ComputeFpsStats(std::span<const double> frameTimesS) {
    FpsStats stats;
    if (frameTimesS.empty()) return stats;
    std::vector<double> fps;
    for (double t : frameTimesS) fps.push_back(1.0 / t);
    std::sort(fps.begin(), fps.end());
    double total = std::accumulate(frameTimesS.begin(), frameTimesS.end(), 0.0);
    stats.frames = static_cast<int>(frameTimesS.size());
    stats.mean = stats.frames / total;
    stats.median = Percentile(fps, 0.5);
    stats.p5 = Percentile(fps, 0.05);
    stats.p95 = Percentile(fps, 0.95);
    return stats;
}

namespace {

// Per-frame values without the first `warmupFrames`, or all of them when there are no more.
std::span<const double> AfterWarmup(const std::vector<double>& perFrame, int warmupFrames) {
    size_t skip = std::min<size_t>(warmupFrames, perFrame.size());
    if (skip == perFrame.size()) skip = 0;  // too few frames: count them all
    return std::span<const double>(perFrame).subspan(skip);
}

}  // namespace

FpsStats RunReport::Fps() const {
    return ComputeFpsStats(AfterWarmup(frameTimesS, options.output.warmupFrames));
}

double RunReport::TraceImbalanceMean() const {
    return Mean(AfterWarmup(traceImbalance, options.output.warmupFrames));
}

double RunReport::TraceImbalanceMax() const {
    auto counted = AfterWarmup(traceImbalance, options.output.warmupFrames);
    return counted.empty() ? 0.0 : *std::max_element(counted.begin(), counted.end());
}

std::optional<MeasuredBinding> MeasureBinding(const RunReport& report) {
    std::optional<MeasuredBinding> out;
    for (const RankSummary& r : report.ranks) {
        if (r.role != static_cast<int>(Role::RayTracer)) continue;
        auto wallS = [&](Activity a) { return r.activities[static_cast<int>(a)].wallS; };
        double idleS = wallS(Activity::Wait) + wallS(Activity::Send);
        double totalS = idleS + wallS(Activity::Trace) + wallS(Activity::Pack);
        double idleShare = totalS > 0.0 ? idleS / totalS : 1.0;
        if (!out || idleShare < out->busiestTracerIdleShare) {
            out = MeasuredBinding{Role::RayTracer, idleShare};
        }
    }
    if (out && out->busiestTracerIdleShare >= kTracerBoundIdleShare) out->role = Role::Display;
    return out;
}

double RunReport::ColumnWireBytes() const {
    double bytes = 0.0;
    for (const RankSummary& r : ranks) {
        if (r.role == static_cast<int>(Role::Display)) {
            bytes += r.activities[static_cast<int>(Activity::Receive)].bytes;
        }
    }
    return bytes;
}

namespace {

// The columns' trip to the display: the codec, raw and wire bytes, and the compression ratio.
json ColumnsJson(const RunReport& report) {
    double wire = report.ColumnWireBytes();
    return {{"codec", ToString(report.options.pipeline.columnCodec)},
            {"rawBytes", report.columnRawBytes},
            {"wireBytes", wire},
            {"compressionRatio", wire > 0 ? report.columnRawBytes / wire : 1.0}};
}

// The run's own prediction and its error, or null.
json PredictionJson(const RunReport& report) {
    if (!report.prediction) return nullptr;
    const RunPrediction& p = *report.prediction;
    return {{"fps", p.fps},
            {"binding", p.binding},
            {"bindingRole", p.bindingRole},
            {"machine", p.machineName},
            {"profile", p.profilePath},
            {"measuredFps", report.Fps().mean},
            {"errorPct", report.PredictionErrorPct()}};
}

// Where the run's time went (MeasureBinding), or null.
json MeasuredBindingJson(const RunReport& report) {
    std::optional<MeasuredBinding> binding = MeasureBinding(report);
    if (!binding) return nullptr;
    return {{"role", binding->role}, {"busiestTracerIdleShare", binding->busiestTracerIdleShare}};
}

}  // namespace

double RunReport::PredictionErrorPct() const {
    if (!prediction || !(prediction->fps > 0.0)) return 0.0;
    return 100.0 * (Fps().mean / prediction->fps - 1.0);
}

json ReportJson(const RunReport& report) {
    FpsStats fps = report.Fps();
    json ranks = json::array();
    for (const RankSummary& r : report.ranks) ranks.push_back(RankJson(report, r));
    json checksums = json::array();
    for (std::uint64_t c : report.checksums) checksums.push_back(fmt::format("{:016x}", c));
    return {{"bfvReportVersion", 1},
            {"mode", report.mode},
            {"end", report.end},
            {"endReason", report.endReason},
            {"nRanks", report.nRanks},
            {"terrainName", report.terrainName},
            {"options", OptionsJson(report.options)},
            {"fps",
             {{"mean", fps.mean},
              {"median", fps.median},
              {"p5", fps.p5},
              {"p95", fps.p95},
              {"framesCounted", fps.frames}}},
            {"frameTimesS", report.frameTimesS},
            {"frameChecksums", checksums},
            {"resolutionDeficit", report.resolutionDeficit},
            {"resolutionDeficitMean", Mean(report.resolutionDeficit)},
            {"traceImbalance", report.traceImbalance},
            {"slices", SlicesJson(report.slices)},
            {"traceImbalanceMean", report.TraceImbalanceMean()},
            {"traceImbalanceMax", report.TraceImbalanceMax()},
            {"columns", ColumnsJson(report)},
            {"pngQueueWaits", report.pngQueueWaits},
            {"pngQueueWaitS", report.pngQueueWaitS},
            {"prediction", PredictionJson(report)},
            {"measuredBinding", MeasuredBindingJson(report)},
            {"ranks", ranks}};
}

std::string ReportSummary(const RunReport& report) {
    FpsStats fps = report.Fps();
    const RenderOptions& o = report.options;
    std::string s = fmt::format(
        "bfv render: {} frames of {}x{} over '{}', {} ({} ranks, {}, {} columns/message, "
        "K={})\n  FPS mean {:.2f}  median {:.2f}  p5 {:.2f}  p95 {:.2f}  ({} warm-up frames "
        "excluded)\n",
        report.frameTimesS.size(), o.view.screen.widthPx, o.view.screen.heightPx,
        report.terrainName, RunModeName(report.mode), report.nRanks,
        ToString(o.pipeline.decomposition), o.pipeline.columnsPerMessage, o.pipeline.receiveThreads,
        fps.mean, fps.median, fps.p5, fps.p95, report.frameTimesS.size() - fps.frames);
    if (report.prediction) {
        s += fmt::format(
            "  predicted {:.2f} FPS on '{}' ({} bound, busiest rank: {}): measured {:.2f}, "
            "{:+.1f}%\n",
            report.prediction->fps, report.prediction->machineName, report.prediction->binding,
            RoleName(report.prediction->bindingRole), fps.mean, report.PredictionErrorPct());
    }
    if (std::optional<MeasuredBinding> binding = MeasureBinding(report)) {
        s += fmt::format("  measured binding: {} (the busiest tracer idle {:.0f}% of its time)\n",
                         RoleName(binding->role), 100.0 * binding->busiestTracerIdleShare);
    }
    if (report.end != RunEnd::Completed) {
        s += fmt::format("  ended after {} frames: {}\n", report.frameTimesS.size(),
                         report.endReason);
    }
    if (report.pngQueueWaits > 0) {
        s += fmt::format(
            "  {} frames waited {:.3f} s in all for the PNG writer (not in their times)\n",
            report.pngQueueWaits, report.pngQueueWaitS);
    }
    s += fmt::format("  resolution deficit {:.1f}% of terrain samples (mean over frames)\n",
                     100.0 * Mean(report.resolutionDeficit));
    if (!report.traceImbalance.empty()) {
        s += fmt::format("  trace imbalance (slowest tracer / mean) {:.3f} mean, {:.3f} max ({})\n",
                         report.TraceImbalanceMean(), report.TraceImbalanceMax(),
                         ToString(o.pipeline.decomposition));
    }
    if (o.pipeline.decomposition == Decomposition::Dynamic && !report.slices.empty()) {
        s += "  slices (mean columns, trace ms per tracer):";
        for (const TracerSlice& t : report.slices)
            s += fmt::format(" {:.0f} ({:.1f})", t.ColumnsMean(), 1e3 * t.TraceSMean());
        s += "\n";
    }
    if (double wire = report.ColumnWireBytes(); wire > 0) {
        s += fmt::format("  columns: codec {}, {:.1f} MB raw, {:.1f} MB on the wire ({:.2f}x)\n",
                         ToString(o.pipeline.columnCodec), report.columnRawBytes / 1e6, wire / 1e6,
                         report.columnRawBytes / wire);
    }
    if (report.ranks.empty()) return s;
    s += "  rank role        wall s  trace s  send MB  recv MB  CPU%  peak MiB\n";
    for (const RankSummary& r : report.ranks) {
        double cpu = 0, wall = std::max(r.wallS, 1e-9);
        for (const ActivityStats& a : r.activities) cpu += a.cpuS;
        auto get = [&](Activity a) { return r.activities[static_cast<int>(a)]; };
        double sentMb = (get(Activity::Send).bytes + get(Activity::TerrainSend).bytes) / 1e6;
        double recvMb = (get(Activity::Receive).bytes + get(Activity::TerrainReceive).bytes) / 1e6;
        s += fmt::format("  {:>4} {:<10} {:>7.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>5.0f} {:>9.1f}\n",
                         r.rank, RankRoleName(report, r), r.wallS, get(Activity::Trace).wallS,
                         sentMb, recvMb, 100.0 * cpu / wall, r.peakRssMiB);
    }
    for (const RankSummary& r : report.ranks) {
        const CpuQuota& q = r.cpuQuota;
        if (q.cores <= 0) continue;
        s += fmt::format(
            "  rank {} runs under a CPU quota of {:.2f} cores per {:.0f} ms: held back in {:.0f}% "
            "of its periods, {:.2f} s in all\n",
            r.rank, q.cores, q.periodS * 1e3, 100.0 * q.throttledPeriods / std::max(q.periods, 1.0),
            q.throttledS);
    }
    return s;
}

}  // namespace bfv::common
