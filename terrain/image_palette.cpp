#include "terrain/image_palette.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/check.h"
#include "common/colour.h"

namespace bfv::terrain {
namespace {

using Lab3 = std::array<float, 3>;

std::uint32_t Packed(common::Rgb c) { return std::uint32_t{c.r} << 16 | c.g << 8 | c.b; }

common::Rgb Unpacked(std::uint32_t packed) {
    return {static_cast<std::uint8_t>(packed >> 16), static_cast<std::uint8_t>(packed >> 8),
            static_cast<std::uint8_t>(packed)};
}

Lab3 LabOf(common::Rgb c) {
    common::Lab lab = common::SrgbToLab(c);
    return {static_cast<float>(lab.l), static_cast<float>(lab.a), static_cast<float>(lab.b)};
}

float Distance2(const Lab3& p, const Lab3& q) {
    float dl = p[0] - q[0], da = p[1] - q[1], db = p[2] - q[2];
    return dl * dl + da * da + db * db;
}

/// A distinct sample colour: where it lies in CIELAB, how many samples have it, which it is.
struct Weighted {
    Lab3 lab;
    double weight;
    std::uint32_t packed;
};

/// The distinct colours of `samples` with their counts, in 0xRRGGBB order.
std::vector<Weighted> Distinct(std::span<const common::Rgb> samples) {
    std::vector<std::uint32_t> packed(samples.size());
    std::transform(samples.begin(), samples.end(), packed.begin(), Packed);
    std::sort(packed.begin(), packed.end());
    std::vector<Weighted> distinct;
    for (std::size_t s = 0; s < packed.size(); ++s) {
        if (s > 0 && packed[s] == packed[s - 1]) {
            distinct.back().weight += 1.0;
        } else {
            distinct.push_back({LabOf(Unpacked(packed[s])), 1.0, packed[s]});
        }
    }
    return distinct;
}

/// A box of median cut: colours [begin, end) of the list, and their weighted squared error
/// about their mean (what splitting it would reduce).
struct Box {
    std::size_t begin, end;
    double error;
    int axis;  // the axis of the largest variance, where it is split

    bool operator<(const Box& other) const {  // the priority queue's order: largest error first
        return error != other.error ? error < other.error : begin > other.begin;
    }
};

Box MakeBox(const std::vector<Weighted>& colours, std::size_t begin, std::size_t end) {
    double weight = 0.0;
    std::array<double, 3> sum{}, sum2{};
    for (std::size_t k = begin; k < end; ++k) {
        weight += colours[k].weight;
        for (int c = 0; c < 3; ++c) {
            sum[c] += colours[k].weight * colours[k].lab[c];
            sum2[c] += colours[k].weight * colours[k].lab[c] * colours[k].lab[c];
        }
    }
    Box box{begin, end, 0.0, 0};
    double widest = -1.0;
    for (int c = 0; c < 3; ++c) {
        double error = std::max(sum2[c] - sum[c] * sum[c] / weight, 0.0);
        box.error += error;
        if (error > widest) widest = error, box.axis = c;
    }
    if (end - begin < 2) box.error = 0.0;  // one colour: nothing to split
    return box;
}

/// Splits `box` at the weighted median of its axis (each side keeps at least one colour).
std::size_t SplitAt(std::vector<Weighted>& colours, const Box& box) {
    auto first = colours.begin() + static_cast<std::ptrdiff_t>(box.begin);
    auto last = colours.begin() + static_cast<std::ptrdiff_t>(box.end);
    std::sort(first, last, [axis = box.axis](const Weighted& p, const Weighted& q) {
        return p.lab[axis] != q.lab[axis] ? p.lab[axis] < q.lab[axis] : p.packed < q.packed;
    });
    double total = 0.0, below = 0.0;
    for (auto it = first; it != last; ++it) total += it->weight;
    std::size_t split = box.begin + 1;
    for (std::size_t k = box.begin; k + 1 < box.end; ++k) {
        below += colours[k].weight;
        split = k + 1;
        if (below >= 0.5 * total) break;
    }
    return split;
}

/// Median cut of `colours` into at most `count` boxes; their weighted means.
std::vector<Lab3> MedianCut(std::vector<Weighted>& colours, int count) {
    std::priority_queue<Box> boxes;
    boxes.push(MakeBox(colours, 0, colours.size()));
    while (static_cast<int>(boxes.size()) < count && boxes.top().error > 0.0) {
        Box box = boxes.top();
        boxes.pop();
        std::size_t split = SplitAt(colours, box);
        boxes.push(MakeBox(colours, box.begin, split));
        boxes.push(MakeBox(colours, split, box.end));
    }
    std::vector<Lab3> centres;
    for (; !boxes.empty(); boxes.pop()) {
        double weight = 0.0;
        std::array<double, 3> sum{};
        for (std::size_t k = boxes.top().begin; k < boxes.top().end; ++k) {
            weight += colours[k].weight;
            for (int c = 0; c < 3; ++c) sum[c] += colours[k].weight * colours[k].lab[c];
        }
        centres.push_back({static_cast<float>(sum[0] / weight), static_cast<float>(sum[1] / weight),
                           static_cast<float>(sum[2] / weight)});
    }
    return centres;
}

/// One round of Lloyd's algorithm: every colour to its nearest centre, every centre to its
/// colours' weighted mean (a centre without colours stays).
void LloydRound(const std::vector<Weighted>& colours, std::vector<Lab3>& centres) {
    NearestColour nearest(centres);
    std::vector<std::array<double, 4>> sums(centres.size(), {0.0, 0.0, 0.0, 0.0});
    for (const Weighted& colour : colours) {
        std::array<double, 4>& sum = sums[nearest.Nearest(colour.lab)];
        for (int c = 0; c < 3; ++c) sum[c] += colour.weight * colour.lab[c];
        sum[3] += colour.weight;
    }
    for (std::size_t k = 0; k < centres.size(); ++k) {
        if (sums[k][3] == 0.0) continue;
        for (int c = 0; c < 3; ++c) centres[k][c] = static_cast<float>(sums[k][c] / sums[k][3]);
    }
}

}  // namespace

std::vector<common::Rgb> BuildPalette(std::span<const common::Rgb> samples, int maxColours) {
    BFV_CHECK(!samples.empty());
    BFV_CHECK(maxColours >= 1 && maxColours <= kMaxPaletteColours);
    std::vector<Weighted> colours = Distinct(samples);
    std::vector<std::uint32_t> palette;
    if (colours.size() <= std::size_t(maxColours)) {
        for (const Weighted& c : colours) palette.push_back(c.packed);
    } else {
        std::vector<Lab3> centres = MedianCut(colours, maxColours);
        for (int round = 0; round < kPaletteRounds; ++round) LloydRound(colours, centres);
        for (const Lab3& c : centres)
            palette.push_back(Packed(common::LabToSrgb({c[0], c[1], c[2]})));
        std::sort(palette.begin(), palette.end());
        palette.erase(std::unique(palette.begin(), palette.end()), palette.end());
    }
    std::vector<common::Rgb> out(palette.size());
    std::transform(palette.begin(), palette.end(), out.begin(), Unpacked);
    return out;
}

NearestColour::NearestColour(std::span<const std::array<float, 3>> labs) {
    BFV_CHECK(!labs.empty());
    for (std::size_t k = 0; k < labs.size(); ++k) {
        byLightness_.push_back({labs[k], static_cast<int>(k)});
    }
    std::sort(byLightness_.begin(), byLightness_.end(), [](const Entry& p, const Entry& q) {
        return p.lab[0] != q.lab[0] ? p.lab[0] < q.lab[0] : p.index < q.index;
    });
}

int NearestColour::Nearest(const std::array<float, 3>& lab) const {
    auto start = std::lower_bound(byLightness_.begin(), byLightness_.end(), lab[0],
                                  [](const Entry& e, float l) { return e.lab[0] < l; });
    float best = std::numeric_limits<float>::max();
    int bestIndex = -1;
    auto consider = [&](const Entry& e) {
        float d2 = Distance2(e.lab, lab);
        if (d2 < best || (d2 == best && e.index < bestIndex)) best = d2, bestIndex = e.index;
    };
    for (auto it = start; it != byLightness_.end(); ++it) {
        float dl = it->lab[0] - lab[0];
        if (dl * dl > best) break;
        consider(*it);
    }
    for (auto it = start; it != byLightness_.begin();) {
        --it;
        float dl = lab[0] - it->lab[0];
        if (dl * dl > best) break;
        consider(*it);
    }
    return bestIndex;
}

namespace {

std::vector<Lab3> LabsOf(std::span<const common::Rgb> palette) {
    BFV_CHECK(!palette.empty() && palette.size() <= std::size_t(kMaxPaletteColours));
    std::vector<Lab3> labs(palette.size());
    std::transform(palette.begin(), palette.end(), labs.begin(), LabOf);
    return labs;
}

}  // namespace

PaletteIndex::PaletteIndex(std::span<const common::Rgb> palette) : nearest_(LabsOf(palette)) {}

std::uint8_t PaletteIndex::Of(common::Rgb colour) {
    if (indices_.empty()) indices_.assign(std::size_t{1} << 24, kUnknown);
    std::uint16_t& index = indices_[Packed(colour)];
    if (index == kUnknown) index = static_cast<std::uint16_t>(nearest_.Nearest(LabOf(colour)));
    return static_cast<std::uint8_t>(index);
}

}  // namespace bfv::terrain
