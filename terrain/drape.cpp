#include "terrain/drape.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/check.h"

namespace bfv::terrain {

namespace {

constexpr int kClusters = common::kLandMaterials;
constexpr int kKMeansRounds = 30;

using Colour = std::array<float, 3>;

Colour ToColour(common::Rgb c) { return {float(c.r), float(c.g), float(c.b)}; }

float Distance2(const Colour& a, const Colour& b) {
    float dr = a[0] - b[0], dg = a[1] - b[1], db = a[2] - b[2];
    return dr * dr + dg * dg + db * db;
}

/// Rec. 601 luma: the order the clusters start in and the ramp's darker end.
float Luminance(const Colour& c) { return 0.299f * c[0] + 0.587f * c[1] + 0.114f * c[2]; }

/// The centres after one round of Lloyd's algorithm: every sample to its nearest centre, every
/// centre to its samples' mean; a centre left without samples moves to the sample farthest
/// from the centre it belongs to.
std::array<Colour, kClusters> LloydRound(const std::vector<Colour>& samples,
                                         const std::array<Colour, kClusters>& centres) {
    std::array<Colour, kClusters> sums{};
    std::array<int, kClusters> counts{};
    std::size_t farthest = 0;
    float farthestD2 = -1.0f;
    for (std::size_t s = 0; s < samples.size(); ++s) {
        int best = 0;
        float bestD2 = std::numeric_limits<float>::max();
        for (int k = 0; k < kClusters; ++k) {
            float d2 = Distance2(samples[s], centres[k]);
            if (d2 < bestD2) {
                bestD2 = d2;
                best = k;
            }
        }
        for (int c = 0; c < 3; ++c) sums[best][c] += samples[s][c];
        ++counts[best];
        if (bestD2 > farthestD2) {
            farthestD2 = bestD2;
            farthest = s;
        }
    }
    std::array<Colour, kClusters> next = centres;
    for (int k = 0; k < kClusters; ++k) {
        if (counts[k] == 0) {
            next[k] = samples[farthest];
            continue;
        }
        for (int c = 0; c < 3; ++c) next[k][c] = sums[k][c] / float(counts[k]);
    }
    return next;
}

/// The order of `centres` with the shortest path through them (every order tried: 8! paths),
/// started at the darker end.
std::array<int, kClusters> ShortestPath(const std::array<Colour, kClusters>& centres) {
    std::array<int, kClusters> order{}, best{};
    std::iota(order.begin(), order.end(), 0);
    float bestLength = std::numeric_limits<float>::max();
    do {
        if (order.front() > order.back()) continue;  // each path once, not also reversed
        float length = 0.0f;
        for (int k = 0; k + 1 < kClusters; ++k) {
            length += std::sqrt(Distance2(centres[order[k]], centres[order[k + 1]]));
        }
        if (length < bestLength) {
            bestLength = length;
            best = order;
        }
    } while (std::next_permutation(order.begin(), order.end()));
    if (Luminance(centres[best.front()]) > Luminance(centres[best.back()])) {
        std::reverse(best.begin(), best.end());
    }
    return best;
}

std::uint8_t Channel(float v) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

}  // namespace

common::LandColours BuildLandRamp(std::span<const common::Rgb> samples) {
    BFV_CHECK(!samples.empty());
    std::vector<Colour> colours(samples.size());
    std::transform(samples.begin(), samples.end(), colours.begin(), ToColour);
    std::vector<Colour> byLuminance = colours;
    std::sort(byLuminance.begin(), byLuminance.end(),
              [](const Colour& a, const Colour& b) { return Luminance(a) < Luminance(b); });
    std::array<Colour, kClusters> centres{};
    for (int k = 0; k < kClusters; ++k) {
        centres[k] = byLuminance[(2 * k + 1) * byLuminance.size() / (2 * kClusters)];
    }
    for (int round = 0; round < kKMeansRounds; ++round) centres = LloydRound(colours, centres);
    std::array<int, kClusters> order = ShortestPath(centres);
    common::LandColours ramp;
    for (int k = 0; k < kClusters; ++k) {
        const Colour& c = centres[order[k]];
        ramp[k] = {Channel(c[0]), Channel(c[1]), Channel(c[2])};
    }
    return ramp;
}

float RampCoordinate(common::Rgb colour, const common::LandColours& ramp) {
    const Colour c = ToColour(colour);
    float bestD2 = std::numeric_limits<float>::max(), best = 0.0f;
    for (int k = 0; k + 1 < kClusters; ++k) {
        Colour a = ToColour(ramp[k]), b = ToColour(ramp[k + 1]);
        Colour ab{b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float length2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        float t = 0.0f;
        if (length2 > 0.0f) {
            t = ((c[0] - a[0]) * ab[0] + (c[1] - a[1]) * ab[1] + (c[2] - a[2]) * ab[2]) / length2;
            t = std::clamp(t, 0.0f, 1.0f);
        }
        Colour nearest{a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
        float d2 = Distance2(c, nearest);
        if (d2 < bestD2) {
            bestD2 = d2;
            best = static_cast<float>(k) + t;
        }
    }
    return best;
}

std::uint8_t MaterialCode(float coordinate) {
    return static_cast<std::uint8_t>(
        std::clamp(std::lround(coordinate * kTextureCodesPerMaterial), 0L, 255L));
}

int DrapedLevelsFor(const PyramidInfo& info, double pixelM) {
    int levels = info.storedLevels;
    while (levels < info.geometry.levelCount && info.geometry.SpacingM(levels) >= pixelM) ++levels;
    return levels;
}

Expected<void> DrapeSink::Start(const PyramidInfo& info) {
    info_ = info;
    constexpr double kStep = 1.0 / kRampSampleSide;
    if (auto ok =
            imagery_.Sample(0.0, 0.0, kStep, kStep, kRampSampleSide, kRampSampleSide, colours_);
        !ok) {
        return ok;
    }
    ramp_ = BuildLandRamp(colours_);
    info_.landColours.assign(ramp_.begin(), ramp_.end());
    std::array<double, 2> pixels = imagery_.PixelsAcross();
    info_.drapedLevels = DrapedLevelsFor(
        info_, std::max(info_.dataWidthM / pixels[0], info_.dataDepthM / pixels[1]));
    return sink_.Start(info_);
}

Expected<void> DrapeSink::Drape(TilePosts& tile) {
    double spacingM = info_.geometry.SpacingM(tile.key.level);
    double du = spacingM / info_.dataWidthM, dv = spacingM / info_.dataDepthM;
    double u0 = (TileOriginM(tile.key.tx, spacingM) - 0.5 * spacingM) / info_.dataWidthM;
    double v0 = (TileOriginM(tile.key.ty, spacingM) - 0.5 * spacingM) / info_.dataDepthM;
    if (auto ok = imagery_.Sample(u0, v0, du, dv, kTilePosts, kTilePosts, colours_); !ok) {
        return ok;
    }
    tile.materials.resize(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k) tile.materials[k] = CodeOf(colours_[k]);
    return {};
}

std::uint8_t DrapeSink::CodeOf(common::Rgb colour) {
    if (codes_.empty()) codes_.assign(std::size_t{1} << 24, kNotYet);
    std::uint8_t& code =
        codes_[std::size_t{colour.r} << 16 | std::size_t{colour.g} << 8 | colour.b];
    if (code == kNotYet) code = MaterialCode(RampCoordinate(colour, ramp_));
    return code;
}

Expected<void> DrapeSink::PutTileRow(std::span<const TilePosts> tiles) {
    std::vector<TilePosts> draped(tiles.begin(), tiles.end());
    for (TilePosts& tile : draped) {
        if (auto ok = Drape(tile); !ok) return ok;
    }
    return sink_.PutTileRow(draped);
}

Expected<void> DrapeSink::PutDrapedLevels() {
    const auto total = static_cast<long long>(TilesBelowLevel(info_.drapedLevels) -
                                              TilesBelowLevel(info_.storedLevels));
    long long done = 0;
    std::vector<TilePosts> row;
    for (int level = info_.storedLevels; level < info_.drapedLevels; ++level) {
        int perSide = info_.geometry.TilesPerSide(level);
        for (int ty = 0; ty < perSide; ++ty) {
            row.assign(perSide, TilePosts{});
            for (int tx = 0; tx < perSide; ++tx) {
                row[tx].key = {level, tx, ty};
                if (auto ok = Drape(row[tx]); !ok) return ok;
            }
            if (auto ok = sink_.PutTileRow(row); !ok) return ok;
            done += perSide;
            if (progress_) progress_(done, total);
        }
    }
    return {};
}

}  // namespace bfv::terrain
