#include "raytracer/drainage.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <queue>
#include <utility>

namespace bfv::raytracer {

namespace {

// The least rise from a post to a post it floods (Priority-Flood+epsilon): small against any
// height difference that matters, large against double rounding at terrain heights.
constexpr double kFillEpsilonM = 1e-5;

constexpr int kNeighbours = 8;
constexpr int kDi[kNeighbours] = {1, 1, 0, -1, -1, -1, 0, 1};
constexpr int kDj[kNeighbours] = {0, 1, 1, 1, 0, -1, -1, -1};

struct Grid {
    int nx, ny;
    bool Inside(int i, int j) const { return i >= 0 && j >= 0 && i < nx && j < ny; }
    bool Edge(int i, int j) const { return i == 0 || j == 0 || i == nx - 1 || j == ny - 1; }
    int At(int i, int j) const { return j * nx + i; }
};

// Priority-Flood+epsilon (Barnes, Lehman and Mulla 2014, algorithm 3): the heights with every
// pit filled and every flat tilted by kFillEpsilonM per post toward where it drains. Seeds: the
// edge posts and those at or below `outletBelowM`. Ties pop in index order (deterministic).
std::vector<double> FilledHeightsM(std::span<const float> heightsM, const Grid& g,
                                   double outletBelowM, std::vector<bool>& outlet) {
    std::vector<double> filled(heightsM.begin(), heightsM.end());
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
    std::queue<int> pit;
    std::vector<bool> closed(filled.size(), false);
    outlet.assign(filled.size(), false);
    for (int j = 0; j < g.ny; ++j) {
        for (int i = 0; i < g.nx; ++i) {
            int k = g.At(i, j);
            if (!g.Edge(i, j) && !(filled[k] <= outletBelowM)) continue;
            outlet[k] = closed[k] = true;
            open.emplace(filled[k], k);
        }
    }
    while (!open.empty() || !pit.empty()) {
        int c;
        if (!pit.empty()) {
            c = pit.front();
            pit.pop();
        } else {
            c = open.top().second;
            open.pop();
        }
        int ci = c % g.nx, cj = c / g.nx;
        for (int d = 0; d < kNeighbours; ++d) {
            int i = ci + kDi[d], j = cj + kDj[d];
            if (!g.Inside(i, j) || closed[g.At(i, j)]) continue;
            int n = g.At(i, j);
            closed[n] = true;
            if (filled[n] <= filled[c] + kFillEpsilonM) {
                filled[n] = filled[c] + kFillEpsilonM;
                pit.push(n);
            } else {
                open.emplace(filled[n], n);
            }
        }
    }
    return filled;
}

// D8 (O'Callaghan and Mark 1984): the neighbour each post drains to, down the steepest drop of
// the filled surface; -1 at outlets. Priority-Flood+epsilon leaves every other post a lower
// neighbour.
std::vector<int> FlowReceivers(const std::vector<double>& filled, const std::vector<bool>& outlet,
                               const Grid& g) {
    std::vector<int> receiver(filled.size(), -1);
    for (int j = 0; j < g.ny; ++j) {
        for (int i = 0; i < g.nx; ++i) {
            int k = g.At(i, j);
            if (outlet[k]) continue;
            double steepest = 0.0;
            for (int d = 0; d < kNeighbours; ++d) {
                int n = g.At(i + kDi[d], j + kDj[d]);
                double drop = (filled[k] - filled[n]) / (d % 2 ? std::numbers::sqrt2 : 1.0);
                if (drop > steepest) steepest = drop, receiver[k] = n;
            }
        }
    }
    return receiver;
}

// Upstream area of every post, m^2: its own postAreaM2 plus its donors', summed from the
// sources down (a topological order of the drainage tree), O(n).
std::vector<float> UpstreamAreasM2(const std::vector<int>& receiver, double postAreaM2) {
    std::vector<double> area(receiver.size(), postAreaM2);
    std::vector<int> donors(receiver.size(), 0);
    for (int r : receiver) {
        if (r >= 0) ++donors[r];
    }
    std::vector<int> ready;
    for (int k = 0; k < static_cast<int>(receiver.size()); ++k) {
        if (donors[k] == 0) ready.push_back(k);
    }
    while (!ready.empty()) {
        int k = ready.back();
        ready.pop_back();
        int r = receiver[k];
        if (r < 0) continue;
        area[r] += area[k];
        if (--donors[r] == 0) ready.push_back(r);
    }
    return {area.begin(), area.end()};
}

Expected<void> CheckOptions(const DrainageOptions& o) {
    if (!(o.thresholdM2 > 0.0) || !(o.widthAt1Km2M > 0.0) || !(o.minWidthM > 0.0) ||
        !(o.maxWidthM >= o.minWidthM)) {
        return Error{fmt::format(
            "drainage: the stream threshold ({:g} m^2) and the channel widths ({:g} m at 1 km^2, "
            "{:g} to {:g} m) must be positive, the widest at least the narrowest",
            o.thresholdM2, o.widthAt1Km2M, o.minWidthM, o.maxWidthM)};
    }
    return {};
}

// Share of the footprint interval [d - footprint/2, d + footprint/2] across a channel of
// half-width `halfWidthM` (centred on 0) that lies inside it.
float Coverage(float dM, float halfWidthM, float footprintM) {
    float lo = std::max(dM - 0.5f * footprintM, -halfWidthM);
    float hi = std::min(dM + 0.5f * footprintM, halfWidthM);
    return std::clamp((hi - lo) / footprintM, 0.0f, 1.0f);
}

// Where the centreline passes each post, metres ({x, y} at 2k, 2k + 1): the post itself, except
// on channels (`channel`), where kSmoothingPasses of a [1 2 1] / 4 filter along the stream (the
// post it drains to, and the donor of the largest upstream area upstream) round off the D8
// directions' 45-degree bends; a pass moves a post by at most 0.71 of the spacing.
std::vector<float> CentrelineM(const std::vector<int>& receiver, const std::vector<float>& areaM2,
                               const std::vector<bool>& channel, int nx, double spacingM) {
    constexpr int kSmoothingPasses = 2;
    const int n = static_cast<int>(receiver.size());
    std::vector<int> mainDonor(n, -1);
    for (int k = 0; k < n; ++k) {
        int r = receiver[k];
        if (!channel[k] || r < 0) continue;
        if (mainDonor[r] < 0 || areaM2[k] > areaM2[mainDonor[r]]) mainDonor[r] = k;
    }
    std::vector<float> at(2 * static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
        at[2 * k] = static_cast<float>(k % nx * spacingM);
        at[2 * k + 1] = static_cast<float>(k / nx * spacingM);
    }
    for (int pass = 0; pass < kSmoothingPasses; ++pass) {
        std::vector<float> next = at;
        for (int k = 0; k < n; ++k) {
            if (!channel[k]) continue;
            int up = mainDonor[k] >= 0 ? mainDonor[k] : k;
            int down = receiver[k] >= 0 ? receiver[k] : k;
            for (int c = 0; c < 2; ++c) {
                next[2 * k + c] =
                    0.25f * (at[2 * up + c] + 2.0f * at[2 * k + c] + at[2 * down + c]);
            }
        }
        at = std::move(next);
    }
    return at;
}

}  // namespace

Expected<DrainageField> DrainageField::Build(std::span<const float> heightsM, int nx, int ny,
                                             double spacingM, const DrainageOptions& options) {
    if (auto ok = CheckHeightGrid("drainage", heightsM, nx, ny, spacingM); !ok) return ok.error();
    if (auto ok = CheckOptions(options); !ok) return ok.error();
    const Grid g{nx, ny};
    std::vector<bool> outlet;
    std::vector<double> filled = FilledHeightsM(heightsM, g, options.outletBelowM, outlet);
    std::vector<int> receiver = FlowReceivers(filled, outlet, g);
    DrainageField field;
    field.options_ = options;
    field.areaM2_ = {nx, ny, spacingM, UpstreamAreasM2(receiver, spacingM * spacingM)};
    const std::vector<float>& area = field.areaM2_.values;
    std::vector<bool> channel(area.size());
    for (int k = 0; k < nx * ny; ++k) {
        channel[k] =
            area[k] >= options.thresholdM2 && !(outlet[k] && heightsM[k] <= options.outletBelowM);
    }
    std::vector<float> at = CentrelineM(receiver, area, channel, nx, spacingM);
    auto halfWidth = [&](int p) { return static_cast<float>(0.5 * field.ChannelWidthM(area[p])); };
    for (int k = 0; k < nx * ny; ++k) {
        if (!channel[k]) continue;
        ++field.channelPosts_;
        int r = receiver[k] >= 0 ? receiver[k] : k;
        field.segments_.push_back({at[2 * k], at[2 * k + 1], at[2 * r], at[2 * r + 1], halfWidth(k),
                                   halfWidth(r), static_cast<float>(filled[k]),
                                   static_cast<float>(filled[r])});
    }
    field.BucketSegments();
    return field;
}

Expected<DrainageField> DrainageField::Build(
    double widthM, double depthM, double spacingM,
    const std::function<double(double xM, double yM)>& heightAtM, const DrainageOptions& options) {
    auto heights = SampleHeightsM("drainage", widthM, depthM, spacingM, heightAtM);
    if (!heights) return heights.error();
    return Build(heights->values, heights->nx, heights->ny, spacingM, options);
}

double DrainageField::ChannelWidthM(double areaM2) const {
    if (areaM2 < options_.thresholdM2) return 0.0;
    return std::clamp(options_.widthAt1Km2M * std::sqrt(areaM2 / 1.0e6), options_.minWidthM,
                      options_.maxWidthM);
}

void DrainageField::BucketSegments() {
    const double spacingM = areaM2_.spacingM;
    bucketM_ = std::max(16.0, 2.0 * spacingM);
    bucketsX_ = static_cast<int>((areaM2_.nx - 1) * spacingM / bucketM_) + 1;
    bucketsY_ = static_cast<int>((areaM2_.ny - 1) * spacingM / bucketM_) + 1;
    // Each segment's range of buckets, grown by its half-width.
    auto range = [&](const Segment& s, auto&& visit) {
        float grow = std::max(s.halfWidth0M, s.halfWidth1M);
        int bx0 = std::max(0, static_cast<int>((std::min(s.x0, s.x1) - grow) / bucketM_));
        int by0 = std::max(0, static_cast<int>((std::min(s.y0, s.y1) - grow) / bucketM_));
        int bx1 =
            std::min(bucketsX_ - 1, static_cast<int>((std::max(s.x0, s.x1) + grow) / bucketM_));
        int by1 =
            std::min(bucketsY_ - 1, static_cast<int>((std::max(s.y0, s.y1) + grow) / bucketM_));
        for (int by = by0; by <= by1; ++by) {
            for (int bx = bx0; bx <= bx1; ++bx) visit(by * bucketsX_ + bx);
        }
    };
    first_.assign(static_cast<std::size_t>(bucketsX_) * bucketsY_ + 1, 0);
    for (const Segment& s : segments_) range(s, [&](int b) { ++first_[b + 1]; });
    for (std::size_t b = 1; b < first_.size(); ++b) first_[b] += first_[b - 1];
    members_.resize(first_.back());
    std::vector<int> next(first_.begin(), first_.end() - 1);
    for (int s = 0; s < static_cast<int>(segments_.size()); ++s) {
        range(segments_[s], [&](int b) { members_[next[b]++] = s; });
    }
}

double DrainageField::UpstreamAreaM2AtM(double xM, double yM) const {
    int i = std::clamp(static_cast<int>(std::lround(xM / areaM2_.spacingM)), 0, areaM2_.nx - 1);
    int j = std::clamp(static_cast<int>(std::lround(yM / areaM2_.spacingM)), 0, areaM2_.ny - 1);
    return areaM2_.values[static_cast<std::size_t>(j) * areaM2_.nx + i];
}

StreamWater DrainageField::WaterAtM(double xM, double yM, double footprintM) const {
    StreamWater water;
    const auto f = static_cast<float>(std::max(footprintM, 1e-3));
    const auto x = static_cast<float>(xM), y = static_cast<float>(yM);
    // Buckets that hold every segment within half a footprint of the point.
    int bx0 = std::max(0, static_cast<int>(std::floor((xM - 0.5 * f) / bucketM_)));
    int by0 = std::max(0, static_cast<int>(std::floor((yM - 0.5 * f) / bucketM_)));
    int bx1 = std::min(bucketsX_ - 1, static_cast<int>(std::floor((xM + 0.5 * f) / bucketM_)));
    int by1 = std::min(bucketsY_ - 1, static_cast<int>(std::floor((yM + 0.5 * f) / bucketM_)));
    for (int by = by0; by <= by1; ++by) {
        for (int bx = bx0; bx <= bx1; ++bx) {
            int b = by * bucketsX_ + bx;
            for (int m = first_[b]; m < first_[b + 1]; ++m) {
                const Segment& s = segments_[members_[m]];
                float ex = s.x1 - s.x0, ey = s.y1 - s.y0;
                float length2 = ex * ex + ey * ey;
                float t = length2 > 0.0f ? std::clamp(((x - s.x0) * ex + (y - s.y0) * ey) / length2,
                                                      0.0f, 1.0f)
                                         : 0.0f;
                float px = x - (s.x0 + t * ex), py = y - (s.y0 + t * ey);
                float d = std::sqrt(px * px + py * py);  // hypot is a slow library call
                float share = Coverage(d, s.halfWidth0M + t * (s.halfWidth1M - s.halfWidth0M), f);
                if (share > water.share) {
                    water.share = share;
                    water.surfaceM = s.surface0M + t * (s.surface1M - s.surface0M);
                }
            }
        }
    }
    return water;
}

}  // namespace bfv::raytracer
