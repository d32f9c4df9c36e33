#include "raytracer/ray_caster.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

// The caster is compiled once per instruction set Highway targets (SSE4, AVX2, AVX-512, ...)
// and the best one the CPU has is picked at run time: foreach_target re-includes this file.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "raytracer/ray_caster.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// Per instruction set, after highway.h (its include guard toggles per target).
#include <hwy/contrib/math/math-inl.h>

HWY_BEFORE_NAMESPACE();
namespace bfv::raytracer {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMinStepM = 1e-4;  // = 0.1 mm // nudge past a tile's edge to find the next tile

// A plane's rays: eye position and the horizontal direction they all share.
struct PlaneRay {
    double ex, ey, ez;  // eye, metres
    double dx, dy;      // unit horizontal direction
};

// State of the march through one column: rows still to resolve, the last hit, and the levels
// the current stretch of the track wants and reads.
struct MarchState {
    int row;        // next row to resolve (bottom-up), -1 when done
    double sPrev;   // hit distance of the row below, metres
    int wantLevel;  // level the footprint asks for here
    // The plane's hits and coarser hits, added to the scratch's counts when it is done: kept
    // here, they stay in registers instead of a cache line other threads' scratch may share.
    long long hits = 0;
    long long coarserHits = 0;
};

// The bilinear surface over one cell along the ray: H(t) = h0 + h1 t + h2 t^2, t = s - sA.
// Also the cell's corner posts and where the ray enters it in cell coordinates, to interpolate
// shade and material at a hit.
struct CellSurface {
    double h0, h1, h2, maxM;
    int c00;                  // post index of the south-west corner in the tile
    double fx, fy, gdx, gdy;  // entry point in the cell, and its change per metre
};

// The surface along the track over the cell whose south-west post is h[0] (posts of a tile,
// kTilePosts a row), entered at (fx, fy) in cell coordinates; maxM is the highest of its posts.
CellSurface SurfaceAlong(const float* h, int c00, double maxM, double fx, double fy, double gdx,
                         double gdy) {
    double h00 = h[0], h10 = h[1];
    double h01 = h[terrain::kTilePosts], h11 = h[terrain::kTilePosts + 1];
    double dX = h10 - h00, dY = h01 - h00, dXY = h00 - h10 - h01 + h11;
    return {h00 + dX * fx + dY * fy + dXY * fx * fy,
            dX * gdx + dY * gdy + dXY * (fx * gdy + gdx * fy),
            dXY * gdx * gdy,
            maxM,
            c00,
            fx,
            fy,
            gdx,
            gdy};
}

using DoubleTag = hn::ScalableTag<double>;
using VD = hn::Vec<DoubleTag>;
using MD = hn::Mask<DoubleTag>;

// The shades of a cell's corner posts (south-west, south-east, north-west, north-east), in shade
// codes, each in every lane: their shade bytes (ResidentTile::colours, whose south-west post's
// packed word is colours[0]), as the secant's second pass reads them (ShadeHits).
std::array<VD, 4> CornerShades(const std::uint32_t* colours) {
    const DoubleTag d;
    auto shade = [&](int k) { return hn::Set(d, (colours[k] >> 24) * kShadeCodesPerShadeByte); };
    return {shade(0), shade(1), shade(terrain::kTilePosts), shade(terrain::kTilePosts + 1)};
}

// The red, green and blue of a cell's corner posts (as CornerShades), whose south-west post's
// packed colour (ResidentTile::colours) is colours[0].
std::array<std::array<VD, 4>, 3> CornerColours(const std::uint32_t* colours) {
    const DoubleTag d;
    const std::uint32_t corner[4] = {colours[0], colours[1], colours[terrain::kTilePosts],
                                     colours[terrain::kTilePosts + 1]};
    std::array<std::array<VD, 4>, 3> out;
    for (int channel = 0; channel < 3; ++channel) {
        for (int n = 0; n < 4; ++n) {
            out[channel][n] = hn::Set(d, static_cast<double>(corner[n] >> (8 * channel) & 0xFFu));
        }
    }
    return out;
}

// Bilinear interpolation of corner values `p` (as CornerShades) at (fx, fy) in the cell.
VD BilinearOfCorners(const std::array<VD, 4>& p, VD fx, VD fy) {
    VD south = hn::MulAdd(p[1] - p[0], fx, p[0]);
    VD north = hn::MulAdd(p[3] - p[2], fx, p[2]);
    return hn::MulAdd(north - south, fy, south);
}

// A cell segment [sA, sB] as HitRowsInCell uses it for every vector of rows: the surface's
// coefficients, the segment's ends, the eye's height and the corner posts' codes, in every lane.
struct CellVectors {
    VD sA, sB, tHi;       // the segment's ends and its length tHi = sB - sA, metres
    VD ez;                // eye height, metres
    VD h0, h1, c2;        // CellSurface's H(t) = h0 + h1 t + c2 t^2
    VD maxM;              // the cell's highest post, metres
    VD vertexLimit;       // -2 c2 tHi: c1 below it puts a concave f's vertex inside the cell
    VD gdx, gdy, fx, fy;  // CellSurface's entry point in the cell and its change per metre
    bool concave, linear;
    std::array<VD, 4> shade;                  // the corner posts' shades (CornerShades)
    std::array<std::array<VD, 4>, 3> colour;  // and their colours (CornerColours)
};

// The CellVectors of `cell`, a cell of `tile`, between distances sA and sB along `ray`.
CellVectors VectorsOf(const ResidentTile& tile, const CellSurface& cell, const PlaneRay& ray,
                      double sA, double sB) {
    const DoubleTag d;
    const double tHi = sB - sA;
    return {hn::Set(d, sA),
            hn::Set(d, sB),
            hn::Set(d, tHi),
            hn::Set(d, ray.ez),
            hn::Set(d, cell.h0),
            hn::Set(d, cell.h1),
            hn::Set(d, cell.h2),
            hn::Set(d, cell.maxM),
            hn::Set(d, -2.0 * cell.h2 * tHi),
            hn::Set(d, cell.gdx),
            hn::Set(d, cell.gdy),
            hn::Set(d, cell.fx),
            hn::Set(d, cell.fy),
            cell.h2 < 0.0,
            std::abs(cell.h2) < 1e-12,
            CornerShades(&tile.colours[cell.c00]),
            CornerColours(&tile.colours[cell.c00])};
}

// A vector of rows of slopes k against a cell (HitRowsInCell): f(t) = c2 t^2 + c1 t + c0, its
// discriminant, whether each ray enters below the surface, and whether it meets it in the cell.
struct RowsAgainstCell {
    VD c0, c1, disc;
    MD enters, meets;
};

RowsAgainstCell RowsAgainst(const CellVectors& c, VD k) {
    const DoubleTag d;
    const VD zero = hn::Zero(d);
    VD rayA = hn::MulAdd(k, c.sA, c.ez), rayB = hn::MulAdd(k, c.sB, c.ez);
    VD c0 = c.h0 - rayA, c1 = c.h1 - k;
    VD disc = c1 * c1 - hn::Set(d, 4.0) * c.c2 * c0;
    MD enters = hn::Ge(c0, zero);
    MD endsAbove = hn::Ge(hn::MulAdd(hn::MulAdd(c.c2, c.tHi, c1), c.tHi, c0), zero);
    MD vertexAbove = c.concave ? hn::And(hn::And(hn::Gt(c1, zero), hn::Lt(c1, c.vertexLimit)),
                                         hn::Ge(disc, zero))
                               : hn::FirstN(d, 0);
    MD meets = hn::AndNot(hn::Gt(hn::Min(rayA, rayB), c.maxM),
                          hn::Or(enters, hn::Or(endsAbove, vertexAbove)));
    return {c0, c1, disc, enters, meets};
}

// The highest lane set in `mask`, or -1 when none is.
int HighestLane(MD mask) {
    // One byte holds the mask (at most 8 lanes of doubles); reading only that byte lets the
    // load take the stored byte at once.
    static_assert(HWY_LANES(double) <= 8);
    std::uint8_t maskBytes[8];
    hn::StoreMaskBits(DoubleTag(), mask, maskBytes);
    return static_cast<int>(std::bit_width(unsigned{maskBytes[0]})) - 1;
}

// Where each row of `rows` first meets the surface, as t from the cell's entry: the root of
// HitRowsInCell's comment, clamped to [max(tLo, 0), tHi] (tLo: the row below's hit).
VD HitT(const CellVectors& c, const RowsAgainstCell& rows, double tLo) {
    const DoubleTag d;
    const VD zero = hn::Zero(d);
    VD q = hn::Set(d, -0.5) * (rows.c1 + hn::CopySign(hn::Sqrt(hn::Max(rows.disc, zero)), rows.c1));
    MD upper = hn::And(hn::Gt(c.c2, zero), hn::Gt(q, zero));
    VD root = c.linear ? hn::Neg(rows.c0) / rows.c1
                       : hn::IfThenElse(upper, q, rows.c0) / hn::IfThenElse(upper, c.c2, q);
    // Where the ray enters below the surface, or takes the row below's hit, 0: the clamp
    // raises it to that hit.
    VD t = hn::IfThenElseZero(hn::AndNot(rows.enters, rows.meets), root);
    return hn::Min(hn::Max(t, hn::Set(d, std::max(tLo, 0.0))), c.tHi);
}

// Lanes lastMissed + 1 .. top of a vector of tag `dx`.
template <class D>
hn::Mask<D> LanesAfter(D dx, int lastMissed, int top) {
    using T = hn::TFromD<D>;
    auto index = hn::Iota(dx, T{0});
    return hn::And(hn::Gt(index, hn::Set(dx, static_cast<T>(lastMissed))),
                   hn::Lt(index, hn::Set(dx, static_cast<T>(top + 1))));
}

// Stores the hits of lanes lastMissed + 1 .. top (rows base + lane), t along the cell from its
// entry, into `scratch`: distance, `level`, and the shade code and colour interpolated at the
// hit. Returns the farthest of those hits' distances, metres.
double StoreHits(const CellVectors& c, int level, VD t, int base, int lastMissed, int top,
                 ColumnScratch& scratch) {
    const DoubleTag d;
    const hn::Rebind<float, DoubleTag> df;
    const hn::Rebind<std::int32_t, DoubleTag> di;
    const VD zero = hn::Zero(d), one = hn::Set(d, 1.0);
    MD hit = LanesAfter(d, lastMissed, top);
    VD s = c.sA + t;
    VD fx = hn::Clamp(hn::MulAdd(c.gdx, t, c.fx), zero, one);
    VD fy = hn::Clamp(hn::MulAdd(c.gdy, t, c.fy), zero, one);
    hn::BlendedStore(s, hit, d, scratch.hitS.data() + base);
    hn::BlendedStore(hn::Set(di, level), LanesAfter(di, lastMissed, top), di,
                     scratch.hitLevel.data() + base);
    hn::BlendedStore(hn::DemoteTo(df, BilinearOfCorners(c.shade, fx, fy)),
                     LanesAfter(df, lastMissed, top), df, scratch.hitShade.data() + base);
    for (int channel = 0; channel < 3; ++channel) {
        hn::BlendedStore(hn::DemoteTo(df, BilinearOfCorners(c.colour[channel], fx, fy)),
                         LanesAfter(df, lastMissed, top), df,
                         scratch.hitColour[channel].data() + base);
    }
    return hn::GetLane(hn::MaxOfLanes(d, hn::IfThenElseZero(hit, s)));
}

// Resolves as many rows as hit inside the cell segment [sA, sB], a vector of consecutive rows
// at a time (lane i holds row base + i; the bottom row state.row is the highest lane). Along
// the track the ray of a row with slope k is ez + k s, so f(t) = H(t) - ray(t) =
// c2 t^2 + c1 t + c0 with c0 = h0 - (ez + k sA), c1 = h1 - k, c2 = h2, and the row hits where
// f first reaches 0 in [0, tHi]:
// - at once (t = 0) if the ray enters the cell below the surface (c0 >= 0);
// - else if f(tHi) >= 0, or f is concave with its vertex inside the cell and above 0;
// - never if the ray stays above the cell's highest post.
// The root is the upward crossing: the larger root of a convex f, the smaller of a concave one.
// With q = -(c1 + sign(c1) sqrt(disc)) / 2 the roots are q / c2 and c0 / q (the stable pair of
// Numerical Recipes 5.6). As c0 < 0, a convex f has one positive root, q / c2 when q > 0 and
// c0 / q otherwise; a concave f reaches 0 only with c1 > 0 (so q < 0), and c0 / q is then the
// smaller root.
// Each row's root is found from the cell's entry, not from the hit of the row below: a row's ray
// lies above the ray of the row below, so it cannot meet the surface earlier, and the rows of a
// vector are independent. For the same reason the rows that hit form a run upward from the
// bottom row: the first row that misses ends the cell, and the rows above it resume in the next
// cell. Hits are clamped to the hit of the row below the vector so that they stay monotonic. A
// row with the same slope as the row below (slopes clamped near the vertical) is the same ray:
// it takes that row's hit, since its own search would start exactly on the surface, where
// rounding can miss the root. Each hit records its distance and level, and the post shade and
// material coordinate interpolated at the hit; hits and coarserHits count the resolution deficit.
inline void HitRowsInCell(const ResidentTile& tile, const CellSurface& cell, const PlaneRay& ray,
                          double sA, double sB, ColumnScratch& scratch, MarchState& state) {
    const DoubleTag d;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const CellVectors c = VectorsOf(tile, cell, ray, sA, sB);
    const VD laneIndex = hn::Iota(d, 0.0);
    const int level = tile.key.level;
    while (state.row >= 0) {
        int base = std::max(state.row - lanes + 1, 0);
        int top = state.row - base;  // the lane of the bottom row
        double tLo = state.sPrev - sA;
        VD k = hn::LoadU(d, scratch.slopes.data() + base);
        VD kBelow = hn::LoadU(d, scratch.slopes.data() + base + 1);
        auto valid = hn::Le(laneIndex, hn::Set(d, top));
        // Rows whose row below hit in this cell, if the rows between hit too.
        auto belowHits = tLo >= 0.0 ? valid : hn::Lt(laneIndex, hn::Set(d, top));
        auto sameRay = hn::And(hn::Eq(k, kBelow), belowHits);
        const RowsAgainstCell rows = RowsAgainst(c, k);
        int lastMissed = HighestLane(hn::AndNot(hn::Or(rows.meets, sameRay), valid));
        int resolved = top - lastMissed;
        if (resolved == 0) return;
        VD t = HitT(c, rows, tLo);
        state.sPrev = StoreHits(c, level, t, base, lastMissed, top, scratch);
        state.hits += resolved;
        state.coarserHits += level < state.wantLevel ? resolved : 0;
        state.row -= resolved;
        if (lastMissed >= 0) return;  // the rows above the one that missed resume further on
    }
}

// The cells of a tile that a ground track crosses, in order from distance sBegin on
// (Amanatides-Woo DDA in the tile's post coordinates). A track parallel to a grid axis never
// crosses that axis's lines (and 0 * inf would be NaN), so it never steps along it.
class CellWalk {
  public:
    CellWalk(const ResidentTile& tile, const PlaneRay& ray, double sBegin)
        : gdx_(ray.dx * tile.postsPerM),
          gdy_(ray.dy * tile.postsPerM),
          gx_((ray.ex + sBegin * ray.dx - tile.originXM) * tile.postsPerM),
          gy_((ray.ey + sBegin * ray.dy - tile.originYM) * tile.postsPerM),
          sBegin_(sBegin),
          i_(std::clamp(static_cast<int>(std::floor(gx_)), 0, kLastCell)),
          j_(std::clamp(static_cast<int>(std::floor(gy_)), 0, kLastCell)),
          stepI_(gdx_ > 0 ? 1 : -1),
          stepJ_(gdy_ > 0 ? 1 : -1),
          deltaX_(gdx_ != 0.0 ? std::abs(1.0 / gdx_) : kInf),
          deltaY_(gdy_ != 0.0 ? std::abs(1.0 / gdy_) : kInf),
          nextX_(gdx_ != 0.0 ? sBegin + (gdx_ > 0 ? (i_ + 1 - gx_) : (gx_ - i_)) * deltaX_ : kInf),
          nextY_(gdy_ != 0.0 ? sBegin + (gdy_ > 0 ? (j_ + 1 - gy_) : (gy_ - j_)) * deltaY_ : kInf) {
    }

    /// Index of the current cell's south-west post in the tile.
    int Corner() const { return j_ * terrain::kTilePosts + i_; }
    /// Where the track leaves the current cell, at most sEnd.
    double ExitS(double sEnd) const { return std::min(std::min(nextX_, nextY_), sEnd); }
    /// Whether the track leaves the current cell across an x-line (constant i), else a y-line.
    bool CrossesX() const { return nextX_ < nextY_; }
    /// Offsets from the current cell's south-west post to the first post of the edge it leaves
    /// by across an x-line (the east or west edge) and across a y-line (north or south).
    int ExitEdgeX() const { return stepI_ > 0 ? 1 : 0; }
    int ExitEdgeY() const { return stepJ_ > 0 ? terrain::kTilePosts : 0; }
    /// Where the track is at distance s, in the current cell's coordinates (0..1 inside it).
    double Fx(double s) const { return gx_ + (s - sBegin_) * gdx_ - i_; }
    double Fy(double s) const { return gy_ + (s - sBegin_) * gdy_ - j_; }
    /// The current cell's column i and row j of posts in the tile, as j * 256 + i.
    int Cell() const { return j_ << 8 | i_; }
    /// Where the track starts (distance SBegin) in the tile's post coordinates.
    double Gx() const { return gx_; }
    double Gy() const { return gy_; }
    double SBegin() const { return sBegin_; }
    /// Change of Fx and Fy per metre along the track.
    double Gdx() const { return gdx_; }
    double Gdy() const { return gdy_; }
    /// Steps to the next cell along the track. A walk covers a stretch inside its tile's square
    /// (TraceColumnOn ends each stretch where the track leaves the tile, TileExitS), which lies
    /// kTileBorder posts inside the tile's posts: a step past the stretch's end reaches at most a
    /// border cell, so the cells stay in the tile without a clamp per step.
    void Next() {
        bool crossesX = nextX_ < nextY_;
        i_ = crossesX ? i_ + stepI_ : i_;
        j_ = crossesX ? j_ : j_ + stepJ_;
        nextX_ = crossesX ? nextX_ + deltaX_ : nextX_;
        nextY_ = crossesX ? nextY_ : nextY_ + deltaY_;
    }

  private:
    static constexpr int kLastCell = terrain::kTilePosts - 2;
    double gdx_, gdy_, gx_, gy_, sBegin_;
    int i_, j_, stepI_, stepJ_;
    double deltaX_, deltaY_, nextX_, nextY_;
};

// Walks the cells of `tile` that the ground track crosses between sBegin and sEnd and resolves
// the rows that hit there exactly (HitRowsInCell). Most cells are passed after four loads and
// one compare: when the current row's ray stays above the cell's highest post, no row (each
// rises above the one below) hits there. Only a cell the ray may reach, or one holding the hit
// of the row below, gets its surface and the rows' roots.
inline void MarchTileExact(const ResidentTile& tile, const PlaneRay& ray, double sBegin,
                           double sEnd, ColumnScratch& scratch, MarchState& state) {
    CellWalk walk(tile, ray, sBegin);
    const float* heights = tile.heightsM.data();
    double sA = sBegin;
    while (state.row >= 0 && sA < sEnd) {
        double sB = walk.ExitS(sEnd);
        int c00 = walk.Corner();
        const float* h = heights + c00;
        double maxM = std::max(std::max(h[0], h[1]),
                               std::max(h[terrain::kTilePosts], h[terrain::kTilePosts + 1]));
        double k = scratch.slopes[state.row];
        if (state.sPrev >= sA || std::min(ray.ez + k * sA, ray.ez + k * sB) <= maxM) {
            HitRowsInCell(
                tile, SurfaceAlong(h, c00, maxM, walk.Fx(sA), walk.Fy(sA), walk.Gdx(), walk.Gdy()),
                ray, sA, sB, scratch, state);
        }
        sA = sB;
        walk.Next();
    }
}

// Bilinear height in the cell whose south-west post is h[0], at (fx, fy), in double: the march
// compares it with rays to well under a millimetre. The secant march asks only for points on
// the track inside the cell, so (fx, fy) lie in [0, 1] up to rounding, and are not clamped.
double HeightInCell(const float* h, double fx, double fy) {
    double south = h[0] + (static_cast<double>(h[1]) - h[0]) * fx;
    double north = h[terrain::kTilePosts] +
                   (static_cast<double>(h[terrain::kTilePosts + 1]) - h[terrain::kTilePosts]) * fx;
    return south + (north - south) * fy;
}

// The second pass of the secant march (MarchTileSecant) for rows firstRow..lastRow, which hit
// the tile that `walk` crosses: each row's hit distance is in scratch.hitS and the cell it hit
// in (CellWalk::Cell) in scratch.hitLevel, which then takes the tile's level. Interpolates the
// posts' shades and colours at the hits, a vector of rows at a time (the corner posts by four
// gathers of their packed words, ResidentTile::colours: colour and shade byte), as HitRowsInCell
// does; the clamp to the row below's hit may put a hit past its cell, so its place in the cell is
// clamped into it.
void ShadeHits(const ResidentTile& tile, const CellWalk& walk, int firstRow, int lastRow,
               ColumnScratch& scratch) {
    const hn::ScalableTag<double> d;
    const hn::Rebind<float, decltype(d)> df;
    const hn::Rebind<std::int32_t, decltype(d)> di;
    const hn::Rebind<std::uint32_t, decltype(d)> du;
    const int lanes = static_cast<int>(hn::Lanes(d));
    const auto zero = hn::Zero(d), one = hn::Set(d, 1.0);
    const auto gx = hn::Set(d, walk.Gx()), gy = hn::Set(d, walk.Gy());
    const auto gdx = hn::Set(d, walk.Gdx()), gdy = hn::Set(d, walk.Gdy());
    const auto sBegin = hn::Set(d, walk.SBegin());
    const std::uint32_t* colours = tile.colours.data();
    const auto colourRowBytes = hn::Set(di, 4 * terrain::kTilePosts);
    const auto four = hn::Set(di, 4);
    const auto byteMask = hn::Set(du, 0xFFu);
    const auto codesPerShadeByte = hn::Set(df, kShadeCodesPerShadeByte);
    const int level = tile.key.level;
    // Vectors run up from the first row (the hits have a vector of padding past the last row).
    for (int base = firstRow; base <= lastRow; base += lanes) {
        auto valid = hn::FirstN(di, static_cast<std::size_t>(lastRow + 1 - base));
        auto cell = hn::IfThenElseZero(valid, hn::LoadU(di, scratch.hitLevel.data() + base));
        auto i = hn::And(cell, hn::Set(di, 0xFF)), j = hn::ShiftRight<8>(cell);
        auto along = hn::LoadU(d, scratch.hitS.data() + base) - sBegin;
        auto fx = hn::Clamp(hn::MulAdd(along, gdx, gx) - hn::PromoteTo(d, i), zero, one);
        auto fy = hn::Clamp(hn::MulAdd(along, gdy, gy) - hn::PromoteTo(d, j), zero, one);
        auto fxf = hn::DemoteTo(df, fx), fyf = hn::DemoteTo(df, fy);
        auto colourOffset = hn::Add(hn::Mul(j, colourRowBytes), hn::ShiftLeft<2>(i));
        auto validF = hn::RebindMask(df, valid);
        hn::BlendedStore(hn::Set(di, level), valid, di, scratch.hitLevel.data() + base);
        // The four corners' packed words: red, green, blue and the shade, a byte each.
        const std::array<hn::Vec<decltype(du)>, 4> corner{
            hn::GatherOffset(du, colours, colourOffset),
            hn::GatherOffset(du, colours, colourOffset + four),
            hn::GatherOffset(du, colours, colourOffset + colourRowBytes),
            hn::GatherOffset(du, colours, colourOffset + colourRowBytes + four)};
        auto bilinear = [&](auto value) {
            auto south = hn::MulAdd(value(1) - value(0), fxf, value(0));
            auto north = hn::MulAdd(value(3) - value(2), fxf, value(2));
            return hn::MulAdd(north - south, fyf, south);
        };
        auto shadeByte = [&](int n) {
            return hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<24>(corner[n])));
        };
        hn::BlendedStore(bilinear(shadeByte) * codesPerShadeByte, validF, df,
                         scratch.hitShade.data() + base);
        for (int channel = 0; channel < 3; ++channel) {
            auto value = [&](int n) {
                auto shifted = hn::ShiftRightSame(corner[n], 8 * channel);
                return hn::ConvertTo(df, hn::BitCast(di, hn::And(shifted, byteMask)));
            };
            hn::BlendedStore(bilinear(value), validF, df, scratch.hitColour[channel].data() + base);
        }
    }
}

// Height on the cell edge from post p[0] to post p[stride], a fraction f of the way.
double HeightOnEdge(const float* p, int stride, double f) {
    return p[0] + (static_cast<double>(p[stride]) - p[0]) * f;
}

// Row state.row hits at distance s, at least the row below's hit: into hitS (the plane's
// ColumnScratch::hitS), for MarchTileSecant.
void HitAt(double s, double* hitS, MarchState& state) {
    s = std::max(s, state.sPrev);
    hitS[state.row] = s;
    state.sPrev = s;
    --state.row;
}

// Cells a batch of the secant march walks before its rows are resolved.
constexpr int kSecantBatch = 32;
static_assert(kSecantBatch % HWY_LANES(double) == 0);

// A batch of the secant march (MarchTileSecant). Cell j of a batch: enters at distance s[j]
// with height h[j] and leaves at s[j + 1] with h[j + 1]; which cell of the tile it is
// (CellWalk::Cell); the running maximum of the exit slopes (padded with +inf, which no row's
// count includes).
struct SecantBatch {
    alignas(64) double s[kSecantBatch + 1], h[kSecantBatch + 1];  // metres
    alignas(64) double runningMax[kSecantBatch];
    int cell[kSecantBatch];
    int cells = 0;            // cells walked
    double maxSlope = -kInf;  // the largest exit slope of the batch
};

// Walks up to kSecantBatch cells of `walk` from sA (height hA there) toward sEnd into `batch`,
// and leaves sA and hA where it stopped.
void WalkBatch(CellWalk& walk, const float* heights, const PlaneRay& ray, double sEnd, double& sA,
               double& hA, SecantBatch& batch) {
    const int eastOrWest = walk.ExitEdgeX(), northOrSouth = walk.ExitEdgeY();
    // Kept in locals while walking, so that they stay in registers.
    int cells = 0;
    double maxSlope = -kInf;
    batch.s[0] = sA;
    batch.h[0] = hA;
    for (; cells < kSecantBatch && sA < sEnd; ++cells) {
        double sB = walk.ExitS(sEnd);
        batch.cell[cells] = walk.Cell();
        // Across an edge, unless the stretch ends inside the cell.
        const float* posts = heights + walk.Corner();
        double hB = sB >= sEnd ? HeightInCell(posts, walk.Fx(sB), walk.Fy(sB))
                    : walk.CrossesX()
                        ? HeightOnEdge(posts + eastOrWest, terrain::kTilePosts, walk.Fy(sB))
                        : HeightOnEdge(posts + northOrSouth, 1, walk.Fx(sB));
        batch.s[cells + 1] = sB;
        batch.h[cells + 1] = hB;
        double slope = sB > 0.0 ? (hB - ray.ez) / sB : (hB >= ray.ez ? kInf : -kInf);
        maxSlope = std::max(maxSlope, slope);
        batch.runningMax[cells] = maxSlope;
        sA = sB;
        hA = hB;
        walk.Next();
    }
    std::fill(batch.runningMax + cells, batch.runningMax + kSecantBatch, kInf);
    batch.cells = cells;
    batch.maxSlope = maxSlope;
}

// Resolves every row whose slope `batch` reaches: each hits in the first cell whose running
// maximum reaches its slope, at the root of the secant there; parks that cell in hitLevel, and
// prefetches its corner posts' packed words from `colours` (the tile's, ResidentTile::colours).
void HitRowsInBatch(const SecantBatch& batch, const PlaneRay& ray, const std::uint32_t* colours,
                    ColumnScratch& scratch, MarchState& state) {
    const DoubleTag d;
    double* hitS = scratch.hitS.data();
    int* hitLevel = scratch.hitLevel.data();
    while (state.row >= 0 && scratch.slopes[state.row] <= batch.maxSlope) {
        double k = scratch.slopes[state.row];
        const auto kV = hn::Set(d, k);
        std::size_t j = 0;
        for (int c = 0; c < batch.cells; c += static_cast<int>(hn::Lanes(d))) {
            j += hn::CountTrue(d, hn::Lt(hn::Load(d, batch.runningMax + c), kV));
        }
        double fA = batch.h[j] - (ray.ez + k * batch.s[j]);
        double fB = batch.h[j + 1] - (ray.ez + k * batch.s[j + 1]);
        double t = fA >= 0.0 ? 0.0 : (fB <= fA ? 1.0 : std::min(fA / (fA - fB), 1.0));
        hitLevel[state.row] = batch.cell[j];
        // The second pass (ShadeHits) reads the cell's four posts' colours: fetched from here
        // on, they are in the first-level cache by then (the frame takes 4% less).
        const std::uint32_t* post =
            colours + (batch.cell[j] >> 8) * terrain::kTilePosts + (batch.cell[j] & 0xFF);
        hwy::Prefetch(post);
        hwy::Prefetch(post + terrain::kTilePosts);
        HitAt(batch.s[j] + t * (batch.s[j + 1] - batch.s[j]), hitS, state);
    }
}

// The secant march, for cells small on screen (see TraceColumnOn): inside a cell the surface
// along the track is taken as the straight line between its bilinear heights where the track
// enters and leaves the cell, so a row hits in the first cell it leaves at or below the surface,
// at the root of a linear function: one division instead of a quadratic's square root and
// division per row, and one height per cell instead of four posts' maximum. The line meets the
// bilinear surface on every cell edge, so the surface stays continuous; inside it departs from
// it by at most a quarter of the cell's twist (h00 - h10 - h01 + h11), and a bump of the
// bilinear surface between two edges is passed over. Rows resolve bottom-up as in the exact
// march, each hit clamped to the row below's; a row that starts the stretch below its surface
// (at the data's edge, or where this level's surface is higher than the last one's) hits where
// it starts, as on the exact path.
//
// A row of slope k leaves cell j at or below the surface where the cell's exit point, seen from
// the eye, rises at least as steeply as the ray: m_j = (h_j - ez) / s_j >= k. Rows rise ever
// more steeply from the bottom up, and every row left has k above every m of the cells walked
// (or it would have hit there), so a row hits in the first cell whose running maximum M_j of m
// reaches k: the number of cells with M_j < k, a count with no branch to mispredict. The march
// therefore walks the cells in batches: the DDA records each cell's exit distance, height and
// cell, the batch's running maximum follows, and then every row whose k the batch reaches
// finds its cell by that count. One branch per batch and per row instead of one per cell that
// goes whichever way the terrain says. A cell is left across one of its edges, where the
// bilinear surface is linear: its exit height interpolates two posts, not four.
//
// The rows resolve in two passes. The first finds each row's hit distance: a chain of
// dependent steps (the count, the root's division, the clamp to the row below) that is short
// enough, without the shading, for the CPU to work on several rows at once. It parks the cell
// each row hit in in hitLevel. The second (ShadeHits), once the stretch is done, interpolates
// shade and material at the hits, a vector of rows at a time. Shading each hit where it was
// found made one long chain per row: the frame took a third longer.
void MarchTileSecant(const ResidentTile& tile, const PlaneRay& ray, double sBegin, double sEnd,
                     ColumnScratch& scratch, MarchState& state) {
    CellWalk walk(tile, ray, sBegin);
    const float* heights = tile.heightsM.data();
    const int level = tile.key.level;
    const int rowsBefore = state.row;
    double sA = sBegin;
    double hA = HeightInCell(heights + walk.Corner(), walk.Fx(sA), walk.Fy(sA));
    while (state.row >= 0 && hA >= ray.ez + scratch.slopes[state.row] * sA) {
        scratch.hitLevel[state.row] = walk.Cell();
        HitAt(sA, scratch.hitS.data(), state);
    }
    SecantBatch batch;
    while (state.row >= 0 && sA < sEnd) {
        WalkBatch(walk, heights, ray, sEnd, sA, hA, batch);
        HitRowsInBatch(batch, ray, tile.colours.data(), scratch, state);
    }
    ShadeHits(tile, walk, state.row + 1, rowsBefore, scratch);
    int resolved = rowsBefore - state.row;
    state.hits += resolved;
    state.coarserHits += level < state.wantLevel ? resolved : 0;
}

// Distance at which level L stops being fine enough: a sample's footprint reaches twice its
// post spacing. Level 0 never ends.
double LevelEndS(const terrain::PyramidGeometry& geometry, int level, double footprintPerM) {
    return level == 0 ? kInf : 2.0 * geometry.SpacingM(level) / footprintPerM;
}

// Where the track leaves the square of `tile` (slab method), past distance s.
double TileExitS(const ResidentTile& tile, const PlaneRay& ray, double s) {
    double sizeM = terrain::kTileCells * tile.spacingM;
    double x0 = tile.originXM + terrain::kTileBorder * tile.spacingM;
    double y0 = tile.originYM + terrain::kTileBorder * tile.spacingM;
    auto exit = [](double e, double d, double lo, double hi) {
        if (d == 0.0) return kInf;
        return ((d > 0 ? hi : lo) - e) / d;
    };
    double sExit =
        std::min(exit(ray.ex, ray.dx, x0, x0 + sizeM), exit(ray.ey, ray.dy, y0, y0 + sizeM));
    return std::max(sExit, s + kMinStepM);
}

// The plane's rows are shaded in floats, as many a vector as two double vectors hold (one on
// the scalar target): the march's slopes and distances, doubles, are read two vectors at a time
// and narrowed.
#if HWY_TARGET == HWY_SCALAR
using ShadeTag = hn::Rebind<float, DoubleTag>;
#else
using ShadeTag = hn::Repartition<float, DoubleTag>;
#endif

// Lanes(ShadeTag()) doubles as floats, where `part(i)` gives the i-th double vector of them.
template <class Part>
hn::Vec<ShadeTag> Narrowed(Part part) {
    const hn::Rebind<float, DoubleTag> dHalf;
#if HWY_TARGET == HWY_SCALAR
    return hn::DemoteTo(dHalf, part(0));
#else
    return hn::Combine(ShadeTag(), hn::DemoteTo(dHalf, part(1)), hn::DemoteTo(dHalf, part(0)));
#endif
}

// Constants of one plane's shading.
struct ShadingFrame {
    float hazeHalfDistanceM;
    float waterLevelM;                      // hits at most kWaterToleranceM above it are water
    PlaneRay ray;                           // the plane's eye and direction
    const common::Sky::PlaneSky* sky;       // the sky along the plane
    common::SkyColour haze;                 // what haze fades to: the sky at the horizon there
    const std::array<float, 3>* lightTint;  // TileCache::LightTint
};

// Water is the tiles' posts raised to the water level, so a hit on it lies at the level up to
// the float rounding of the posts and of the hit height.
constexpr float kWaterToleranceM = 0.01f;

// The colour of row y of a traced plane that is not land, before haze, into scratch.rowColour:
// on a sky row (`sky`) the sky's colour along its ray; on water the water's surface, its own
// colour in the shade interpolated there mixed with the sky reflected at the mirror slope by
// Schlick's Fresnel term of the view angle, plus the sun's glint.
void ColourSkyOrWater(const ShadingFrame& frame, int y, bool sky, ColumnScratch& scratch) {
    const double k = scratch.slopes[y];
    common::SkyColour c;
    if (sky) {
        c = frame.sky->At(static_cast<float>(k));
    } else {
        const float water[3] = {common::kWaterColour.r, common::kWaterColour.g,
                                common::kWaterColour.b};
        const float shade = scratch.hitShade[y] / kShadeCodesPerUnit;
        const float depression = static_cast<float>(-k / std::sqrt(1.0 + k * k));
        const float fresnel = common::SchlickFresnel(depression);
        const common::SkyColour mirror = frame.sky->At(static_cast<float>(-k));
        const float glint = frame.sky->GlintAt(static_cast<float>(-k)) * fresnel;
        float rgb[3] = {mirror.r, mirror.g, mirror.b};
        for (int ch = 0; ch < 3; ++ch) {
            float surface = water[ch] * shade + (rgb[ch] - water[ch] * shade) * fresnel;
            rgb[ch] = surface + (255.0f - surface) * glint;
        }
        c = {rgb[0], rgb[1], rgb[2]};
    }
    scratch.rowColour[0][y] = c.r;
    scratch.rowColour[1][y] = c.g;
    scratch.rowColour[2][y] = c.b;
}

// The sky's colours at ray slopes `k` from a plane's table (PlaneSky::Table), as PlaneSky::At
// reads it one row at a time: the two rows around sin(elevation) x 128 (a slope below the
// horizon reads row 0), blended. A lane whose slope is not a number reads rows inside the table.
std::array<hn::Vec<ShadeTag>, 3> SkyFromTable(const common::SkyColour* table, hn::Vec<ShadeTag> k) {
    const ShadeTag df;
    const hn::Rebind<std::int32_t, ShadeTag> di;
    static_assert(sizeof(common::SkyColour) == 3 * sizeof(float));
    const auto s = hn::Max(k, hn::Zero(df));
    const auto v = s / hn::Sqrt(hn::Add(hn::Set(df, 1.0f), hn::Mul(s, s))) *
                   hn::Set(df, static_cast<float>(common::kSkyTableElevations - 1));
    const auto j0 =
        hn::Clamp(hn::ConvertTo(di, v), hn::Zero(di), hn::Set(di, common::kSkyTableElevations - 2));
    const auto t = v - hn::ConvertTo(df, j0);
    const auto index = hn::Mul(j0, hn::Set(di, 3));
    const float* channels = &table[0].r;
    std::array<hn::Vec<ShadeTag>, 3> colour;
    for (int c = 0; c < 3; ++c) {
        const auto below = hn::GatherIndex(df, channels + c, index);
        const auto above = hn::GatherIndex(df, channels + 3 + c, index);
        colour[c] = below + (above - below) * t;
    }
    return colour;
}

// Shades a traced plane into scratch.pixels, a vector of rows at a time: a sky row the sky's
// colour along its ray (a vector of rows at once from the plane's table where it has one,
// PlaneSky::Table, else with the water rows); a row on land (most rows) the colour interpolated
// from the posts at the hit times the Lambert shade interpolated there and the light's tint
// (TileCache::LightTint); a row on water (its hit at most kWaterToleranceM above the water level)
// the water's surface (ColourSkyOrWater, as are sky rows, only for the vectors that hold such
// rows); and every row on the ground (land or water) seen through distance haze: d / (d +
// hazeHalfDistanceM) of the slant distance d to the hit moves its colour toward the sky's at the
// horizon in the plane's direction, where far terrain meets the sky. Channels are rounded to the
// nearest level.
void ShadePlane(const ShadingFrame& frame, ColumnScratch& scratch) {
    const DoubleTag d;
    const ShadeTag df;
    const hn::Rebind<std::int32_t, decltype(df)> di;
    const hn::Rebind<std::uint8_t, decltype(df)> d8;
    const int lanes = static_cast<int>(hn::Lanes(df)), doubleLanes = static_cast<int>(hn::Lanes(d));
    const auto oneF = hn::Set(df, 1.0f), zeroF = hn::Zero(df), halfF = hn::Set(df, 0.5f);
    const auto hazeHalf = hn::Set(df, frame.hazeHalfDistanceM);
    const auto shadePerCode = hn::Set(df, 1.0f / kShadeCodesPerUnit);
    const auto eyeZ = hn::Set(d, frame.ray.ez);
    const auto waterTop = hn::Set(df, frame.waterLevelM + kWaterToleranceM);
    const std::array<float, 3> haze = {frame.haze.r, frame.haze.g, frame.haze.b};
    const common::SkyColour* skyTable = frame.sky->Table();
    for (std::vector<float>& channel : scratch.rowColour) channel.resize(scratch.hitS.size());
    scratch.pixels.resize(scratch.hitS.size());
    for (int y = 0; y < scratch.rows; y += lanes) {
        const double* slopes = scratch.slopes.data() + y;
        const double* hits = scratch.hitS.data() + y;
        auto slope = [&](int i) { return hn::LoadU(d, slopes + i * doubleLanes); };
        auto hit = [&](int i) { return hn::LoadU(d, hits + i * doubleLanes); };
        const auto sf = Narrowed(hit);
        auto skyRow = hn::Lt(sf, zeroF);
        // The hit's height, rounded as the posts are (floats): water at or below waterTop.
        auto waterRow = hn::AndNot(
            skyRow,
            hn::Le(Narrowed([&](int i) { return hn::MulAdd(slope(i), hit(i), eyeZ); }), waterTop));
        auto kf = Narrowed(slope);
        // Rows coloured one at a time: water, and sky without the plane's table.
        auto oneByOne = skyTable ? waterRow : hn::Or(skyRow, waterRow);
        const bool anyOneByOne = !hn::AllFalse(df, oneByOne);
        if (anyOneByOne) {
            std::uint8_t skyBits[8], oneByOneBits[8];
            hn::StoreMaskBits(df, skyRow, skyBits);
            hn::StoreMaskBits(df, oneByOne, oneByOneBits);
            auto bit = [](const std::uint8_t* bits, int lane) {
                return (bits[lane / 8] >> lane % 8 & 1) != 0;
            };
            for (int lane = 0; lane < lanes && y + lane < scratch.rows; ++lane) {
                if (bit(oneByOneBits, lane))
                    ColourSkyOrWater(frame, y + lane, bit(skyBits, lane), scratch);
            }
        }
        const bool tableSky = skyTable != nullptr && !hn::AllFalse(df, skyRow);
        std::array<hn::Vec<ShadeTag>, 3> sky;
        if (tableSky) sky = SkyFromTable(skyTable, kf);
        auto distance = hn::Max(sf, zeroF) * hn::Sqrt(hn::MulAdd(kf, kf, oneF));
        auto hazeShare = distance / (distance + hazeHalf);
        auto shade = hn::LoadU(df, scratch.hitShade.data() + y) * shadePerCode;
        std::array<hn::Vec<decltype(d8)>, 3> out;
        for (int c = 0; c < 3; ++c) {
            auto lit = hn::LoadU(df, scratch.hitColour[c].data() + y) * shade *
                       hn::Set(df, (*frame.lightTint)[c]);
            // Sky and water rows' own colours; read only where the vector holds such rows.
            auto own = anyOneByOne ? hn::LoadU(df, scratch.rowColour[c].data() + y) : zeroF;
            if (tableSky) own = hn::IfThenElse(skyRow, sky[c], own);
            auto ground = hn::IfThenElse(waterRow, own, lit);
            auto hazed = hn::MulAdd(hn::Set(df, haze[c]) - ground, hazeShare, ground);
            auto value = hn::IfThenElse(skyRow, own, hazed);
            value = hn::Clamp(value + halfF, zeroF, hn::Set(df, 255.0f));
            out[c] = hn::DemoteTo(d8, hn::ConvertTo(di, value));
        }
        hn::StoreInterleaved3(out[0], out[1], out[2], d8,
                              reinterpret_cast<std::uint8_t*>(scratch.pixels.data() + y));
    }
}

// Sizes `scratch` for a plane of `rows` rows, every row sky (hit distance -1) until traced.
// HitRowsInCell reads and writes whole vectors of rows, and the slope of the row below the
// bottom one (NaN: equal to none); ShadePlane whole float vectors (two double vectors), so the
// rows are rounded up to those; ShadeHits whole vectors from any row, so the hits have one
// vector more.
void PrepareScratch(int rows, ColumnScratch& scratch) {
    std::size_t lanes = hn::Lanes(DoubleTag());
    std::size_t padded =
        (std::max<std::size_t>(rows, lanes) + 2 * lanes - 1) / (2 * lanes) * 2 * lanes;
    scratch.rows = rows;
    scratch.slopes.resize(padded + 1);
    std::fill(scratch.slopes.begin() + rows, scratch.slopes.end(),
              std::numeric_limits<double>::quiet_NaN());
    scratch.hitS.assign(padded + lanes, -1.0);
    scratch.hitLevel.assign(padded + lanes, 0);
    scratch.hitShade.resize(padded + lanes);
    for (std::vector<float>& channel : scratch.hitColour) channel.resize(padded + lanes);
}

}  // namespace

// The slopes of the pixels of plane `plane` of `fan` that lie in `columns` (a strided set, or
// a slice the plane crosses), into scratch.gathered, and their places in the columns' buffer
// into scratch.targets (as CastPlaneOn places them).
std::span<const double> GatherPixels(const common::FanLayout& fan, int plane,
                                     const common::ColumnSet& columns, ColumnScratch& scratch) {
    const int heightPx = fan.screen.heightPx, last = columns.At(columns.count - 1);
    const std::uint32_t firstIndex = static_cast<std::uint32_t>(columns.first) * heightPx;
    scratch.gathered.clear();
    scratch.targets.clear();
    for (int i = fan.planeStart[plane]; i < fan.planeStart[plane + 1]; ++i) {
        int x = fan.pixelX[i];
        if (x < columns.first || x > last) continue;
        std::uint32_t target = fan.pixelIndex[i] - firstIndex;
        if (columns.stride != 1) {
            int offset = x - columns.first;
            if (offset % columns.stride != 0) continue;
            target -= static_cast<std::uint32_t>(offset - offset / columns.stride) * heightPx;
        }
        scratch.gathered.push_back(fan.pixelSlope[i]);
        scratch.targets.push_back(target);
    }
    return scratch.gathered;
}

// The ground beyond the data: a level plane at the data's lowest post (or the water level, if
// higher: then it is drawn as water), lit as level ground, solid meadow (material 1), so that
// the world does not end at the data's edge but fades into the haze. None beyond draped
// imagery, whose ramp has no neutral colour (its material 1 is one of the image's own).
constexpr int kOutsideMaterial = 1;  // meadow

struct OutsideGround {
    bool present;
    double heightM;
    float shadeCode;
    std::array<float, 3> colour;
};

OutsideGround OutsideGroundOf(const FrameRays& frame) {
    return {frame.groundBeyondData,
            frame.groundBeyondDataM,
            static_cast<float>(frame.levelGroundShade) * kShadeCodesPerUnit,
            {static_cast<float>(common::DefaultLandColours()[kOutsideMaterial].r),
             static_cast<float>(common::DefaultLandColours()[kOutsideMaterial].g),
             static_cast<float>(common::DefaultLandColours()[kOutsideMaterial].b)}};
}

// Resolves the rows (bottom-up from state.row) whose rays meet `ground` between distances sFrom
// and sTo: beyond the data, where no tile is.
void HitOutside(const OutsideGround& ground, const PlaneRay& ray, double sFrom, double sTo,
                ColumnScratch& scratch, MarchState& state) {
    while (ground.present && state.row >= 0) {
        double k = scratch.slopes[state.row];
        if (k >= 0.0 || ray.ez <= ground.heightM) return;
        double s = (ground.heightM - ray.ez) / k;
        if (s > sTo) return;
        scratch.hitLevel[state.row] = 0;
        scratch.hitShade[state.row] = ground.shadeCode;
        for (int c = 0; c < 3; ++c) scratch.hitColour[c][state.row] = ground.colour[c];
        HitAt(std::max(s, sFrom), scratch.hitS.data(), state);
        ++state.hits;
    }
}

// The rays of plane `plane` of frame.fan: the eye and the plane's world direction.
PlaneRay PlaneRayOf(const FrameRays& frame, int plane) {
    common::HorizontalDirection dir =
        common::PlaneDirection(*frame.fan, plane, frame.pose.headingRad);
    const glm::dvec3& eye = frame.pose.eyeM;
    return {eye.x, eye.y, eye.z, dir.dirX, dir.dirY};
}

// TracePlane for the plane whose rays are `ray` (PlaneRayOf), marching from horizontal distance
// sStartM on (0: from the eye; CastRays).
void TraceRays(const TileCache& cache, const FrameRays& frame, const PlaneRay& ray,
               std::span<const double> slopes, const CastSettings& settings, ColumnScratch& scratch,
               double sStartM = 0.0) {
    int rows = static_cast<int>(slopes.size());
    PrepareScratch(rows, scratch);
    std::copy(slopes.begin(), slopes.end(), scratch.slopes.begin());
    const terrain::PyramidInfo& info = cache.Info();
    double s = 0.0, s1 = kInf;
    const OutsideGround outside = OutsideGroundOf(frame);
    const int finest = info.geometry.levelCount - 1;
    MarchState state{rows - 1, 0.0, finest};
    if (!common::ClipTrackToRect({ray.ex, ray.ey, ray.dx, ray.dy}, 0.0, info.dataWidthM, 0.0,
                                 info.dataDepthM, s, s1) ||
        s1 <= sStartM) {
        HitOutside(outside, ray, sStartM, kInf, scratch, state);
        scratch.hits += state.hits;
        return;
    }
    HitOutside(outside, ray, sStartM, s, scratch, state);  // before the track enters the data
    s = std::max(s, sStartM);
    int cap = settings.finestLevel < 0 ? finest : std::min(settings.finestLevel, finest);
    // A pixel's footprint per metre at distance s, a function of s alone: stretched along the
    // track as for a ray that reaches the coarsest level's surface there.
    auto footprintAt = [&](double sM) {
        const ResidentTile& coarsest = *frame.coarsest;
        terrain::PostCell c =
            terrain::CellAt(coarsest.originXM, coarsest.originYM, coarsest.postsPerM,
                            ray.ex + sM * ray.dx, ray.ey + sM * ray.dy);
        double groundM = terrain::BilinearInCell(
            &coarsest.heightsM[c.j * terrain::kTilePosts + c.i], c.fx, c.fy);
        double k = sM > 0.0 ? (groundM - ray.ez) / sM : -kInf;
        return frame.footprintPerM * common::AlongTrackStretch(k, settings.maxAnisotropy);
    };
    state.sPrev = std::max(state.sPrev, s);
    while (state.row >= 0 && s < s1) {
        double footprintPerM = footprintAt(s);
        while (state.wantLevel > 0 &&
               s >= LevelEndS(info.geometry, state.wantLevel, footprintPerM)) {
            --state.wantLevel;
        }
        double sLevelEnd = std::min(s1, LevelEndS(info.geometry, state.wantLevel, footprintPerM));
        double sProbe = s + kMinStepM;
        const ResidentTile* tile = cache.FinestAt(
            std::min(state.wantLevel, cap), ray.ex + sProbe * ray.dx, ray.ey + sProbe * ray.dy);
        double sEnd = std::min(sLevelEnd, TileExitS(*tile, ray, s));
        // Rows resolve bottom-up, so no row above the current one can hit a tile it clears.
        double k = scratch.slopes[state.row];
        if (std::min(ray.ez + k * s, ray.ez + k * sEnd) <= tile->maxHeightM) {
            // Cells spanning at most secantMaxCellPixels footprints where the stretch starts
            // (the nearest, hence smallest) take the secant; larger ones, close to the eye or
            // on a coarser fallback tile, the exact surface.
            if (tile->spacingM <= settings.secantMaxCellPixels * s * footprintPerM) {
                MarchTileSecant(*tile, ray, s, sEnd, scratch, state);
            } else {
                MarchTileExact(*tile, ray, s, sEnd, scratch, state);
            }
        }
        s = sEnd;
    }
    HitOutside(outside, ray, s1, kInf, scratch, state);
    scratch.hits += state.hits;
    scratch.coarserHits += state.coarserHits;
}

void TracePlaneOn(const TileCache& cache, const FrameRays& frame, int plane,
                  std::span<const double> slopes, const CastSettings& settings,
                  ColumnScratch& scratch) {
    TraceRays(cache, frame, PlaneRayOf(frame, plane), slopes, settings, scratch);
}

// The azimuth of the horizontal direction (dx east, dy north), radians clockwise from north in
// [-pi, pi]: std::atan2(dx, dy) through Highway's polynomial arc tangent (within a few ulp), at a
// fraction of the library call's cost, which took 2% of the demo's samples (a call per plane).
double AzimuthRad(double dx, double dy) {
    if (dy == 0.0) return std::copysign(std::numbers::pi / 2, dx);
    const hn::CappedTag<double, 1> d;
    double azimuthRad = hn::GetLane(hn::Atan(d, hn::Set(d, dx / dy)));
    if (dy < 0.0) azimuthRad += dx >= 0.0 ? std::numbers::pi : -std::numbers::pi;
    return azimuthRad;
}

// Puts the sky along the plane of `ray` into scratch.planeSky. A plane that sees the sky in a few
// rows (most planes looking down) reads its sky at a few rows: cheaper without the table blended
// to its azimuth (the same colours). Its sky rows are the top ones, those TraceRays left
// unresolved.
void TakePlaneSky(const FrameRays& frame, const PlaneRay& ray, ColumnScratch& scratch) {
    constexpr int kTabulatedSkyRows = 64;
    int skyRows = 0;
    while (skyRows <= kTabulatedSkyRows && skyRows < scratch.rows && scratch.hitS[skyRows] < 0.0)
        ++skyRows;
    frame.sky->Plane(AzimuthRad(ray.dx, ray.dy), skyRows > kTabulatedSkyRows, scratch.planeSky);
}

// Shades the rows TraceRays traced along `ray` into scratch.pixels (ShadePlane), in the sky and
// haze of `sky` (the plane's own, or a pixel's centre's for its anti-aliasing rays).
void ShadeRays(const TileCache& cache, const PlaneRay& ray, const common::Sky::PlaneSky& sky,
               const CastSettings& settings, ColumnScratch& scratch) {
    ShadingFrame shading{static_cast<float>(settings.hazeHalfDistanceM),
                         static_cast<float>(cache.WaterLevelM()),
                         ray,
                         &sky,
                         sky.At(0.0f),  // Sky::HorizonColour, without a second one
                         &cache.LightTint()};
    ShadePlane(shading, scratch);
}

// Puts row r of a cast plane (rows[r], scratch.rows of them) at its place in a columns' buffer
// `out` (as CastPlane lays it out), converted to its type: through scratch.targets when the rows
// were gathered, else through the fan's pixel indices from `index` (the plane's first), less
// `firstIndex`.
template <class S, class T>
void PlaceRows(const S* rows, bool gathered, const std::uint32_t* index, std::uint32_t firstIndex,
               const ColumnScratch& scratch, T* out) {
    if (gathered) {
        for (int r = 0; r < scratch.rows; ++r) out[scratch.targets[r]] = static_cast<T>(rows[r]);
    } else if (index[scratch.rows - 1] - index[0] == static_cast<std::uint32_t>(scratch.rows - 1)) {
        // One run down a column (every plane at pitch 0).
        std::copy(rows, rows + scratch.rows, out + (index[0] - firstIndex));
    } else {
        for (int r = 0; r < scratch.rows; ++r) out[index[r] - firstIndex] = static_cast<T>(rows[r]);
    }
}

void CastPlaneOn(const TileCache& cache, const FrameRays& frame, int plane,
                 const CastSettings& settings, const common::ColumnSet& columns,
                 ColumnScratch& scratch, common::Pixel* out, float* hitSOut) {
    const common::FanLayout& fan = *frame.fan;
    const int heightPx = fan.screen.heightPx;
    const int last = columns.At(columns.count - 1);
    // The plane's pixels in `columns`, and where each goes in `out`: a pixel's place is its own
    // index less the first column's, columns apart by `stride` packed side by side.
    const std::uint32_t firstIndex = static_cast<std::uint32_t>(columns.first) * heightPx;
    const int begin = fan.planeStart[plane], end = fan.planeStart[plane + 1];
    std::span<const double> slopes;
    if (columns.stride == 1 && fan.planeMinX[plane] >= columns.first &&
        fan.planeMaxX[plane] <= last) {
        // Every pixel of the plane (a whole screen, or a slice the plane lies in).
        slopes = std::span(fan.pixelSlope).subspan(begin, end - begin);
    } else {
        slopes = GatherPixels(fan, plane, columns, scratch);
    }
    if (slopes.empty()) return;
    const PlaneRay ray = PlaneRayOf(frame, plane);
    if (scratch.timeMarch) {
        const auto start = std::chrono::steady_clock::now();
        TraceRays(cache, frame, ray, slopes, settings, scratch);
        scratch.marchS +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } else {
        TraceRays(cache, frame, ray, slopes, settings, scratch);
    }
    TakePlaneSky(frame, ray, scratch);
    ShadeRays(cache, ray, scratch.planeSky, settings, scratch);
    const bool gathered = slopes.data() == scratch.gathered.data();
    const std::uint32_t* index = fan.pixelIndex.data() + begin;
    PlaceRows(scratch.pixels.data(), gathered, index, firstIndex, scratch, out);
    if (hitSOut == nullptr) return;
    PlaceRows(scratch.hitS.data(), gathered, index, firstIndex, scratch, hitSOut);
}

void SkyTowardOn(const FrameRays& frame, common::HorizontalDirection dir,
                 common::Sky::PlaneSky& sky) {
    frame.sky->Plane(AzimuthRad(dir.dirX, dir.dirY), false, sky);
}

void CastRaysOn(const TileCache& cache, const FrameRays& frame, common::HorizontalDirection dir,
                std::span<const double> slopes, double sStartM, const common::Sky::PlaneSky& sky,
                const CastSettings& settings, ColumnScratch& scratch) {
    const glm::dvec3& eye = frame.pose.eyeM;
    const PlaneRay ray{eye.x, eye.y, eye.z, dir.dirX, dir.dirY};
    TraceRays(cache, frame, ray, slopes, settings, scratch, sStartM);
    ShadeRays(cache, ray, sky, settings, scratch);
}

}  // namespace HWY_NAMESPACE
}  // namespace bfv::raytracer
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bfv::raytracer {

HWY_EXPORT(TracePlaneOn);
HWY_EXPORT(CastPlaneOn);
HWY_EXPORT(CastRaysOn);
HWY_EXPORT(SkyTowardOn);

FrameRays FrameRaysOf(const TileCache& cache, const common::CameraPose& pose,
                      const common::FanLayout& fan, const CastSettings& settings) {
    const terrain::PyramidInfo& info = cache.Info();
    return {pose,
            &fan,
            common::PixelAngle(fan.screen) * settings.lodBias,
            cache.FinestAt(0, pose.eyeM.x, pose.eyeM.y),
            !info.Textured(),
            std::max(static_cast<double>(info.minHeightM), cache.WaterLevelM()),
            cache.LevelGroundShade(),
            &cache.DaySky()};
}

void TracePlane(const TileCache& cache, const FrameRays& frame, int plane,
                std::span<const double> slopes, const CastSettings& settings,
                ColumnScratch& scratch) {
    HWY_DYNAMIC_DISPATCH(TracePlaneOn)(cache, frame, plane, slopes, settings, scratch);
}

void CastPlane(const TileCache& cache, const FrameRays& frame, int plane,
               const CastSettings& settings, const common::ColumnSet& columns,
               ColumnScratch& scratch, common::Pixel* out, float* hitSOut) {
    HWY_DYNAMIC_DISPATCH(CastPlaneOn)
    (cache, frame, plane, settings, columns, scratch, out, hitSOut);
}

void SkyToward(const FrameRays& frame, common::HorizontalDirection dir,
               common::Sky::PlaneSky& sky) {
    HWY_DYNAMIC_DISPATCH(SkyTowardOn)(frame, dir, sky);
}

void CastRays(const TileCache& cache, const FrameRays& frame, common::HorizontalDirection dir,
              std::span<const double> slopes, double sStartM, const common::Sky::PlaneSky& sky,
              const CastSettings& settings, ColumnScratch& scratch) {
    HWY_DYNAMIC_DISPATCH(CastRaysOn)(cache, frame, dir, slopes, sStartM, sky, settings, scratch);
}

}  // namespace bfv::raytracer
#endif  // HWY_ONCE
