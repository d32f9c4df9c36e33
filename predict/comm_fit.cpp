#include "predict/comm_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "predict/model_validate.h"

namespace bfv::predict {

namespace {

// Relative residuals below 1e-6 per point are noise of double arithmetic, not information:
// the floor keeps the BIC finite for exact synthetic data.
constexpr double kSseFloorPerPoint = 1e-12;

// A side's CPU time "grows with the size" when the size-proportional part of its fitted line
// is at least this share of the largest message's CPU time; below, the slope is noise.
constexpr double kMinCpuGrowth = 0.05;

struct Line {
    double intercept = 0.0;
    double slope = 0.0;
    double relativeSse = 0.0;
};

std::vector<double> Column(std::span<const SweepPoint> points, double SweepPoint::*field) {
    std::vector<double> values;
    for (const SweepPoint& p : points) values.push_back(p.*field);
    return values;
}

double SweepPoint::*CpuField(Side side) {
    return side == Side::Send ? &SweepPoint::senderCpuS : &SweepPoint::receiverCpuS;
}

const char* SideName(Side side) { return side == Side::Send ? "send" : "receive"; }

// Least squares y = intercept + slope * x with weights 1 / y^2, i.e. of relative errors (y
// floored at 1e-12 for zero CPU times). x is scaled to [0, 1] for the normal equations.
// nullopt when the xs do not hold two distinct values.
std::optional<Line> RelativeLineFit(const std::vector<double>& xs, const std::vector<double>& ys) {
    const double xMax = *std::max_element(xs.begin(), xs.end());
    double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
        const double w = 1.0 / std::pow(std::max(ys[i], 1e-12), 2), x = xs[i] / xMax;
        s0 += w, s1 += w * x, s2 += w * x * x, t0 += w * ys[i], t1 += w * x * ys[i];
    }
    const double det = s0 * s2 - s1 * s1;
    if (!(det > 1e-12 * s0 * s2)) return std::nullopt;
    Line line{(t0 * s2 - t1 * s1) / det, (s0 * t1 - s1 * t0) / det, 0.0};
    for (size_t i = 0; i < xs.size(); ++i) {
        const double residual = line.intercept + line.slope * xs[i] / xMax - ys[i];
        line.relativeSse += residual * residual / std::pow(std::max(ys[i], 1e-12), 2);
    }
    line.slope /= xMax;
    return line;
}

Expected<void> ValidatePoint(const SweepPoint& p, size_t i) {
    const std::string context = fmt::format("sweep point {} ({} bytes)", i, p.msgBytes);
    return FirstError({RequirePositive(context, "msgBytes", p.msgBytes),
                       RequirePositive(context, "oneWayS", p.oneWayS),
                       RequireNonNegative(context, "senderCpuS", p.senderCpuS),
                       RequireNonNegative(context, "receiverCpuS", p.receiverCpuS)});
}

// A candidate piecewise fit and its total relative SSE.
struct Candidate {
    PiecewiseFit fit;
    double sse = 0.0;
};

// The points of piece k of a fit.
std::span<const SweepPoint> PiecePoints(std::span<const SweepPoint> sweep,
                                        const std::vector<size_t>& firstPoint, size_t k) {
    const size_t end = k + 1 < firstPoint.size() ? firstPoint[k + 1] : sweep.size();
    return sweep.subspan(firstPoint[k], end - firstPoint[k]);
}

// Fits one line per piece starting at `starts`; nullopt when any piece has no valid fit.
std::optional<Candidate> FitPieces(std::span<const SweepPoint> sweep,
                                   const std::vector<size_t>& starts) {
    Candidate c;
    c.fit.firstPoint = starts;
    for (size_t k = 0; k < starts.size(); ++k) {
        auto fit = FitHockney(PiecePoints(sweep, starts, k));
        if (!fit) return std::nullopt;
        c.fit.fits.push_back(*fit);
        c.sse += fit->relativeSse;
        if (k > 0) c.fit.breakpointsBytes.push_back(sweep[starts[k] - 1].msgBytes);
    }
    return c;
}

// Bayesian information criterion of a candidate over m points: m ln(SSE/m) + p ln m.
double Bic(const Candidate& c, size_t m) {
    const double k = static_cast<double>(c.fit.fits.size()), n = static_cast<double>(m);
    const double sse = std::max(c.sse, n * kSseFloorPerPoint);
    return n * std::log(sse / n) + (3.0 * k - 1.0) * std::log(n);
}

// Calls visit(starts) for every cut of the sweep into `segments` pieces of at least
// kMinSegmentPoints points, cutting only between distinct sizes.
void ForEachSplit(std::span<const SweepPoint> sweep, size_t segments, std::vector<size_t>& starts,
                  const std::function<void(const std::vector<size_t>&)>& visit) {
    const size_t m = sweep.size(), minPoints = kMinSegmentPoints;
    if (starts.size() == segments) {
        if (m - starts.back() >= minPoints) visit(starts);
        return;
    }
    for (size_t i = starts.back() + minPoints; i + minPoints <= m; ++i) {
        if (!(sweep[i - 1].msgBytes < sweep[i].msgBytes)) continue;
        starts.push_back(i);
        ForEachSplit(sweep, segments, starts, visit);
        starts.pop_back();
    }
}

// The valid cut into `segments` pieces with the smallest SSE, if any.
std::optional<Candidate> BestCandidate(std::span<const SweepPoint> sweep, size_t segments) {
    std::optional<Candidate> best;
    std::vector<size_t> starts{0};
    ForEachSplit(sweep, segments, starts, [&](const std::vector<size_t>& cut) {
        auto c = FitPieces(sweep, cut);
        if (c && (!best || c->sse < best->sse)) best = std::move(c);
    });
    return best;
}

// MSGSETUP and ALCBW from `fit`; APBBW of the busier side over `points`.
Expected<LinkParams> ParamsOf(std::span<const SweepPoint> points, const HockneyFit& fit) {
    auto send = FitApbbwBytesPerS(points, fit, Side::Send);
    if (!send) return send.error();
    auto receive = FitApbbwBytesPerS(points, fit, Side::Receive);
    if (!receive) return receive.error();
    return LinkParams{fit.msgSetupS, fit.alcbwBytesPerS, std::min(*send, *receive)};
}

Expected<std::vector<LinkSegment>> Segments(std::span<const SweepPoint> sorted,
                                            const PiecewiseFit& pieces) {
    std::vector<LinkSegment> segments;
    for (size_t k = 0; k < pieces.fits.size(); ++k) {
        auto params = ParamsOf(PiecePoints(sorted, pieces.firstPoint, k), pieces.fits[k]);
        if (!params) return params.error();
        const double minBytes = k == 0 ? sorted.front().msgBytes : pieces.breakpointsBytes[k - 1];
        const double maxBytes = k < pieces.breakpointsBytes.size() ? pieces.breakpointsBytes[k]
                                                                   : sorted.back().msgBytes;
        segments.push_back({minBytes, maxBytes, *params});
    }
    return segments;
}

// n½ and APBBW per side from the last (large-message) segment of the piecewise fit.
Expected<void> FillLargeMessageFigures(std::span<const SweepPoint> sorted,
                                       const PiecewiseFit& pieces, LinkProfile& p) {
    const size_t last = pieces.fits.size() - 1;
    auto points = PiecePoints(sorted, pieces.firstPoint, last);
    auto send = FitApbbwBytesPerS(points, pieces.fits[last], Side::Send);
    if (!send) return send.error();
    auto receive = FitApbbwBytesPerS(points, pieces.fits[last], Side::Receive);
    if (!receive) return receive.error();
    p.nHalfBytes = HalfPerformanceBytes(p.segments.back().params);
    p.apbbwSendBytesPerS = *send;
    p.apbbwReceiveBytesPerS = *receive;
    return {};
}

}  // namespace

Expected<void> ValidateSweep(std::span<const SweepPoint> sweep) {
    if (sweep.size() < 3) {
        return Error{fmt::format("a sweep needs at least 3 message sizes, got {}", sweep.size())};
    }
    for (size_t i = 0; i < sweep.size(); ++i) {
        if (auto ok = ValidatePoint(sweep[i], i); !ok) return ok;
    }
    auto [lo, hi] = std::minmax_element(
        sweep.begin(), sweep.end(),
        [](const SweepPoint& a, const SweepPoint& b) { return a.msgBytes < b.msgBytes; });
    if (lo->msgBytes == hi->msgBytes) {
        return Error{
            fmt::format("a sweep needs at least 2 distinct message sizes, got only {} "
                        "bytes",
                        lo->msgBytes)};
    }
    return {};
}

Expected<HockneyFit> FitHockney(std::span<const SweepPoint> points) {
    const std::string range = points.empty() ? "no points"
                                             : fmt::format("{}..{} bytes", points.front().msgBytes,
                                                           points.back().msgBytes);
    auto line = points.empty() ? std::nullopt
                               : RelativeLineFit(Column(points, &SweepPoint::msgBytes),
                                                 Column(points, &SweepPoint::oneWayS));
    if (!line) return Error{"Hockney fit (" + range + "): needs at least 2 distinct message sizes"};
    if (!(line->slope > 0)) {
        return Error{
            fmt::format("Hockney fit ({}): the times do not grow with message size", range)};
    }
    double alcbw = 1.0 / line->slope;
    if (line->intercept > 0) {
        return HockneyFit{line->intercept, alcbw, line->relativeSse,
                          static_cast<int>(points.size())};
    }
    // Noise can tip the intercept below zero on a link whose setup is tiny next to its
    // transfer times; eq. 17 then takes MSGSETUP from the smallest message instead.
    const SweepPoint& smallest = points.front();
    double msgSetupS =
        MsgSetupFromMeasurementS(smallest.msgBytes, smallest.msgBytes / smallest.oneWayS, alcbw);
    if (!(msgSetupS > 0)) {
        // Even the smallest message beat the fitted bandwidth: the link sends a message's first
        // bytes faster than it sustains (a token bucket's burst on a rate-limited link), so the
        // line's intercept is not a setup time. MSGSETUP is then the smallest message's whole
        // one-way time, the fixed cost every message is seen to pay; ALCBW stays the fitted
        // (sustained) rate.
        msgSetupS = smallest.oneWayS;
    }
    double sse = 0.0;  // of the line actually returned, so that piecewise fits compare fairly
    for (const SweepPoint& p : points) {
        double e = (msgSetupS + p.msgBytes / alcbw - p.oneWayS) / p.oneWayS;
        sse += e * e;
    }
    return HockneyFit{msgSetupS, alcbw, sse, static_cast<int>(points.size())};
}

Expected<PiecewiseFit> FitPiecewise(std::span<const SweepPoint> sortedSweep) {
    auto bySize = [](const SweepPoint& a, const SweepPoint& b) { return a.msgBytes < b.msgBytes; };
    if (!std::is_sorted(sortedSweep.begin(), sortedSweep.end(), bySize)) {
        return Error{"piecewise fit: the sweep must be sorted by msgBytes"};
    }
    auto whole = FitHockney(sortedSweep);
    if (!whole) return whole.error();
    Candidate chosen{{{*whole}, {0}, {}}, whole->relativeSse};
    for (size_t k = 2; k <= static_cast<size_t>(kMaxSegments); ++k) {
        auto c = BestCandidate(sortedSweep, k);
        const size_t m = sortedSweep.size();
        if (c && Bic(*c, m) < Bic(chosen, m) - kBicMargin) chosen = std::move(*c);
    }
    return chosen.fit;
}

Expected<double> FitApbbwBytesPerS(std::span<const SweepPoint> points, const HockneyFit& fit,
                                   Side side) {
    const SweepPoint& largest = *std::max_element(
        points.begin(), points.end(),
        [](const SweepPoint& a, const SweepPoint& b) { return a.msgBytes < b.msgBytes; });
    const double cpuS = largest.*CpuField(side);
    auto line =
        RelativeLineFit(Column(points, &SweepPoint::msgBytes), Column(points, CpuField(side)));
    if (line && line->slope * largest.msgBytes > kMinCpuGrowth * cpuS) return 1.0 / line->slope;
    if (!(cpuS > 0)) {
        return Error{
            fmt::format("APBBW ({} side): the measured CPU time of {}-byte messages is zero",
                        SideName(side), largest.msgBytes)};
    }
    return fit.alcbwBytesPerS / (cpuS / largest.oneWayS);
}

Expected<LinkProfile> FitLinkProfile(std::span<const SweepPoint> sweep, const std::string& name) {
    if (auto ok = ValidateSweep(sweep); !ok) return ok.error();
    std::vector<SweepPoint> sorted(sweep.begin(), sweep.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const SweepPoint& a, const SweepPoint& b) {
        return a.msgBytes < b.msgBytes;
    });
    auto overall = FitHockney(sorted);
    if (!overall) return overall.error();
    auto pieces = FitPiecewise(sorted);
    if (!pieces) return pieces.error();
    LinkProfile p;
    p.name = name;
    auto overallParams = ParamsOf(sorted, *overall);
    if (!overallParams) return overallParams.error();
    p.overall = *overallParams;
    auto segments = Segments(sorted, *pieces);
    if (!segments) return segments.error();
    p.segments = std::move(*segments);
    p.breakpointsBytes = pieces->breakpointsBytes;
    if (auto ok = FillLargeMessageFigures(sorted, *pieces, p); !ok) return ok.error();
    return p;
}

}  // namespace bfv::predict
