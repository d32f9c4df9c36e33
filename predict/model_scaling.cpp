#include "predict/model_scaling.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

constexpr double kSpeedOfLightMPerS = 299792458.0;

Expected<void> ValidatePoint(const ScalingPoint& point, std::size_t index) {
    const std::string context = fmt::format("scaling point {}", index);
    return FirstError(
        {RequireAtLeast(context, "p", point.p, 1), RequirePositive(context, "timeS", point.timeS)});
}

// T(1) from the points, after checking every point.
Expected<double> SequentialTimeS(std::span<const ScalingPoint> points) {
    double t1S = 0.0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (auto ok = ValidatePoint(points[i], i); !ok) return ok.error();
        if (points[i].p == 1) t1S = points[i].timeS;
    }
    if (t1S > 0.0) return t1S;
    return Error{"scaling: no point with p = 1 to take T(1) from"};
}

}  // namespace

double Speedup(double t1S, double tpS) { return t1S / tpS; }

double Efficiency(double speedup, double p) { return speedup / p; }

double KarpFlattSerialFraction(double speedup, double p) {
    return (1.0 / speedup - 1.0 / p) / (1.0 - 1.0 / p);
}

Expected<std::vector<ScalingMetrics>> MeasuredScaling(std::span<const ScalingPoint> points) {
    Expected<double> t1S = SequentialTimeS(points);
    if (!t1S) return t1S.error();
    std::vector<ScalingMetrics> metrics;
    for (const ScalingPoint& point : points) {
        const double s = Speedup(*t1S, point.timeS);
        const double f = point.p > 1 ? KarpFlattSerialFraction(s, point.p)
                                     : std::numeric_limits<double>::quiet_NaN();
        metrics.push_back({point.p, s, Efficiency(s, point.p), f});
    }
    return metrics;
}

Expected<double> FitSerialFraction(std::span<const ScalingPoint> points) {
    Expected<double> t1S = SequentialTimeS(points);
    if (!t1S) return t1S.error();
    double sumXY = 0.0;
    double sumXX = 0.0;
    for (const ScalingPoint& point : points) {
        const double x = 1.0 - 1.0 / point.p;
        const double y = point.timeS / *t1S - 1.0 / point.p;
        sumXY += x * y;
        sumXX += x * x;
    }
    if (sumXX > 0.0) return sumXY / sumXX;
    return Error{"scaling: no point with p > 1 to fit a serial fraction to"};
}

double AmdahlSpeedup(double serialFraction, double p) {
    return 1.0 / (serialFraction + (1.0 - serialFraction) / p);
}

double GustafsonSpeedup(double serialFraction, double p) {
    return serialFraction + (1.0 - serialFraction) * p;
}

double HillMartyPerf(double rBce) { return std::sqrt(rBce); }

double HillMartySymmetricSpeedup(double parallelFraction, double nBce, double rBce) {
    const double perf = HillMartyPerf(rBce);
    const double f = parallelFraction;
    return 1.0 / ((1.0 - f) / perf + f * rBce / (perf * nBce));
}

double SunChenMemoryBoundedSpeedup(double parallelFraction, double m, double gOfM) {
    const double f = parallelFraction;
    return ((1.0 - f) + f * gOfM) / ((1.0 - f) + f * gOfM / m);
}

double SunChenFixedTimeSpeedup(double parallelFraction, double m) {
    return (1.0 - parallelFraction) + m * parallelFraction;
}

Expected<void> ValidateLatencyBandwidth(const LatencyBandwidthParams& link, std::string_view name) {
    const std::string context = fmt::format("latency/bandwidth '{}'", name);
    return FirstError({RequirePositive(context, "bandwidthBytesPerS", link.bandwidthBytesPerS),
                       RequireNonNegative(context, "delaySPerM", link.delaySPerM),
                       RequireNonNegative(context, "distanceM", link.distanceM),
                       RequireNonNegative(context, "overheadSPerMsg", link.overheadSPerMsg)});
}

double PropagationDelaySPerM(double nvp) { return 1.0 / (kSpeedOfLightMPerS * nvp); }

double MessageTimeS(const LatencyBandwidthParams& link, double msgBytes) {
    return msgBytes / link.bandwidthBytesPerS + link.delaySPerM * link.distanceM +
           link.overheadSPerMsg;
}

double LatencyBandwidthTimeS(const LatencyBandwidthParams& link, const DistributedRun& run) {
    const double compS = run.tSeqS / SunChenFixedTimeSpeedup(run.parallelFraction, run.nodes);
    return compS + run.messageCount * MessageTimeS(link, run.msgBytes);
}

double LatencyBandwidthSpeedup(const LatencyBandwidthParams& link, const DistributedRun& run) {
    return run.tSeqS / LatencyBandwidthTimeS(link, run);
}

}  // namespace bfv::predict
