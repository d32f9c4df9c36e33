#include "raytracer/ray_caster.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bfv::raytracer {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A column's rays: eye position and the horizontal direction they all share.
struct ColumnRay {
    double ex, ey, ez;  // eye, metres
    double dx, dy;      // unit horizontal direction
};

// The distance interval [s0, s1] in which the ground track lies over the dataset's rectangle
// [0, width] x [0, depth] (slab method). False when it misses it.
bool ClipToDataset(const ColumnRay& ray, double widthM, double depthM, double& s0, double& s1) {
    s0 = 0.0;
    s1 = kInf;
    auto slab = [&](double e, double d, double hi) {
        if (d == 0.0) return e >= 0.0 && e <= hi;
        double a = (0.0 - e) / d, b = (hi - e) / d;
        s0 = std::max(s0, std::min(a, b));
        s1 = std::min(s1, std::max(a, b));
        return s0 <= s1;
    };
    return slab(ray.ex, ray.dx, widthM) && slab(ray.ey, ray.dy, depthM);
}

// Smallest root of c2 t^2 + c1 t + c0 in (tLo, tHi], where the caller knows f(tLo) < 0.
bool FirstRoot(double c0, double c1, double c2, double tLo, double tHi, double& t) {
    if (std::abs(c2) < 1e-12) {
        if (c1 <= 0.0) return false;
        t = -c0 / c1;
        return t <= tHi;
    }
    double disc = c1 * c1 - 4.0 * c2 * c0;
    if (disc < 0.0) return false;
    double q = -0.5 * (c1 + std::copysign(std::sqrt(disc), c1));
    double r1 = q / c2, r2 = q != 0.0 ? c0 / q : r1;
    if (r1 > r2) std::swap(r1, r2);
    for (double r : {r1, r2}) {
        if (r > tLo && r <= tHi) {
            t = r;
            return true;
        }
    }
    return false;
}

// State of the march through one column: rows still to resolve and the last hit.
struct MarchState {
    int row;       // next row to resolve (bottom-up), -1 when done
    double sPrev;  // hit distance of the row below, metres
};

// The bilinear surface over one cell along the ray: H(t) = h0 + h1 t + h2 t^2, t = s - sA.
struct CellSurface {
    double h0, h1, h2, maxM;
};

CellSurface SurfaceAlong(const MipLevel& mip, int i, int j, double fx, double fy, double gdx,
                         double gdy) {
    int i0 = std::clamp(i, 0, mip.nx - 1), i1 = std::clamp(i + 1, 0, mip.nx - 1);
    int j0 = std::clamp(j, 0, mip.ny - 1), j1 = std::clamp(j + 1, 0, mip.ny - 1);
    double h00 = mip.Height(i0, j0), h10 = mip.Height(i1, j0);
    double h01 = mip.Height(i0, j1), h11 = mip.Height(i1, j1);
    double dX = h10 - h00, dY = h01 - h00, dXY = h00 - h10 - h01 + h11;
    return {h00 + dX * fx + dY * fy + dXY * fx * fy,
            dX * gdx + dY * gdy + dXY * (fx * gdy + gdx * fy), dXY * gdx * gdy,
            std::max(std::max(h00, h10), std::max(h01, h11))};
}

// Resolves as many rows as hit inside the cell segment [sA, sB].
void HitRowsInCell(const CellSurface& cell, const ColumnRay& ray, double sA, double sB, int mip,
                   ColumnScratch& scratch, MarchState& state) {
    while (state.row >= 0) {
        double k = scratch.slopes[state.row];
        double sLo = std::max(state.sPrev, sA);
        if (std::min(ray.ez + k * sLo, ray.ez + k * sB) > cell.maxM) return;
        double c0 = cell.h0 - (ray.ez + k * sA), c1 = cell.h1 - k;
        double tLo = sLo - sA, t = tLo;
        double fLo = c0 + (c1 + cell.h2 * tLo) * tLo;
        if (fLo < 0.0 && !FirstRoot(c0, c1, cell.h2, tLo, sB - sA, t)) return;
        state.sPrev = sA + t;
        scratch.hitS[state.row] = state.sPrev;
        scratch.hitMip[state.row] = mip;
        --state.row;
    }
}

// Walks the cells of mip `m` that the ground track crosses between sBegin and sEnd
// (Amanatides-Woo DDA in the mip's grid coordinates).
void MarchMip(const MipLevel& mip, int m, const ColumnRay& ray, double sBegin, double sEnd,
              ColumnScratch& scratch, MarchState& state) {
    double gdx = ray.dx / mip.spacingXM, gdy = ray.dy / mip.spacingYM;
    double gx = (ray.ex + sBegin * ray.dx) / mip.spacingXM - 0.5;
    double gy = (ray.ey + sBegin * ray.dy) / mip.spacingYM - 0.5;
    int i = std::clamp(static_cast<int>(std::floor(gx)), -1, mip.nx - 1);
    int j = std::clamp(static_cast<int>(std::floor(gy)), -1, mip.ny - 1);
    double deltaX = gdx != 0.0 ? std::abs(1.0 / gdx) : kInf;
    double deltaY = gdy != 0.0 ? std::abs(1.0 / gdy) : kInf;
    double nextX = sBegin + (gdx > 0 ? (i + 1 - gx) : (gx - i)) * deltaX;
    double nextY = sBegin + (gdy > 0 ? (j + 1 - gy) : (gy - j)) * deltaY;
    double sA = sBegin;
    while (state.row >= 0 && sA < sEnd) {
        double sB = std::min({nextX, nextY, sEnd});
        double fx = gx + (sA - sBegin) * gdx - i, fy = gy + (sA - sBegin) * gdy - j;
        HitRowsInCell(SurfaceAlong(mip, i, j, fx, fy, gdx, gdy), ray, sA, sB, m, scratch, state);
        sA = sB;
        if (nextX < nextY) {
            i += gdx > 0 ? 1 : -1;
            nextX += deltaX;
        } else {
            j += gdy > 0 ? 1 : -1;
            nextY += deltaY;
        }
    }
}

// Distance at which mip m stops being fine enough: a sample's footprint reaches twice its
// post spacing. The coarsest allowed mip never ends.
double MipEndS(const TerrainPyramid& pyramid, int m, int lastMip, double footprintPerM) {
    if (m >= lastMip) return kInf;
    const MipLevel& base = pyramid.Mip(0);
    double spacing = std::min(base.spacingXM, base.spacingYM) * std::ldexp(1.0, m + 1);
    return spacing / footprintPerM;
}

int MipAt(const TerrainPyramid& pyramid, double s, int lastMip, double footprintPerM) {
    int m = 0;
    while (m < lastMip && s >= MipEndS(pyramid, m, lastMip, footprintPerM)) ++m;
    return m;
}

double Bilinear(const MipLevel& mip, const std::vector<float>& field, double xM, double yM) {
    double gx = std::clamp(xM / mip.spacingXM - 0.5, 0.0, mip.nx - 1.0);
    double gy = std::clamp(yM / mip.spacingYM - 0.5, 0.0, mip.ny - 1.0);
    int i = std::min(static_cast<int>(gx), mip.nx - 2);
    int j = std::min(static_cast<int>(gy), mip.ny - 2);
    double fx = gx - i, fy = gy - j;
    const float* p = &field[j * mip.nx + i];
    double south = p[0] + (p[1] - p[0]) * fx;
    double north = p[mip.nx] + (p[mip.nx + 1] - p[mip.nx]) * fx;
    return south + (north - south) * fy;
}

common::Pixel ShadeHit(const TerrainPyramid& pyramid, const CastSettings& settings,
                       const ColumnRay& ray, double s, double k, int m) {
    const MipLevel& mip = pyramid.Mip(m);
    double x = ray.ex + s * ray.dx, y = ray.ey + s * ray.dy;
    double shade = Bilinear(mip, mip.shade, x, y);
    double slope = Bilinear(mip, mip.slope, x, y);
    double relief = std::max(pyramid.MaxHeightM() - pyramid.MinHeightM(), 1.0f);
    double normalisedHeight = (ray.ez + k * s - pyramid.MinHeightM()) / relief;
    double distance = s * std::sqrt(1.0 + k * k);
    double haze = distance / (distance + settings.hazeHalfDistanceM);
    double intensity = shade + (1.0 - shade) * haze;
    int material = common::MaterialFor(normalisedHeight, slope);
    return {common::TerrainIndex(material, haze),
            static_cast<std::uint8_t>(std::lround(std::clamp(intensity, 0.0, 1.0) * 255.0))};
}

}  // namespace

void TraceColumn(const TerrainPyramid& pyramid, const common::CameraPose& pose,
                 const common::ScreenSpec& screen, const CastSettings& settings, int x,
                 ColumnScratch& scratch) {
    int rows = screen.heightPx;
    scratch.slopes.resize(rows);
    scratch.hitS.assign(rows, -1.0);
    scratch.hitMip.assign(rows, 0);
    common::ColumnSlopes(pose, screen, x, scratch.slopes.data());
    common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
    ColumnRay ray{pose.eyeM.x, pose.eyeM.y, pose.eyeM.z, dir.dirX, dir.dirY};
    double s0, s1;
    if (!ClipToDataset(ray, pyramid.WidthM(), pyramid.DepthM(), s0, s1)) return;
    int lastMip = settings.maxMip < 0 ? pyramid.MipCount() - 1
                                      : std::min(settings.maxMip, pyramid.MipCount() - 1);
    double footprintPerM = common::PixelAngle(screen) * settings.lodBias;
    MarchState state{rows - 1, s0};
    for (int m = MipAt(pyramid, s0, lastMip, footprintPerM); state.row >= 0 && s0 < s1; ++m) {
        double sEnd = std::min(s1, MipEndS(pyramid, m, lastMip, footprintPerM));
        MarchMip(pyramid.Mip(m), m, ray, s0, sEnd, scratch, state);
        s0 = sEnd;
    }
}

void CastColumn(const TerrainPyramid& pyramid, const common::CameraPose& pose,
                const common::ScreenSpec& screen, const CastSettings& settings, int x,
                ColumnScratch& scratch, common::Pixel* out) {
    TraceColumn(pyramid, pose, screen, settings, x, scratch);
    common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
    ColumnRay ray{pose.eyeM.x, pose.eyeM.y, pose.eyeM.z, dir.dirX, dir.dirY};
    for (int y = 0; y < screen.heightPx; ++y) {
        double k = scratch.slopes[y];
        out[y] = scratch.hitS[y] < 0.0
                     ? common::Pixel{common::SkyIndex(k), 255}
                     : ShadeHit(pyramid, settings, ray, scratch.hitS[y], k, scratch.hitMip[y]);
    }
}

}  // namespace bfv::raytracer
