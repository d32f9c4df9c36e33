#include "raytracer/materials.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace bfv::raytracer {

namespace {

// 32 hashed bits of lattice point (i, j) of octave `octave` (a 32-bit integer hash: the
// multiply-xorshift finaliser of MurmurHash3).
std::uint32_t LatticeBits(std::int64_t i, std::int64_t j, std::uint32_t octave) {
    auto h = static_cast<std::uint32_t>(i) * 0x8da6b343u ^
             static_cast<std::uint32_t>(j) * 0xd8163841u ^ octave * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

// Value in [0, 1) of lattice point (i, j) of octave `octave`: LatticeBits' top 24 bits.
float LatticeValue(std::int64_t i, std::int64_t j, std::uint32_t octave) {
    return static_cast<float>(LatticeBits(i, j, octave) >> 8) * (1.0f / 16777216.0f);
}

// Where coordinate `m` metres falls in a lattice of cells of `cellM` metres: the cell, and the
// smoothstep weight of the next lattice point.
struct LatticePlace {
    std::int64_t cell;
    float weight;
};
LatticePlace PlaceOf(double m, double cellM) {
    double u = m / cellM;
    double iu = std::floor(u);
    double t = u - iu;
    return {static_cast<std::int64_t>(iu), static_cast<float>(t * t * (3.0 - 2.0 * t))};
}

// Value noise between lattice values l00 (south-west), l10, l01 and l11 (north-east) at
// smoothstep weights fx, fy.
float Blend(float l00, float l10, float l01, float l11, float fx, float fy) {
    float south = l00 + fx * (l10 - l00);
    float north = l01 + fx * (l11 - l01);
    return south + fy * (north - south);
}

// Value noise with cells of `cellM` metres: smoothstep between the four lattice values.
float ValueNoise(double xM, double yM, double cellM, std::uint32_t octave) {
    LatticePlace x = PlaceOf(xM, cellM), y = PlaceOf(yM, cellM);
    return Blend(LatticeValue(x.cell, y.cell, octave), LatticeValue(x.cell + 1, y.cell, octave),
                 LatticeValue(x.cell, y.cell + 1, octave),
                 LatticeValue(x.cell + 1, y.cell + 1, octave), x.weight, y.weight);
}

// Where the posts of one axis of a grid fall in the lattice of cells of `cellM` metres: the cell
// and the smoothstep weight of each post, as ValueNoise computes them.
struct LatticeAxis {
    std::vector<std::int64_t> cell;
    std::vector<float> weight;

    LatticeAxis(double originM, double spacingM, int posts, double cellM)
        : cell(static_cast<std::size_t>(posts)), weight(static_cast<std::size_t>(posts)) {
        for (int n = 0; n < posts; ++n) {
            LatticePlace place = PlaceOf(originM + n * spacingM, cellM);
            cell[n] = place.cell;
            weight[n] = place.weight;
        }
    }
    // Lattice points the axis needs: its cells and the one after the last.
    std::int64_t Points() const { return cell.back() - cell.front() + 2; }
};

// ValueNoise at every post of a posts x posts grid (row-major, post (i, j) at (originXM + i
// spacingM, originYM + j spacingM)), the same values to the bit: where the grid's posts share
// lattice points (its cells are larger than its spacing), each lattice point is hashed once.
std::vector<float> ValueNoiseAt(double originXM, double originYM, double spacingM, int posts,
                                double cellM, std::uint32_t octave) {
    std::vector<float> out(static_cast<std::size_t>(posts) * posts);
    LatticeAxis ax(originXM, spacingM, posts, cellM), ay(originYM, spacingM, posts, cellM);
    const std::int64_t width = ax.Points(), height = ay.Points();
    if (width * height > static_cast<std::int64_t>(out.size())) {
        for (int j = 0; j < posts; ++j) {
            for (int i = 0; i < posts; ++i) {
                out[j * posts + i] =
                    ValueNoise(originXM + i * spacingM, originYM + j * spacingM, cellM, octave);
            }
        }
        return out;
    }
    std::vector<float> lattice(static_cast<std::size_t>(width * height));
    for (std::int64_t b = 0; b < height; ++b) {
        for (std::int64_t a = 0; a < width; ++a) {
            lattice[b * width + a] = LatticeValue(ax.cell.front() + a, ay.cell.front() + b, octave);
        }
    }
    for (int j = 0; j < posts; ++j) {
        const float fy = ay.weight[j];
        const float* row = &lattice[(ay.cell[j] - ay.cell.front()) * width];
        for (int i = 0; i < posts; ++i) {
            const float* l = row + (ax.cell[i] - ax.cell.front());
            out[j * posts + i] = Blend(l[0], l[1], l[width], l[width + 1], ax.weight[i], fy);
        }
    }
    return out;
}

// LandCover's two octaves: cells, lattice seeds and weights.
constexpr double kCoverCellM = 400.0, kCoverFineCellM = 150.0;
constexpr std::uint32_t kCoverOctave = 1, kCoverFineOctave = 2;
constexpr float kCoverWeight = 0.65f, kCoverFineWeight = 0.35f;

constexpr double kDetailCellM = 40.0;
constexpr std::uint32_t kDetailOctave = 3;
constexpr float kDetailSwing = 1.2f;  // materials from the lowest to the highest detail

}  // namespace

float LandCover(double xM, double yM) {
    return kCoverWeight * ValueNoise(xM, yM, kCoverCellM, kCoverOctave) +
           kCoverFineWeight * ValueNoise(xM, yM, kCoverFineCellM, kCoverFineOctave);
}

std::vector<float> LandCoverAt(double originXM, double originYM, double spacingM, int posts) {
    std::vector<float> cover =
        ValueNoiseAt(originXM, originYM, spacingM, posts, kCoverCellM, kCoverOctave);
    std::vector<float> fine =
        ValueNoiseAt(originXM, originYM, spacingM, posts, kCoverFineCellM, kCoverFineOctave);
    for (std::size_t k = 0; k < cover.size(); ++k) {
        cover[k] = kCoverWeight * cover[k] + kCoverFineWeight * fine[k];
    }
    return cover;
}

float LandCoverDetail(double xM, double yM) {
    return kDetailSwing * (ValueNoise(xM, yM, kDetailCellM, kDetailOctave) - 0.5f);
}

std::vector<float> LandCoverDetailAt(double originXM, double originYM, double spacingM, int posts) {
    std::vector<float> detail =
        ValueNoiseAt(originXM, originYM, spacingM, posts, kDetailCellM, kDetailOctave);
    for (float& d : detail) d = kDetailSwing * (d - 0.5f);
    return detail;
}

float LandMaterialCoordinate(float normalisedHeight, float slope, float reliefPosition,
                             float cover) {
    float cleared = std::clamp(1.0f - slope / 0.15f, 0.0f, 1.0f);
    float high = std::clamp((normalisedHeight - 0.8f) / 0.2f, 0.0f, 1.0f);
    // Patches with edges: the cover's middle third spans the whole swing.
    float patch = std::clamp((cover - 0.33f) * 3.0f, 0.0f, 1.0f);
    float vegetation = std::clamp(
        3.0f - 2.6f * cleared + 4.0f * reliefPosition + 3.6f * (patch - 0.5f) + 1.5f * high, 0.0f,
        5.0f);
    float rock = std::clamp((slope - 0.5f) / 0.5f, 0.0f, 1.0f);
    return vegetation + rock * (7.5f - vegetation);
}

double DefaultSnowLineM(double latitudeDeg) {
    double beyondTropicsDeg = std::max(std::abs(latitudeDeg) - 20.0, 0.0);
    return std::max(5200.0 - 100.0 * beyondTropicsDeg, 0.0);
}

namespace {

// 0 at or below `from`, 1 at or above `to`, smooth (smoothstep) between.
float SmoothStep(double from, double to, double x) {
    double t = std::clamp((x - from) / (to - from), 0.0, 1.0);
    return static_cast<float>(t * t * (3.0 - 2.0 * t));
}

}  // namespace

HeightZone HeightZoneOf(float heightM, float slope, double snowLineM) {
    if (snowLineM == kNoSnowLineM) return {};
    double treeLineM = snowLineM - kTreeLineBelowSnowLineM;
    float holds = 1.0f - SmoothStep(0.7, 1.2, slope);
    return {SmoothStep(treeLineM, treeLineM + 300.0, heightM),
            holds * SmoothStep(snowLineM, snowLineM + 150.0, heightM)};
}

common::Rgb LandColour(float coordinate, const HeightZone& zone) {
    constexpr float kBareRock = 6.0f;
    float place = coordinate + zone.alpine * std::max(kBareRock - coordinate, 0.0f);
    common::Rgb land = common::RampColour(common::DefaultLandColours(), place);
    return zone.snow > 0.0f ? common::MixColour(land, kSnowColour, zone.snow) : land;
}

namespace {

constexpr std::uint32_t kParcelSeed = 11, kCrownSeed = 12;
constexpr double kParcelGridM = 128.0;
constexpr double kHedgeHalfWidthM = 1.5;
constexpr double kCrownGridM = 6.0;
// A crown's centre lies at least this far inside its grid cell (15% of it), and its radius is
// at most kCrownMaxRadiusM (CrownLight), with a margin of a millimetre for rounding.
constexpr double kCrownInsetM = 0.15 * kCrownGridM - 1e-3;
constexpr double kCrownMaxRadiusM = 3.5 + 1e-3;

// Colour `c` times `f` per channel (rounded, clamped to 255).
common::Rgb Scaled(common::Rgb c, float fr, float fg, float fb) {
    auto s = [](std::uint8_t v, float f) { return common::ToChannel(v * f); };
    return {s(c.r, fr), s(c.g, fg), s(c.b, fb)};
}

// The field parcel's colour at (xM, yM) on land of colour `land`: each 128 m grid cell is cut
// into 1-3 strips along x or y, each tinted as a crop; hedges and tracks darken its edges, by
// the share of a post's cell (posts `spacingM` apart) they cover where the posts are coarser.
common::Rgb ParcelColour(double xM, double yM, double spacingM, common::Rgb land) {
    double u = xM / kParcelGridM, v = yM / kParcelGridM;
    auto ci = static_cast<std::int64_t>(std::floor(u)),
         cj = static_cast<std::int64_t>(std::floor(v));
    double fu = u - ci, fv = v - cj;
    float split = LatticeValue(ci, cj, kParcelSeed);
    bool alongX = split < 0.5f;
    int strips = 1 + static_cast<int>(LatticeValue(ci, cj, kParcelSeed + 1) * 3.0f);
    double across = alongX ? fv : fu;
    int strip = std::min(static_cast<int>(across * strips), strips - 1);
    double edgeM = kParcelGridM *
                   std::min({fu, 1.0 - fu, fv, 1.0 - fv, std::abs(across * strips - strip) / strips,
                             std::abs(across * strips - strip - 1) / strips});
    // Crops in their colours: ripe grain, green crop, pasture, ploughed soil, stubble; tints of
    // hue that keep the luma (their Rec. 709 luma is 1), so that parcels do not hide the relief.
    static constexpr float kTints[5][3] = {{1.112f, 0.996f, 0.712f},
                                           {0.841f, 1.068f, 0.791f},
                                           {0.964f, 1.014f, 0.964f},
                                           {1.236f, 0.945f, 0.848f},
                                           {1.103f, 0.981f, 0.888f}};
    const float* tint =
        kTints[static_cast<int>(LatticeValue(ci * 4 + strip, cj, kParcelSeed + 2) * 5.0f) % 5];
    common::Rgb parcel = Scaled(land, tint[0], tint[1], tint[2]);
    double bandM = std::max(kHedgeHalfWidthM, 0.5 * spacingM);
    float hedge =
        static_cast<float>((1.0 - std::clamp(edgeM / bandM, 0.0, 1.0)) * kHedgeHalfWidthM / bandM);
    return common::MixColour(parcel, common::Rgb{58, 80, 44}, hedge);
}

}  // namespace

GroundDetail::GroundDetail(double minXM, double minYM, double maxXM, double maxYM, double spacingM,
                           double sunTowardX, double sunTowardY, double sunTanElevation)
    : spacingM_(spacingM),
      sunX_(sunTowardX),
      sunY_(sunTowardY),
      sinE_(sunTanElevation / std::sqrt(1.0 + sunTanElevation * sunTanElevation)),
      cosE_(std::sqrt(1.0 - sinE_ * sinE_)),
      // A crown about 8 m tall shades the ground up to 8 / tan(e) metres away from the sun (at
      // most 25 m).
      shadowReachM_(std::min(8.0 / sunTanElevation, 25.0)) {
    if (spacingM > kCrownSpacingM) return;
    // The cells NearestCrown reads: those of the points and of their shadows' probes (CrownLight),
    // and one more on each side.
    double loX = minXM, hiX = maxXM, loY = minYM, hiY = maxYM;
    for (double t : {0.45, 0.9}) {
        loX = std::min(loX, minXM + sunX_ * shadowReachM_ * t);
        hiX = std::max(hiX, maxXM + sunX_ * shadowReachM_ * t);
        loY = std::min(loY, minYM + sunY_ * shadowReachM_ * t);
        hiY = std::max(hiY, maxYM + sunY_ * shadowReachM_ * t);
    }
    aLo_ = static_cast<std::int64_t>(std::floor(loX / kCrownGridM)) - 1;
    bLo_ = static_cast<std::int64_t>(std::floor(loY / kCrownGridM)) - 1;
    columns_ =
        static_cast<int>(static_cast<std::int64_t>(std::floor(hiX / kCrownGridM)) + 2 - aLo_);
    rows_ = static_cast<int>(static_cast<std::int64_t>(std::floor(hiY / kCrownGridM)) + 2 - bLo_);
    crowns_.reserve(static_cast<std::size_t>(columns_) * rows_);
    for (int j = 0; j < rows_; ++j) {
        for (int i = 0; i < columns_; ++i) crowns_.push_back(HashedCrown(aLo_ + i, bLo_ + j));
    }
}

GroundDetail::Crown GroundDetail::CrownOf(std::int64_t a, std::int64_t b) const {
    const std::int64_t i = a - aLo_, j = b - bLo_;
    if (i >= 0 && i < columns_ && j >= 0 && j < rows_) {
        return crowns_[static_cast<std::size_t>(j * columns_ + i)];
    }
    return HashedCrown(a, b);
}

GroundDetail::Crown GroundDetail::HashedCrown(std::int64_t a, std::int64_t b) {
    // One hash a cell, a byte each: whether it has a tree, its place, its radius.
    const std::uint32_t bits = LatticeBits(a, b, kCrownSeed);
    auto byte = [bits](int k) { return static_cast<double>(bits >> (8 * k) & 0xFFu) / 256.0; };
    return {byte(0), (a + 0.15 + 0.7 * byte(1)) * kCrownGridM,
            (b + 0.15 + 0.7 * byte(2)) * kCrownGridM, 2.0 + 1.5 * byte(3)};
}

double GroundDetail::NearestCrown(double x, double y, double reachM, float density, double& dxOut,
                                  double& dyOut, double& radiusOut) const {
    // The nearest crown relative to its radius, among those closer than `reachM` (their
    // relative distance below 1, or below 0.81 for a shadow): trees on a jittered grid, one in a
    // cell with probability `density`; the squared distance over the squared radius (hypot is a
    // slow library call, and only the nearest crown's distance is wanted). A cell's crown stands
    // in its middle 70% (kCrownInsetM from its sides), so cells whose middle lies farther than
    // reachM in x or y hold none that close and are not read: at most 2 x 2 cells of the 3 x 3.
    auto ci = static_cast<std::int64_t>(std::floor(x / kCrownGridM));
    auto cj = static_cast<std::int64_t>(std::floor(y / kCrownGridM));
    // Cells a with a * grid + inset < x + reach and (a + 1) * grid - inset > x - reach.
    auto near = [reachM](double p, std::int64_t c, std::int64_t& lo, std::int64_t& hi) {
        const double f = p - static_cast<double>(c) * kCrownGridM;  // 0 .. grid
        lo = f < reachM - kCrownInsetM ? c - 1 : c;
        hi = f > kCrownGridM + kCrownInsetM - reachM ? c + 1 : c;
    };
    std::int64_t aLo, aHi, bLo, bHi;
    near(x, ci, aLo, aHi);
    near(y, cj, bLo, bHi);
    double best = 1e9;
    for (std::int64_t b = bLo; b <= bHi; ++b) {
        for (std::int64_t a = aLo; a <= aHi; ++a) {
            const Crown crown = CrownOf(a, b);
            if (crown.presence >= density) continue;
            double dx = x - crown.cxM, dy = y - crown.cyM,
                   d2 = (dx * dx + dy * dy) / (crown.radiusM * crown.radiusM);
            if (d2 < best) best = d2, dxOut = dx, dyOut = dy, radiusOut = crown.radiusM;
        }
    }
    return best;
}

float GroundDetail::CrownLight(double xM, double yM, float density) const {
    double dx = 0.0, dy = 0.0, r = 1.0;
    double d2 = NearestCrown(xM, yM, kCrownMaxRadiusM, density, dx, dy, r);
    if (d2 < 1.0) {
        double d = std::sqrt(d2);
        // A dome: its normal leans out by d; lit by the sun from its elevation.
        double nz = std::sqrt(1.0 - d * d);
        double lambert = (dx * sunX_ + dy * sunY_) / r * cosE_ + nz * sinE_;
        return static_cast<float>(0.9 + 0.45 * std::max(lambert, 0.0));
    }
    // In a crown's shadow.
    for (double t : {0.45, 0.9}) {
        double sx = 0.0, sy = 0.0, sr = 1.0;
        if (NearestCrown(xM + sunX_ * shadowReachM_ * t, yM + sunY_ * shadowReachM_ * t,
                         0.9 * kCrownMaxRadiusM, density, sx, sy, sr) < 0.81) {
            return 0.62f;
        }
    }
    return 0.8f;
}

common::Rgb GroundDetail::Colour(double xM, double yM, float coordinate, common::Rgb land) const {
    if (spacingM_ <= kParcelSpacingM) {
        float field = 1.0f - SmoothStep(0.8, 1.6, coordinate);
        if (field > 0.0f)
            land = common::MixColour(land, ParcelColour(xM, yM, spacingM_, land), field);
    }
    if (spacingM_ <= kCrownSpacingM) {
        float forest = SmoothStep(1.3, 2.0, coordinate) * (1.0f - SmoothStep(5.0, 5.8, coordinate));
        if (forest > 0.0f) {
            // Open forest (2) has trees in 45% of the cells, dense forest (4) in 90%.
            float density = std::clamp(0.45f + 0.225f * (coordinate - 2.0f), 0.3f, 0.9f);
            float light = CrownLight(xM, yM, density);
            float f = 1.0f + forest * (light - 1.0f);
            land = Scaled(land, f, f, f);
        }
    }
    return land;
}

}  // namespace bfv::raytracer
