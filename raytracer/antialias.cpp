#include "raytracer/antialias.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <limits>

// The edge finder is compiled once per instruction set Highway targets and the best one the
// CPU has is picked at run time: foreach_target re-includes this file.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "raytracer/antialias.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bfv::raytracer {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

// The sum of three 8-bit absolute differences saturates at 255, above the threshold: the
// saturated sum exceeds it exactly when the true one does.
static_assert(kEdgeContrastLevels < 255);

// Whether two neighbouring pixels, of colours a and b and hits at horizontal distances sA and
// sB (metres; < 0: sky), disagree (kEdgeContrastLevels, kEdgeBlueYellowLevels,
// kEdgeDepthRatio).
bool Disagree(common::Pixel a, common::Pixel b, float sA, float sB) {
    if ((sA < 0.0f) != (sB < 0.0f)) return true;
    if (std::max(sA, sB) > kEdgeDepthRatio * std::min(sA, sB) && sA >= 0.0f) return true;
    if (std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b) > kEdgeContrastLevels)
        return true;
    auto blueYellow = [](common::Pixel p) { return 2 * p.b - p.r - p.g; };
    return std::abs(blueYellow(a) - blueYellow(b)) > kEdgeBlueYellowLevels;
}

// Disagree for Lanes(df) consecutive pixel pairs: a's pixels and hits from pa and sa, b's from
// pb and sb.
template <class DF>
HWY_INLINE hn::Mask<DF> DisagreeLanes(DF df, const common::Pixel* pa, const float* sa,
                                      const common::Pixel* pb, const float* sb) {
    const hn::Rebind<std::uint8_t, DF> d8;
    const hn::RebindToUnsigned<DF> du;
    using V8 = hn::Vec<decltype(d8)>;
    V8 ra, ga, ba, rb, gb, bb;
    hn::LoadInterleaved3(d8, reinterpret_cast<const std::uint8_t*>(pa), ra, ga, ba);
    hn::LoadInterleaved3(d8, reinterpret_cast<const std::uint8_t*>(pb), rb, gb, bb);
    auto absDiff = [](V8 u, V8 v) {
        return hn::Or(hn::SaturatedSub(u, v), hn::SaturatedSub(v, u));
    };
    const V8 contrast =
        hn::SaturatedAdd(hn::SaturatedAdd(absDiff(ra, rb), absDiff(ga, gb)), absDiff(ba, bb));
    const auto colour = hn::RebindMask(
        df, hn::Gt(hn::PromoteTo(du, contrast), hn::Set(du, std::uint32_t{kEdgeContrastLevels})));
    const hn::RebindToSigned<DF> di;
    auto blueYellow = [&](V8 r, V8 g, V8 b) {
        const auto b32 = hn::PromoteTo(di, b);
        return hn::Sub(hn::Add(b32, b32), hn::Add(hn::PromoteTo(di, r), hn::PromoteTo(di, g)));
    };
    const auto hue =
        hn::RebindMask(df, hn::Gt(hn::Abs(hn::Sub(blueYellow(ra, ga, ba), blueYellow(rb, gb, bb))),
                                  hn::Set(di, kEdgeBlueYellowLevels)));
    const auto a = hn::LoadU(df, sa), b = hn::LoadU(df, sb);
    const auto skyA = hn::Lt(a, hn::Zero(df)), skyB = hn::Lt(b, hn::Zero(df));
    const auto apart = hn::Gt(hn::Max(a, b), hn::Mul(hn::Set(df, kEdgeDepthRatio), hn::Min(a, b)));
    const auto depth = hn::AndNot(hn::Or(skyA, skyB), apart);
    return hn::Or(hn::Or(hn::Xor(skyA, skyB), depth), hn::Or(colour, hue));
}

// Bit y of `bits` (one bit a row, 64 a word): whether pixel y of column a (pixels pa, hits sa)
// and pixel y of column b disagree (Disagree), for rows 0 .. rows - 1; the other bits clear.
// Each pair of neighbours is compared once: FindEdgePixelsOn combines the pairs a pixel is in.
void DisagreeingRows(const common::Pixel* pa, const float* sa, const common::Pixel* pb,
                     const float* sb, int rows, std::vector<std::uint64_t>& bits) {
    // At most 16 lanes, a power of two: a vector's mask bits lie inside one word.
    const hn::CappedTag<float, 16> df;
    const int lanes = static_cast<int>(hn::Lanes(df));
    std::fill(bits.begin(), bits.end(), 0);
    int y = 0;
    for (; y + lanes <= rows; y += lanes) {
        std::uint8_t maskBytes[8] = {};
        hn::StoreMaskBits(df, DisagreeLanes(df, pa + y, sa + y, pb + y, sb + y), maskBytes);
        const std::uint64_t mask = maskBytes[0] | static_cast<std::uint64_t>(maskBytes[1]) << 8;
        bits[y / 64] |= mask << y % 64;
    }
    for (; y < rows; ++y) {
        if (Disagree(pa[y], pb[y], sa[y], sb[y])) bits[y / 64] |= std::uint64_t{1} << y % 64;
    }
}

}  // namespace

void FindEdgePixelsOn(const CastColumns& cast, const common::ColumnSet& columns,
                      std::vector<std::uint32_t>& edges) {
    edges.clear();
    const int widthPx = static_cast<int>(cast.pixels.size()), h = cast.heightPx;
    const std::size_t words = (static_cast<std::size_t>(h) + 63) / 64;
    // Per row of column x: whether it disagrees with the row below (down), with the pixel on
    // its left (left) and on its right (right). A screen side has no neighbour beyond it.
    std::vector<std::uint64_t> down(words), left(words), right(words);
    int rightOfColumn = -1;  // the column whose pairs with the next one `right` holds
    for (int k = 0; k < columns.count; ++k) {
        const int x = columns.At(k);
        const common::Pixel* column = cast.pixels[x];
        const float* s = cast.hitS[x];
        if (x == 0) {
            std::fill(left.begin(), left.end(), 0);
        } else if (rightOfColumn == x - 1) {
            std::swap(left, right);
        } else {
            DisagreeingRows(cast.pixels[x - 1], cast.hitS[x - 1], column, s, h, left);
        }
        if (x + 1 < widthPx) {
            DisagreeingRows(column, s, cast.pixels[x + 1], cast.hitS[x + 1], h, right);
        } else {
            std::fill(right.begin(), right.end(), 0);
        }
        rightOfColumn = x;
        DisagreeingRows(column, s, column + 1, s + 1, h - 1, down);
        const std::uint32_t base = static_cast<std::uint32_t>(x) * h;
        std::uint64_t carry = 0;  // whether the last row of the word before disagrees below
        for (std::size_t w = 0; w < words; ++w) {
            std::uint64_t edge = down[w] | down[w] << 1 | carry | left[w] | right[w];
            carry = down[w] >> 63;
            while (edge != 0) {
                edges.push_back(base + static_cast<std::uint32_t>(64 * w + std::countr_zero(edge)));
                edge &= edge - 1;
            }
        }
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace bfv::raytracer
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bfv::raytracer {

HWY_EXPORT(FindEdgePixelsOn);

namespace {

// The nearest hit (horizontal distance, metres) among pixel (x, y) and its eight neighbours on
// the screen, or infinity when all of them see sky.
double NearestHitAround(const CastColumns& cast, int x, int y) {
    const int widthPx = static_cast<int>(cast.hitS.size());
    double nearest = std::numeric_limits<double>::infinity();
    for (int nx = std::max(0, x - 1); nx <= std::min(widthPx - 1, x + 1); ++nx) {
        const float* hits = cast.hitS[nx];
        for (int ny = std::max(0, y - 1); ny <= std::min(cast.heightPx - 1, y + 1); ++ny) {
            if (hits[ny] >= 0.0f) nearest = std::min(nearest, static_cast<double>(hits[ny]));
        }
    }
    return nearest;
}

// Sums of the channels of the rays of one edge pixel.
struct ChannelSums {
    int r = 0, g = 0, b = 0;

    void Add(common::Pixel p) { r += p.r, g += p.g, b += p.b; }

    // The mean of `n` samples, each channel rounded to the nearest level.
    common::Pixel Mean(int n) const {
        auto mean = [n](int sum) { return static_cast<std::uint8_t>((sum + n / 2) / n); };
        return {mean(r), mean(g), mean(b)};
    }
};

// The most edge pixels one plane's walk samples together: a run down a column (SampleRun).
constexpr int kMaxRunPixels = 8;

// The most a run's plane's screen line may drift sideways across the run: a grid column's
// width, so that each of its samples stays inside its own grid column of the pixel.
constexpr double kRunDriftPx = 1.0 / kAntialiasPlanes;

// The box-filtered colours of the `pixels` pixels of column x from row y down, into out[0 ..
// pixels - 1]: each the mean of kAntialiasPlanes x kAntialiasRows rays at the centres of a grid
// over it, marched from sStartM, in the sky and haze of the run's middle (CastRays). Grid column
// i of a run of pixels is cast as one vertical plane where its screen line drifts at most
// kRunDriftPx across the run (common::PlaneRowsAt): a silhouette's edge pixels come in runs (the
// ground pixel and the sky above it are both edges), and a plane's walk, not its rays, is what
// costs. Else pixel by pixel, as a plane of its rows where its own line runs closer to vertical
// than to horizontal, else ray by ray.
void SampleRun(const TileCache& cache, const FrameRays& frame, const CastSettings& settings, int x,
               int y, int pixels, double sStartM, ColumnScratch& scratch, common::Pixel* out) {
    const common::ScreenSpec& screen = frame.fan->screen;
    std::array<ChannelSums, kMaxRunPixels> sums{};
    std::array<double, kMaxRunPixels * kAntialiasRows> slopes;
    SkyToward(frame, common::PinholeRayAt(frame.pose, screen, x + 0.5, y + 0.5 * pixels).dir,
              scratch.pixelSky);
    // Casts the first n slopes along `dir`, ray r adding to pixel first + r / kAntialiasRows.
    auto cast = [&](common::HorizontalDirection dir, int n, int first) {
        CastRays(cache, frame, dir, std::span(slopes.data(), n), sStartM, scratch.pixelSky,
                 settings, scratch);
        for (int r = 0; r < n; ++r) sums[first + r / kAntialiasRows].Add(scratch.pixels[r]);
    };
    for (int i = 0; i < kAntialiasPlanes; ++i) {
        const double xPx = x + (i + 0.5) / kAntialiasPlanes;
        common::HorizontalDirection dir;
        if (pixels > 1 && common::PlaneRowsAt(frame.pose, screen, xPx, y, pixels, kAntialiasRows,
                                              kRunDriftPx, dir, slopes)) {
            cast(dir, pixels * kAntialiasRows, 0);
            continue;
        }
        for (int p = 0; p < pixels; ++p) {
            if (common::PlaneRowsAt(frame.pose, screen, xPx, y + p, 1, kAntialiasRows, 1.0, dir,
                                    slopes)) {
                cast(dir, kAntialiasRows, p);
                continue;
            }
            for (int j = 0; j < kAntialiasRows; ++j) {
                const common::PlaneRayDirection ray = common::PinholeRayAt(
                    frame.pose, screen, xPx, y + p + (j + 0.5) / kAntialiasRows);
                slopes[0] = ray.slope;
                cast(ray.dir, 1, p);
            }
        }
    }
    for (int p = 0; p < pixels; ++p) out[p] = sums[p].Mean(kAntialiasPlanes * kAntialiasRows);
}

}  // namespace

void FindEdgePixels(const CastColumns& cast, const common::ColumnSet& columns,
                    std::vector<std::uint32_t>& edges) {
    HWY_DYNAMIC_DISPATCH(FindEdgePixelsOn)(cast, columns, edges);
}

void AntialiasPixels(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                     const CastColumns& cast, std::span<const std::uint32_t> edges,
                     ColumnScratch& scratch, std::vector<common::Pixel>& colours) {
    colours.resize(edges.size());
    const int h = cast.heightPx;
    constexpr double kAllSky = std::numeric_limits<double>::infinity();
    std::size_t e = 0;
    while (e < edges.size()) {
        const int x = static_cast<int>(edges[e] / h), y = static_cast<int>(edges[e] % h);
        double sStartM = NearestHitAround(cast, x, y);
        if (sStartM == kAllSky) {
            colours[e++] = cast.pixels[x][y];
            continue;
        }
        // The run of edge pixels down the column from (x, y) that see some ground around them,
        // marched from the nearest of their hits.
        int pixels = 1;
        while (pixels < kMaxRunPixels && e + pixels < edges.size() && y + pixels < h &&
               edges[e + pixels] == edges[e] + static_cast<std::uint32_t>(pixels)) {
            const double around = NearestHitAround(cast, x, y + pixels);
            if (around == kAllSky) break;
            sStartM = std::min(sStartM, around);
            ++pixels;
        }
        SampleRun(cache, frame, settings, x, y, pixels, sStartM, scratch, colours.data() + e);
        e += pixels;
    }
}

void AntialiasEdges(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                    const CastColumns& cast, const common::ColumnSet& columns,
                    ColumnScratch& scratch, EdgeColours& out) {
    FindEdgePixels(cast, columns, out.edges);
    AntialiasPixels(cache, frame, settings, cast, out.edges, scratch, out.colours);
}

void AntialiasColumns(const TileCache& cache, const FrameRays& frame, const CastSettings& settings,
                      const common::ColumnSet& columns, common::Pixel* pixels, const float* hitS,
                      ColumnScratch& scratch, AntialiasBuffers& buffers) {
    const int h = frame.fan->screen.heightPx, w = frame.fan->screen.widthPx;
    CastColumns& cast = buffers.cast;
    cast.heightPx = h;
    cast.pixels.assign(w, nullptr);
    cast.hitS.assign(w, nullptr);
    auto expose = [&](const common::ColumnSet& set, const common::Pixel* setPixels,
                      const float* setHitS) {
        for (int k = 0; k < set.count; ++k) {
            cast.pixels[set.At(k)] = setPixels + static_cast<std::size_t>(k) * h;
            cast.hitS[set.At(k)] = setHitS + static_cast<std::size_t>(k) * h;
        }
    };
    expose(columns, pixels, hitS);
    const std::vector<common::ColumnSet> neighbours = common::NeighbourColumns(columns, w);
    buffers.neighbourPixels.resize(neighbours.size());
    buffers.neighbourHitS.resize(neighbours.size());
    for (std::size_t n = 0; n < neighbours.size(); ++n) {
        const common::ColumnSet& set = neighbours[n];
        buffers.neighbourPixels[n].resize(static_cast<std::size_t>(set.count) * h);
        buffers.neighbourHitS[n].resize(static_cast<std::size_t>(set.count) * h);
        for (int p : common::PlanesCrossing(*frame.fan, set)) {
            CastPlane(cache, frame, p, settings, set, scratch, buffers.neighbourPixels[n].data(),
                      buffers.neighbourHitS[n].data());
        }
        expose(set, buffers.neighbourPixels[n].data(), buffers.neighbourHitS[n].data());
    }
    AntialiasEdges(cache, frame, settings, cast, columns, scratch, buffers.edges);
    for (std::size_t e = 0; e < buffers.edges.edges.size(); ++e) {
        const int x = static_cast<int>(buffers.edges.edges[e] / h);
        const int y = static_cast<int>(buffers.edges.edges[e] % h);
        pixels[static_cast<std::size_t>((x - columns.first) / columns.stride) * h + y] =
            buffers.edges.colours[e];
    }
}

common::ScreenSpec SupersampledScreen(const common::ScreenSpec& screen, int samplesPerSide) {
    return {screen.widthPx * samplesPerSide, screen.heightPx * samplesPerSide, screen.hFovRad};
}

common::SampleCounts CastSupersampled(const TileCache& cache, const common::CameraPose& pose,
                                      const CastSettings& settings, int samplesPerSide,
                                      const common::FanLayout& fineFan,
                                      const common::ColumnSet& columns, ColumnScratch& scratch,
                                      std::vector<common::Pixel>& finePixels, common::Pixel* out) {
    const int s = samplesPerSide, h = fineFan.screen.heightPx / s, fineH = fineFan.screen.heightPx;
    CastSettings fine = settings;
    fine.lodBias *= s;
    const FrameRays rays = FrameRaysOf(cache, pose, fineFan, fine);
    finePixels.resize(static_cast<std::size_t>(columns.count) * fineH);
    const long long hitsBefore = scratch.hits, coarserBefore = scratch.coarserHits;
    std::vector<ChannelSums> sums(static_cast<std::size_t>(columns.count) * h);
    // Fine column i of every column of `columns`: a column set of the fine screen.
    for (int i = 0; i < s; ++i) {
        const common::ColumnSet fineColumns{columns.first * s + i, columns.stride * s,
                                            columns.count};
        for (int p : common::PlanesCrossing(fineFan, fineColumns)) {
            CastPlane(cache, rays, p, fine, fineColumns, scratch, finePixels.data());
        }
        for (std::size_t k = 0; k < static_cast<std::size_t>(columns.count); ++k) {
            for (int y = 0; y < h; ++y) {
                for (int j = 0; j < s; ++j) sums[k * h + y].Add(finePixels[k * fineH + y * s + j]);
            }
        }
    }
    for (std::size_t n = 0; n < sums.size(); ++n) out[n] = sums[n].Mean(s * s);
    return {static_cast<std::uint64_t>(scratch.hits - hitsBefore),
            static_cast<std::uint64_t>(scratch.coarserHits - coarserBefore)};
}

}  // namespace bfv::raytracer
#endif  // HWY_ONCE
