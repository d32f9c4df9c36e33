#include "common/decomposition.h"

#include <algorithm>
#include <cmath>

#include "common/check.h"

namespace bfv::common {

namespace {

// Keeps every slice of `boundariesPx` (first 0, last the width) at least one column wide,
// moving the inner boundaries as little as that needs, left to right.
void KeepSlicesWide(std::vector<int>& boundariesPx) {
    int nTracers = static_cast<int>(boundariesPx.size()) - 1, widthPx = boundariesPx.back();
    for (int t = 1; t < nTracers; ++t) {
        boundariesPx[t] =
            std::min(std::max(boundariesPx[t], boundariesPx[t - 1] + 1), widthPx - (nTracers - t));
    }
}

}  // namespace

ColumnSet ColumnsOf(Decomposition decomposition, int tracer, int nTracers, int widthPx) {
    BFV_CHECK(nTracers >= 1 && widthPx >= nTracers && tracer >= 0 && tracer < nTracers);
    if (decomposition == Decomposition::Interleaved) {
        return {tracer, nTracers, (widthPx - tracer + nTracers - 1) / nTracers};
    }
    long first = static_cast<long>(tracer) * widthPx / nTracers;
    long end = static_cast<long>(tracer + 1) * widthPx / nTracers;
    return {static_cast<int>(first), 1, static_cast<int>(end - first)};
}

std::vector<ColumnSet> NeighbourColumns(const ColumnSet& columns, int widthPx) {
    std::vector<ColumnSet> sets;
    if (columns.count <= 0) return sets;
    const int last = columns.At(columns.count - 1);
    if (columns.stride == 1) {
        if (columns.first > 0) sets.push_back({columns.first - 1, 1, 1});
        if (last + 1 < widthPx) sets.push_back({last + 1, 1, 1});
        return sets;
    }
    // Interleaved: the columns either side are the neighbouring tracers' own sets (the classes
    // of columns modulo the stride next to this one's), cast whole as their owners cast them;
    // at stride 2 both sides are the one other set, cast once.
    const int stride = columns.stride;
    auto classOf = [&](int r) { return ColumnSet{r, stride, (widthPx - r + stride - 1) / stride}; };
    sets.push_back(classOf((columns.first + stride - 1) % stride));
    if (stride > 2) sets.push_back(classOf((columns.first + 1) % stride));
    return sets;
}

int MessagesPerFrame(const ColumnSet& columns, int columnsPerMessage) {
    BFV_CHECK(columnsPerMessage >= 1);
    return (columns.count + columnsPerMessage - 1) / columnsPerMessage;
}

std::string ToString(Decomposition decomposition) {
    switch (decomposition) {
        case Decomposition::Interleaved:
            return "interleaved";
        case Decomposition::Dynamic:
            return "dynamic";
        case Decomposition::Contiguous:
            break;
    }
    return "contiguous";
}

Expected<Decomposition> ParseDecomposition(const std::string& name) {
    for (Decomposition d : kDecompositions) {
        if (ToString(d) == name) return d;
    }
    return Error{"--decomposition: expected contiguous, interleaved or dynamic, got '" + name +
                 "'"};
}

std::vector<int> ContiguousBoundaries(int nTracers, int widthPx) {
    std::vector<int> boundariesPx{0};
    for (int t = 0; t < nTracers; ++t) {
        ColumnSet slice = ColumnsOf(Decomposition::Contiguous, t, nTracers, widthPx);
        boundariesPx.push_back(slice.first + slice.count);
    }
    return boundariesPx;
}

Expected<void> ValidateBoundaries(std::span<const int> boundariesPx, int nTracers, int widthPx) {
    if (static_cast<int>(boundariesPx.size()) != nTracers + 1) {
        return Error{"column split: " + std::to_string(boundariesPx.size()) + " boundaries for " +
                     std::to_string(nTracers) + " ray tracers, expected " +
                     std::to_string(nTracers + 1)};
    }
    if (boundariesPx.front() != 0 || boundariesPx.back() != widthPx) {
        return Error{"column split: runs from column " + std::to_string(boundariesPx.front()) +
                     " to " + std::to_string(boundariesPx.back()) + ", the screen from 0 to " +
                     std::to_string(widthPx)};
    }
    for (int t = 0; t < nTracers; ++t) {
        if (boundariesPx[t + 1] <= boundariesPx[t]) {
            return Error{"column split: ray tracer " + std::to_string(t) + " gets columns " +
                         std::to_string(boundariesPx[t]) + ".." +
                         std::to_string(boundariesPx[t + 1]) + ", not at least one"};
        }
    }
    return {};
}

ColumnSet SliceOf(std::span<const int> boundariesPx, int tracer) {
    BFV_CHECK(tracer >= 0 && tracer + 1 < static_cast<int>(boundariesPx.size()));
    return {boundariesPx[tracer], 1, boundariesPx[tracer + 1] - boundariesPx[tracer]};
}

double WaterLevelS(double total, std::span<const double> fixedS, std::span<const double> weights) {
    BFV_CHECK(!fixedS.empty() && fixedS.size() == weights.size() && total >= 0.0);
    std::vector<int> order(fixedS.size());
    for (size_t t = 0; t < order.size(); ++t) {
        BFV_CHECK(fixedS[t] >= 0.0 && std::isfinite(fixedS[t]) && weights[t] > 0.0);
        order[t] = static_cast<int>(t);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) { return fixedS[a] < fixedS[b]; });
    // Fill the tracers of least fixed work first: the level of the first k is
    // (total + sum of w f) / (sum of w), until it reaches the next one's fixed work.
    double weightedFixed = 0.0, weightSum = 0.0, levelS = 0.0;
    for (size_t k = 0; k < order.size(); ++k) {
        weightedFixed += weights[order[k]] * fixedS[order[k]];
        weightSum += weights[order[k]];
        levelS = (total + weightedFixed) / weightSum;
        if (k + 1 == order.size() || levelS <= fixedS[order[k + 1]]) break;
    }
    return levelS;
}

std::vector<int> BalancedBoundaries(std::span<const int> measuredPx, std::span<const double> traceS,
                                    std::span<const double> fixedS) {
    BFV_CHECK(measuredPx.size() == traceS.size() + 1);
    BFV_CHECK(fixedS.empty() || fixedS.size() == traceS.size());
    int nTracers = static_cast<int>(traceS.size());
    double totalS = 0.0;
    for (double s : traceS) {
        BFV_CHECK(s >= 0.0 && std::isfinite(s));
        totalS += s;
    }
    std::vector<int> balancedPx(measuredPx.begin(), measuredPx.end());
    if (!(totalS > 0.0)) return balancedPx;
    // Tracer t's share of the trace: the level less its fixed work (equal shares without any).
    std::vector<double> ownS(fixedS.begin(), fixedS.end());
    ownS.resize(traceS.size(), 0.0);
    const std::vector<double> weights(traceS.size(), 1.0);
    const double levelS = WaterLevelS(totalS, ownS, weights);
    // Walk the slices once: cumulative cost `doneS` up to the start of slice `t`.
    int t = 0;
    double doneS = 0.0, targetS = 0.0;
    for (int b = 1; b < nTracers; ++b) {
        targetS += std::max(0.0, levelS - ownS[b - 1]);
        while (t < nTracers - 1 && doneS + traceS[t] < targetS) doneS += traceS[t++];
        double widthPx = measuredPx[t + 1] - measuredPx[t];
        double into = traceS[t] > 0.0 ? (targetS - doneS) / traceS[t] * widthPx : 0.0;
        // The tolerance absorbs rounding in the sums: equal costs land on whole columns.
        balancedPx[b] = measuredPx[t] + static_cast<int>(std::floor(into + 1e-6));
    }
    KeepSlicesWide(balancedPx);
    return balancedPx;
}

std::vector<int> DampedBoundaries(std::span<const int> currentPx, std::span<const int> balancedPx,
                                  double damping) {
    BFV_CHECK(currentPx.size() == balancedPx.size() && currentPx.size() >= 2);
    BFV_CHECK(damping >= 0.0 && damping <= 1.0);
    std::vector<int> nextPx(currentPx.begin(), currentPx.end());
    for (size_t b = 1; b + 1 < nextPx.size(); ++b) {
        int gapPx = balancedPx[b] - currentPx[b];
        int stepPx = static_cast<int>(std::ceil(damping * std::abs(gapPx)));
        nextPx[b] += gapPx < 0 ? -stepPx : stepPx;
    }
    KeepSlicesWide(nextPx);
    return nextPx;
}

}  // namespace bfv::common
