// Anti-aliasing and its reference (raytracer/antialias.h): --supersample S is the box filter of
// the S-times larger frame; anti-aliasing changes edge pixels only, moves them toward that
// reference, and gives every split of the screen between tracers the same pixels.

#include "raytracer/antialias.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/decomposition.h"
#include "common/fan.h"
#include "common/pixel.h"
#include "raytracer/ray_caster.h"
#include "tests/raytracer/tile_world.h"

namespace bfv::raytracer {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// Hills of random posts 10 m apart, up to 120 m, under water at 30 m: ridges against the sky,
// shorelines, material boundaries.
TileWorld Hills() {
    return MakeWorld(10.0, 5, 5000.0, 5000.0, RandomHeights(120.0, 7), 5, 120.0f, 30.0);
}

// Poses that see the horizon over hills (level and a little down) and one looking 30 deg down.
std::vector<common::CameraPose> Poses() {
    return {{{2500.0, 1200.0, 160.0}, 10.0 * kDeg, -4.0 * kDeg, 0},
            {{1800.0, 2600.0, 220.0}, 75.0 * kDeg, 0.0, 0},
            {{2400.0, 2300.0, 300.0}, 200.0 * kDeg, -30.0 * kDeg, 0}};
}

const common::ScreenSpec kScreen{72, 40, 60.0 * kDeg};

// A whole screen cast one ray a pixel: the pixels and their hits (column-major).
struct OneRayFrame {
    std::vector<common::Pixel> pixels;
    std::vector<float> hitS;
};

OneRayFrame CastOneRay(const TileWorld& w, const View& view, const CastSettings& settings,
                       const common::ColumnSet& columns) {
    const std::size_t n = static_cast<std::size_t>(columns.count) * view.fan.screen.heightPx;
    OneRayFrame frame{std::vector<common::Pixel>(n), std::vector<float>(n)};
    ColumnScratch scratch;
    for (int p : common::PlanesCrossing(view.fan, columns)) {
        CastPlane(*w.cache, view.frame, p, settings, columns, scratch, frame.pixels.data(),
                  frame.hitS.data());
    }
    return frame;
}

// Mean squared error per channel of `a` against `b` over the pixels `at`.
double SquaredError(const std::vector<common::Pixel>& a, const std::vector<common::Pixel>& b,
                    const std::vector<std::uint32_t>& at) {
    double sum = 0.0;
    for (std::uint32_t i : at) {
        for (auto [u, v] :
             {std::pair{a[i].r, b[i].r}, std::pair{a[i].g, b[i].g}, std::pair{a[i].b, b[i].b}}) {
            sum += (u - v) * (u - v);
        }
    }
    return sum / (3.0 * static_cast<double>(std::max<std::size_t>(at.size(), 1)));
}

// FindEdgePixels against the rule written out pixel by pixel: a pixel is an edge when it and a
// neighbour above, below, left or right (on the screen) see sky and ground, hits more than
// kEdgeDepthRatio apart, colours more than kEdgeContrastLevels apart summed over RGB, or their
// blue-yellow opponents 2B - R - G more than kEdgeBlueYellowLevels apart. Random
// columns of every height up to past two vectors of the widest SIMD target (16 floats), so
// that whole vectors, the rows around them and columns shorter than a vector all meet cases,
// at both screen sides, for contiguous and strided column sets, on every instruction set.
TEST(Antialias, FindEdgePixelsFollowsTheRuleAtEveryRow) {
    std::mt19937 random(11);
    std::uniform_int_distribution<int> level(0, 255), kind(0, 9);
    std::uniform_real_distribution<float> distanceM(10.0f, 40.0f);
    auto disagree = [](common::Pixel a, common::Pixel b, float sA, float sB) {
        if ((sA < 0.0f) != (sB < 0.0f)) return true;
        if (sA >= 0.0f && std::max(sA, sB) > kEdgeDepthRatio * std::min(sA, sB)) return true;
        return std::abs(a.r - b.r) + std::abs(a.g - b.g) + std::abs(a.b - b.b) >
                   kEdgeContrastLevels ||
               std::abs((2 * a.b - a.r - a.g) - (2 * b.b - b.r - b.g)) > kEdgeBlueYellowLevels;
    };
    constexpr int kWidthPx = 9;
    for (int h = 1; h <= 40; ++h) {
        std::vector<common::Pixel> pixels(static_cast<std::size_t>(kWidthPx) * h);
        std::vector<float> hitS(pixels.size());
        for (std::size_t i = 0; i < pixels.size(); ++i) {
            // Runs of equal neighbours (most pixels), sky, near-equal and far-apart hits.
            const int k = kind(random);
            pixels[i] = k < 5 && i > 0 ? pixels[i - 1]
                                       : common::Pixel{static_cast<std::uint8_t>(level(random)),
                                                       static_cast<std::uint8_t>(level(random)),
                                                       static_cast<std::uint8_t>(level(random))};
            hitS[i] = k == 9                              ? -1.0f
                      : k < 6 && i > 0 && hitS[i - 1] > 0 ? hitS[i - 1] * 1.1f
                                                          : distanceM(random);
        }
        CastColumns cast;
        cast.heightPx = h;
        for (int x = 0; x < kWidthPx; ++x) {
            cast.pixels.push_back(pixels.data() + static_cast<std::size_t>(x) * h);
            cast.hitS.push_back(hitS.data() + static_cast<std::size_t>(x) * h);
        }
        for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
            hwy::SetSupportedTargetsForTest(target);
            for (const common::ColumnSet& columns :
                 {common::ColumnSet{0, 1, kWidthPx}, common::ColumnSet{1, 3, 3}}) {
                std::vector<std::uint32_t> expected;
                for (int k = 0; k < columns.count; ++k) {
                    const int x = columns.At(k);
                    for (int y = 0; y < h; ++y) {
                        const std::size_t i = static_cast<std::size_t>(x) * h + y;
                        bool edge = false;
                        for (auto [nx, ny] : {std::pair{x, y - 1}, std::pair{x, y + 1},
                                              std::pair{x - 1, y}, std::pair{x + 1, y}}) {
                            if (nx < 0 || nx >= kWidthPx || ny < 0 || ny >= h) continue;
                            const std::size_t j = static_cast<std::size_t>(nx) * h + ny;
                            edge = edge || disagree(pixels[i], pixels[j], hitS[i], hitS[j]);
                        }
                        if (edge) expected.push_back(static_cast<std::uint32_t>(i));
                    }
                }
                std::vector<std::uint32_t> edges;
                FindEdgePixels(cast, columns, edges);
                EXPECT_EQ(edges, expected)
                    << hwy::TargetName(target) << ", height " << h << ", columns from "
                    << columns.first << " every " << columns.stride;
            }
        }
    }
    hwy::SetSupportedTargetsForTest(0);  // back to what the CPU supports
}

// A shoreline is an edge even where water and land are alike in brightness (their colours less
// than kEdgeContrastLevels apart): water (kWaterColour, shaded) beside a dark forest. A tree
// crown beside its shadow, as far apart in brightness, is not: re-sampling every crown would cost
// many times a frame, and the stair steps do not show there.
TEST(Antialias, ShorelinesAreEdgesAndCrownsAreNot) {
    const common::Pixel water{30, 62, 94}, forest{46, 84, 40}, crown{54, 121, 54},
        shadow{25, 56, 25};
    auto edgesOf = [](common::Pixel a, common::Pixel b) {
        constexpr int kHeightPx = 4;
        std::vector<common::Pixel> pixels{a, a, b, b, a, a, b, b};
        std::vector<float> hitS(pixels.size(), 500.0f);
        CastColumns cast;
        cast.heightPx = kHeightPx;
        for (int x = 0; x < 2; ++x) {
            cast.pixels.push_back(pixels.data() + x * kHeightPx);
            cast.hitS.push_back(hitS.data() + x * kHeightPx);
        }
        std::vector<std::uint32_t> edges;
        FindEdgePixels(cast, common::ColumnSet{0, 1, 2}, edges);
        return edges;
    };
    EXPECT_EQ(edgesOf(water, forest), (std::vector<std::uint32_t>{1, 2, 5, 6}));
    EXPECT_TRUE(edgesOf(crown, shadow).empty());
}

// --supersample S: each pixel is the mean of the S x S pixels over it of the S-times larger
// frame, cast at S times the level-of-detail bias (the pixel's own level of detail), channel by
// channel rounded; and every split of the columns gives the same frame.
TEST(Antialias, SupersampleIsTheBoxFilterOfTheLargerFrame) {
    TileWorld w = Hills();
    const CastSettings settings;
    for (int s : {2, 3}) {
        for (const common::CameraPose& pose : Poses()) {
            const common::ScreenSpec fine = SupersampledScreen(kScreen, s);
            CastSettings fineSettings = settings;
            fineSettings.lodBias *= s;
            View fineView(*w.cache, pose, fine, fineSettings);
            const OneRayFrame large = CastOneRay(w, fineView, fineSettings, {0, 1, fine.widthPx});
            const common::FanLayout fineFan = common::BuildFanLayout(fine, pose.pitchRad);
            for (auto [decomposition, slices] :
                 {std::pair{common::Decomposition::Contiguous, 1},
                  std::pair{common::Decomposition::Contiguous, 3},
                  std::pair{common::Decomposition::Interleaved, 3}}) {
                for (int t = 0; t < slices; ++t) {
                    const common::ColumnSet columns =
                        common::ColumnsOf(decomposition, t, slices, kScreen.widthPx);
                    std::vector<common::Pixel> out(static_cast<std::size_t>(columns.count) *
                                                   kScreen.heightPx);
                    ColumnScratch scratch;
                    std::vector<common::Pixel> work;
                    CastSupersampled(*w.cache, pose, settings, s, fineFan, columns, scratch, work,
                                     out.data());
                    int differing = 0;
                    for (int k = 0; k < columns.count; ++k) {
                        for (int y = 0; y < kScreen.heightPx; ++y) {
                            int sum[3] = {0, 0, 0};
                            for (int i = 0; i < s; ++i) {
                                for (int j = 0; j < s; ++j) {
                                    const common::Pixel p =
                                        large.pixels[static_cast<std::size_t>(columns.At(k) * s +
                                                                              i) *
                                                         fine.heightPx +
                                                     y * s + j];
                                    sum[0] += p.r, sum[1] += p.g, sum[2] += p.b;
                                }
                            }
                            const int n = s * s;
                            const common::Pixel box{
                                static_cast<std::uint8_t>((sum[0] + n / 2) / n),
                                static_cast<std::uint8_t>((sum[1] + n / 2) / n),
                                static_cast<std::uint8_t>((sum[2] + n / 2) / n)};
                            differing +=
                                out[static_cast<std::size_t>(k) * kScreen.heightPx + y] != box;
                        }
                    }
                    EXPECT_EQ(differing, 0) << "S " << s << " heading " << pose.headingRad << " "
                                            << common::ToString(decomposition) << " " << t;
                }
            }
        }
    }
}

// Anti-aliasing changes edge pixels only (FindEdgePixels of the one-ray frame), the views have
// some, and over them the error against --supersample 4 falls to under a quarter (6 dB).
TEST(Antialias, ChangesOnlyEdgePixelsAndMovesThemTowardTheReference) {
    TileWorld w = Hills();
    const CastSettings settings;
    const common::ColumnSet every{0, 1, kScreen.widthPx};
    double before = 0.0, after = 0.0;
    std::size_t edgePixels = 0;
    for (const common::CameraPose& pose : Poses()) {
        View view(*w.cache, pose, kScreen, settings);
        OneRayFrame frame = CastOneRay(w, view, settings, every);
        const std::vector<common::Pixel> oneRay = frame.pixels;
        ColumnScratch scratch;
        AntialiasBuffers buffers;
        AntialiasColumns(*w.cache, view.frame, settings, every, frame.pixels.data(),
                         frame.hitS.data(), scratch, buffers);
        const std::vector<std::uint32_t>& edges = buffers.edges.edges;
        std::vector<bool> edge(oneRay.size(), false);
        for (std::uint32_t i : edges) edge[i] = true;
        int changedElsewhere = 0;
        for (std::size_t i = 0; i < oneRay.size(); ++i) {
            changedElsewhere += !edge[i] && frame.pixels[i] != oneRay[i];
        }
        EXPECT_EQ(changedElsewhere, 0) << "heading " << pose.headingRad;
        std::vector<common::Pixel> reference(oneRay.size()), work;
        CastSupersampled(*w.cache, pose, settings, 4,
                         common::BuildFanLayout(SupersampledScreen(kScreen, 4), pose.pitchRad),
                         every, scratch, work, reference.data());
        const double n = static_cast<double>(edges.size());
        before += n * SquaredError(oneRay, reference, edges);
        after += n * SquaredError(frame.pixels, reference, edges);
        edgePixels += edges.size();
    }
    ASSERT_GT(edgePixels, 50u);
    EXPECT_LT(after, 0.25 * before) << "summed squared error " << before << " before, " << after
                                    << " after, over " << edgePixels << " edge pixels";
}

// A run of edge pixels down a column, sampled by one plane's walk per grid column, gives each
// pixel the colour it gets sampled alone: level (pitch 0) a column's planes are the pixels'
// own, and over smooth hills (waves 800 and 950 m long) a ray meets nothing between the run's
// start (the nearest hit around any of its pixels) and its own pixel's.
TEST(Antialias, ARunOfEdgePixelsGetsTheColoursEachGetsAlone) {
    constexpr double kTwoPi = 2.0 * std::numbers::pi;
    TileWorld w = MakeWorld(
        10.0, 5, 5000.0, 5000.0,
        [=](int i, int j) {
            return 60.0 + 55.0 * std::sin(kTwoPi * i / 80) * std::sin(kTwoPi * j / 95);
        },
        5, 115.0f, 30.0);
    const CastSettings settings;
    const common::ColumnSet every{0, 1, kScreen.widthPx};
    const common::CameraPose pose{{1800.0, 2600.0, 140.0}, 75.0 * kDeg, 0.0, 0};
    View view(*w.cache, pose, kScreen, settings);
    OneRayFrame frame = CastOneRay(w, view, settings, every);
    CastColumns cast;
    cast.heightPx = kScreen.heightPx;
    for (int x = 0; x < kScreen.widthPx; ++x) {
        cast.pixels.push_back(frame.pixels.data() + static_cast<std::size_t>(x) * cast.heightPx);
        cast.hitS.push_back(frame.hitS.data() + static_cast<std::size_t>(x) * cast.heightPx);
    }
    std::vector<std::uint32_t> edges;
    FindEdgePixels(cast, every, edges);
    int inRuns = 0;
    for (std::size_t e = 1; e < edges.size(); ++e) inRuns += edges[e] == edges[e - 1] + 1;
    ASSERT_GT(inRuns, 20) << "edge pixels that follow another down its column";
    ColumnScratch scratch;
    std::vector<common::Pixel> together, alone;
    AntialiasPixels(*w.cache, view.frame, settings, cast, edges, scratch, together);
    int differing = 0;
    for (std::size_t e = 0; e < edges.size(); ++e) {
        AntialiasPixels(*w.cache, view.frame, settings, cast, std::span(edges).subspan(e, 1),
                        scratch, alone);
        differing += alone[0] != together[e];
    }
    EXPECT_EQ(differing, 0) << "of " << edges.size() << " edge pixels, " << inRuns << " in runs";
}

// Every split of the screen gives the same anti-aliased pixels: each slice casts its
// neighbours' columns as their owners do.
TEST(Antialias, EverySplitOfTheScreenGivesTheSamePixels) {
    TileWorld w = Hills();
    const CastSettings settings;
    for (const common::CameraPose& pose : Poses()) {
        View view(*w.cache, pose, kScreen, settings);
        auto antialiased = [&](const common::ColumnSet& columns) {
            OneRayFrame frame = CastOneRay(w, view, settings, columns);
            ColumnScratch scratch;
            AntialiasBuffers buffers;
            AntialiasColumns(*w.cache, view.frame, settings, columns, frame.pixels.data(),
                             frame.hitS.data(), scratch, buffers);
            return frame.pixels;
        };
        const std::vector<common::Pixel> whole = antialiased({0, 1, kScreen.widthPx});
        for (auto decomposition :
             {common::Decomposition::Contiguous, common::Decomposition::Interleaved}) {
            int differing = 0;
            for (int tracers : {2, 3})
                for (int t = 0; t < tracers; ++t) {
                    const common::ColumnSet columns =
                        common::ColumnsOf(decomposition, t, tracers, kScreen.widthPx);
                    const std::vector<common::Pixel> slice = antialiased(columns);
                    for (int k = 0; k < columns.count; ++k) {
                        for (int y = 0; y < kScreen.heightPx; ++y) {
                            differing +=
                                slice[static_cast<std::size_t>(k) * kScreen.heightPx + y] !=
                                whole[static_cast<std::size_t>(columns.At(k)) * kScreen.heightPx +
                                      y];
                        }
                    }
                }
            EXPECT_EQ(differing, 0)
                << common::ToString(decomposition) << " heading " << pose.headingRad;
        }
    }
}

}  // namespace
}  // namespace bfv::raytracer
