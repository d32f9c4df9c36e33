#include "predict/model_schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "predict/model_machine.h"
#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

double& At(TermSeconds& terms, Term term) { return terms[static_cast<int>(term)]; }

// The largest of `candidates` in `terms`.
Term LargestTerm(const TermSeconds& terms, std::initializer_list<Term> candidates) {
    Term largest = *candidates.begin();
    for (Term term : candidates) {
        if (terms[static_cast<int>(term)] > terms[static_cast<int>(largest)]) largest = term;
    }
    return largest;
}

int TracerCount(int n) { return n - 2; }

// The host of rank r, or a one-core host of the measured speed when no hosts are given.
Host HostOfRank(const ScheduleInputs& inputs, int rank) {
    if (inputs.hosts.empty()) return Host{};
    return inputs.hosts[static_cast<std::size_t>(rank) % inputs.hosts.size()];
}

// The slowest CPU speed ratio among the tracer ranks 1..N-2.
double SlowestTracerSpeed(const ScheduleInputs& inputs, int n) {
    double slowest = kInfinity;
    for (int rank = 1; rank <= TracerCount(n); ++rank) {
        slowest = std::min(slowest, HostOfRank(inputs, rank).cpuSpeedRatio);
    }
    return slowest;
}

// A calculation moved to a host of the given CPU speed ratio, peripherals unchanged (eq. 7).
Load MovedLoad(const Calculation& calc, double cpuSpeedRatio) {
    return MoveLoad({calc.rtexS, calc.cpuFraction}, {1.0, 1.0}, {cpuSpeedRatio, 1.0});
}

// MSGZ of the screen messages: one column, or a tracer's whole share when buffered.
double ScreenMsgBytes(const ScheduleInputs& inputs, int n) {
    const Calculation& trace = inputs.app.rayTrace;
    return inputs.bufferColumns ? trace.dvolBytes / TracerCount(n) : trace.msgBytes;
}

// Wall seconds per second of flight to move the terrain stream (eq. 18).
double TerrainSPerS(const ScheduleInputs& inputs) {
    const AppCharacteristics& app = inputs.app;
    return TransferS(inputs.terrainLink, app.terrainStreamBytesPerS, app.terrainServer.msgBytes);
}

// Wall seconds per frame for the display to receive the screen (eq. 18 / speedup).
double DisplayReceiveS(const ScheduleInputs& inputs, int n) {
    const double transferS =
        TransferS(inputs.screenLink, inputs.app.rayTrace.dvolBytes, ScreenMsgBytes(inputs, n));
    return transferS / inputs.displayReceiveSpeedup;
}

Expected<void> ValidateHost(const Host& host, std::size_t index) {
    const std::string context = fmt::format("host {}", index);
    return FirstError({RequireAtLeast(context, "cores", host.cores, 1),
                       RequirePositive(context, "cpuSpeedRatio", host.cpuSpeedRatio)});
}

Expected<void> ValidateTimeSliceTerms(const TimeSliceTerms& terms, int n) {
    const char* context = "schedule";
    return FirstError(
        {RequireAtLeast(context, "n", n, 3),
         RequireNonNegative(context, "terrainSPerS", terms.terrainSPerS),
         RequireNonNegative(context, "traceSPerFrame", terms.traceSPerFrame),
         RequireNonNegative(context, "screenTransferSPerFrame", terms.screenTransferSPerFrame),
         RequireNonNegative(context, "displayWorkSPerFrame", terms.displayWorkSPerFrame),
         RequirePositive(context, "displayReceiveSpeedup", terms.displayReceiveSpeedup)});
}

// Per-node budget of one tracer (eq. 22a): CPU seconds per second and per frame.
struct TracerBudget {
    double terrainCpuSPerS = 0.0;  // CPU% * terrain receive seconds per second
    double traceSPerFrame = 0.0;   // CPU seconds of its share of the trace
    double sendSPerFrame = 0.0;    // CPU% * seconds to send its share
    double Fps() const { return (1.0 - terrainCpuSPerS) / (traceSPerFrame + sendSPerFrame); }
};

TracerBudget TracerBudgetOn(const ScheduleInputs& inputs, int n, const Host& host) {
    const int tracers = TracerCount(n);
    const double shareBytes = inputs.app.rayTrace.dvolBytes / tracers;
    const double sendS = TransferS(inputs.screenLink, shareBytes, ScreenMsgBytes(inputs, n));
    TracerBudget budget;
    budget.terrainCpuSPerS = LargeMessageCpuFraction(inputs.terrainLink) * TerrainSPerS(inputs);
    budget.traceSPerFrame = CpuS(MovedLoad(inputs.app.rayTrace, host.cpuSpeedRatio)) / tracers;
    budget.sendSPerFrame = LargeMessageCpuFraction(inputs.screenLink) * sendS;
    return budget;
}

// The display node (eq. 22b): wall seconds per frame of its work and of its receive, and the
// CPU seconds per frame they take (for host sharing).
struct DisplayBudget {
    double workSPerFrame = 0.0;
    double receiveSPerFrame = 0.0;
    double cpuSPerFrame = 0.0;
    double Fps() const { return 1.0 / (workSPerFrame + receiveSPerFrame); }
};

DisplayBudget DisplayBudgetOf(const ScheduleInputs& inputs, int n) {
    const Load work = MovedLoad(inputs.app.display, HostOfRank(inputs, n - 1).cpuSpeedRatio);
    DisplayBudget budget;
    budget.workSPerFrame = work.rtexS;
    budget.receiveSPerFrame = DisplayReceiveS(inputs, n);
    budget.cpuSPerFrame =
        CpuS(work) + LargeMessageCpuFraction(inputs.screenLink) * budget.receiveSPerFrame;
    return budget;
}

// CPU the terrain server needs per second of flight: its measured per-frame work scaled by the
// sequential frame rate it was measured at (its work follows the eye point, not the FPS),
// plus the CPU cost of sending the terrain stream.
double TerrainServerCpuSPerS(const ScheduleInputs& inputs, const Host& host) {
    const double workCpuSPerS =
        CpuS(MovedLoad(inputs.app.terrainServer, host.cpuSpeedRatio)) * SequentialFps(inputs.app);
    return workCpuSPerS + LargeMessageCpuFraction(inputs.terrainLink) * TerrainSPerS(inputs);
}

// CPU demand of every host under eq. 22's placement of ranks.
std::vector<HostDemand> HostDemands(const ScheduleInputs& inputs, int n) {
    std::vector<HostDemand> demands(inputs.hosts.size());
    const std::size_t hostCount = inputs.hosts.size();
    demands[0].cpuSPerS += TerrainServerCpuSPerS(inputs, inputs.hosts[0]);
    for (int rank = 1; rank <= TracerCount(n); ++rank) {
        HostDemand& demand = demands[static_cast<std::size_t>(rank) % hostCount];
        const TracerBudget tracer = TracerBudgetOn(inputs, n, HostOfRank(inputs, rank));
        demand.cpuSPerS += tracer.terrainCpuSPerS;
        demand.cpuSPerFrame += tracer.traceSPerFrame + tracer.sendSPerFrame;
    }
    const std::size_t displayHost = static_cast<std::size_t>(n - 1) % hostCount;
    demands[displayHost].cpuSPerFrame += DisplayBudgetOf(inputs, n).cpuSPerFrame;
    return demands;
}

// The tightest host: its FPS limit and its CPU seconds per frame per core at that limit.
struct HostLimit {
    double fps = kInfinity;
    double cpuSPerFramePerCore = 0.0;
};

HostLimit TightestHost(const ScheduleInputs& inputs, int n) {
    HostLimit tightest;
    if (inputs.hosts.empty()) return tightest;
    const std::vector<HostDemand> demands = HostDemands(inputs, n);
    for (std::size_t h = 0; h < demands.size(); ++h) {
        const int cores = inputs.hosts[h].cores;
        const double fps = HostFpsLimit(demands[h], cores);
        if (fps >= tightest.fps) continue;
        const double cpuSPerFrame = demands[h].cpuSPerFrame + demands[h].cpuSPerS / fps;
        tightest = {fps, cpuSPerFrame / cores};
    }
    return tightest;
}

// The tracer with the lowest FPS budget (the slowest host's).
TracerBudget SlowestTracer(const ScheduleInputs& inputs, int n) {
    TracerBudget slowest = TracerBudgetOn(inputs, n, HostOfRank(inputs, 1));
    for (int rank = 2; rank <= TracerCount(n); ++rank) {
        const TracerBudget budget = TracerBudgetOn(inputs, n, HostOfRank(inputs, rank));
        if (budget.Fps() < slowest.Fps()) slowest = budget;
    }
    return slowest;
}

// Fills a prediction from the node budgets once the FPS is known.
Prediction NodePrediction(int n, const TracerBudget& tracer, const DisplayBudget& display,
                          const HostLimit& host) {
    Prediction p;
    p.n = n;
    p.fps = std::max(0.0, std::min({tracer.Fps(), display.Fps(), host.fps}));
    At(p.sPerFrame, Term::RayTrace) = tracer.traceSPerFrame;
    At(p.sPerFrame, Term::Send) = tracer.sendSPerFrame;
    At(p.sPerFrame, Term::TerrainStream) = p.fps > 0.0 ? tracer.terrainCpuSPerS / p.fps : kInfinity;
    At(p.sPerFrame, Term::DisplayWork) = display.workSPerFrame;
    At(p.sPerFrame, Term::DisplayReceive) = display.receiveSPerFrame;
    At(p.sPerFrame, Term::HostCpu) = host.cpuSPerFramePerCore;
    return p;
}

// Binding term of eq. 22: a host only when strictly tighter than both nodes.
Term NodeBinding(const Prediction& p, const TracerBudget& tracer, const DisplayBudget& display,
                 const HostLimit& host) {
    const double nodeFps = std::min(tracer.Fps(), display.Fps());
    if (host.fps < nodeFps * (1.0 - 1e-9)) return Term::HostCpu;
    if (display.Fps() < tracer.Fps()) {
        return LargestTerm(p.sPerFrame, {Term::DisplayWork, Term::DisplayReceive});
    }
    return LargestTerm(p.sPerFrame, {Term::RayTrace, Term::Send, Term::TerrainStream});
}

}  // namespace

std::string_view TermName(Term term) {
    switch (term) {
        case Term::RayTrace:
            return "ray trace";
        case Term::Send:
            return "send";
        case Term::DisplayReceive:
            return "display receive";
        case Term::DisplayWork:
            return "display work";
        case Term::TerrainStream:
            return "terrain stream";
        case Term::HostCpu:
            return "host cpu";
        case Term::HostQuota:
            return "host quota";
    }
    return "unknown";
}

Expected<void> ValidateScheduleInputs(const ScheduleInputs& inputs) {
    if (auto ok = ValidateApp(inputs.app); !ok) return ok;
    if (auto ok = ValidateLink(inputs.terrainLink, "terrain"); !ok) return ok;
    if (auto ok = ValidateLink(inputs.screenLink, "screen"); !ok) return ok;
    if (auto ok =
            RequirePositive("schedule", "displayReceiveSpeedup", inputs.displayReceiveSpeedup);
        !ok) {
        return ok;
    }
    for (std::size_t h = 0; h < inputs.hosts.size(); ++h) {
        if (auto ok = ValidateHost(inputs.hosts[h], h); !ok) return ok;
    }
    return {};
}

Expected<void> ValidateRankCount(const ScheduleInputs& inputs, int n) {
    if (auto ok = RequireAtLeast("schedule", "n", n, 3); !ok) return ok;
    const Calculation& trace = inputs.app.rayTrace;
    const double columns = std::floor(trace.dvolBytes / trace.msgBytes);
    if (TracerCount(n) <= columns) return {};
    return Error{
        fmt::format("schedule: n must be at most {} (one {}-byte column per ray tracer), got {}",
                    columns + 2, trace.msgBytes, n)};
}

TimeSliceTerms TimeSliceTermsFor(const ScheduleInputs& inputs, int n) {
    const Host displayHost = HostOfRank(inputs, n - 1);
    TimeSliceTerms terms;
    terms.terrainSPerS = TerrainSPerS(inputs);
    terms.traceSPerFrame = MovedLoad(inputs.app.rayTrace, SlowestTracerSpeed(inputs, n)).rtexS;
    terms.screenTransferSPerFrame =
        TransferS(inputs.screenLink, inputs.app.rayTrace.dvolBytes, ScreenMsgBytes(inputs, n));
    terms.displayWorkSPerFrame = MovedLoad(inputs.app.display, displayHost.cpuSpeedRatio).rtexS;
    terms.displayReceiveSpeedup = inputs.displayReceiveSpeedup;
    return terms;
}

Expected<Prediction> PredictTimeSlices(const TimeSliceTerms& terms, int n) {
    if (auto ok = ValidateTimeSliceTerms(terms, n); !ok) return ok.error();
    Prediction p;
    p.n = n;
    At(p.sPerFrame, Term::RayTrace) = terms.traceSPerFrame / TracerCount(n);
    At(p.sPerFrame, Term::DisplayReceive) =
        terms.screenTransferSPerFrame / terms.displayReceiveSpeedup;
    At(p.sPerFrame, Term::DisplayWork) = terms.displayWorkSPerFrame;
    const double frameS = p.SPerFrame(Term::RayTrace) + p.SPerFrame(Term::DisplayReceive) +
                          p.SPerFrame(Term::DisplayWork);
    p.fps = std::max(0.0, (1.0 - terms.terrainSPerS) / frameS);
    At(p.sPerFrame, Term::TerrainStream) = p.fps > 0.0 ? terms.terrainSPerS / p.fps : kInfinity;
    p.binding = LargestTerm(p.sPerFrame, {Term::RayTrace, Term::DisplayReceive, Term::DisplayWork,
                                          Term::TerrainStream});
    return p;
}

Expected<Prediction> PredictTimeSlices(const ScheduleInputs& inputs, int n) {
    if (auto ok = ValidateScheduleInputs(inputs); !ok) return ok.error();
    if (auto ok = ValidateRankCount(inputs, n); !ok) return ok.error();
    return PredictTimeSlices(TimeSliceTermsFor(inputs, n), n);
}

Expected<Prediction> PredictNodeBudgets(const ScheduleInputs& inputs, int n) {
    if (auto ok = ValidateScheduleInputs(inputs); !ok) return ok.error();
    if (auto ok = ValidateRankCount(inputs, n); !ok) return ok.error();
    const TracerBudget tracer = SlowestTracer(inputs, n);
    const DisplayBudget display = DisplayBudgetOf(inputs, n);
    const HostLimit host = TightestHost(inputs, n);
    Prediction p = NodePrediction(n, tracer, display, host);
    p.binding = NodeBinding(p, tracer, display, host);
    return p;
}

Expected<std::vector<Prediction>> PredictSweep(const ScheduleInputs& inputs, ScheduleKind kind,
                                               std::span<const int> ns) {
    std::vector<Prediction> predictions;
    for (int n : ns) {
        Expected<Prediction> p = kind == ScheduleKind::TimeSlices ? PredictTimeSlices(inputs, n)
                                                                  : PredictNodeBudgets(inputs, n);
        if (!p) return p.error();
        predictions.push_back(*p);
    }
    return predictions;
}

}  // namespace bfv::predict
