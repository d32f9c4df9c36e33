#include "raytracer/ray_caster.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bfv::raytracer {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMinStepM = 1e-4;  // = 0.1 mm // nudge past a tile's edge to find the next tile

// A column's rays: eye position and the horizontal direction they all share.
struct ColumnRay {
    double ex, ey, ez;  // eye, metres
    double dx, dy;      // unit horizontal direction
};

// Where f(t) = c2 t^2 + c1 t + c0, with f(0) < 0 (the ray above the surface), first reaches 0
// in (0, tHi]. Whether it does is decided from f(tHi) and, for a concave f, its vertex, with no
// square root or division, so the march's branch on it does not wait for the root's value.
// The root is the upward crossing: the larger root of a convex f, the smaller of a concave one.
// With q = -(c1 + sign(c1) sqrt(disc)) / 2 the roots are q / c2 and c0 / q (the stable pair of
// Numerical Recipes 5.6). As c0 < 0, a convex f has one positive root, q / c2 when q > 0 and
// c0 / q otherwise; a concave f reaches 0 only with c1 > 0 (so q < 0), and c0 / q is then the
// smaller root. One division per root: the divider, shared with the square root, is what the
// rows of a cell queue on.
bool FirstRoot(double c0, double c1, double c2, double tHi, double& t) {
    double disc = c1 * c1 - 4.0 * c2 * c0;
    bool endsAbove = c0 + (c1 + c2 * tHi) * tHi >= 0.0;
    bool vertexAbove = c2 < 0.0 && c1 > 0.0 && c1 < -2.0 * c2 * tHi && disc >= 0.0;
    if (!endsAbove && !vertexAbove) return false;
    if (std::abs(c2) < 1e-12) {
        t = -c0 / c1;
        return true;
    }
    double q = -0.5 * (c1 + std::copysign(std::sqrt(std::max(disc, 0.0)), c1));
    bool upper = c2 > 0.0 && q > 0.0;
    t = (upper ? q : c0) / (upper ? c2 : q);
    return true;
}

// State of the march through one column: rows still to resolve, the last hit, and the levels
// the current stretch of the track wants and reads.
struct MarchState {
    int row;        // next row to resolve (bottom-up), -1 when done
    double sPrev;   // hit distance of the row below, metres
    int wantLevel;  // level the footprint asks for here
};

// The bilinear surface over one cell along the ray: H(t) = h0 + h1 t + h2 t^2, t = s - sA.
// Also the cell's corner posts and where the ray enters it in cell coordinates, to interpolate
// shade and slope at a hit.
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

// Records row `row`'s hit at distance sA + t in `cell` of `tile`: distance, level, and the
// post shade and slope interpolated at the hit; counts it as coarser than wanted if it is.
void RecordHit(const ResidentTile& tile, const CellSurface& cell, double sA, double t, int row,
               int wantLevel, ColumnScratch& scratch) {
    float fx = std::clamp(static_cast<float>(cell.fx + cell.gdx * t), 0.0f, 1.0f);
    float fy = std::clamp(static_cast<float>(cell.fy + cell.gdy * t), 0.0f, 1.0f);
    scratch.hitS[row] = sA + t;
    scratch.hitLevel[row] = tile.key.level;
    scratch.hitShade[row] = terrain::BilinearInCell(&tile.shadeCodes[cell.c00], fx, fy);
    scratch.hitSlope[row] = terrain::BilinearInCell(&tile.slopeCodes[cell.c00], fx, fy);
    ++scratch.hits;
    scratch.coarserHits += tile.key.level < wantLevel;
}

// Resolves as many rows as hit inside the cell segment [sA, sB]. Each row's root is found from
// the cell's entry, not from the hit of the row below: the row's ray lies above that row's, so
// it cannot meet the surface earlier, and the rows' square roots and divisions overlap instead
// of waiting on each other. Clamping the root to the row below's hit keeps hits monotonic.
void HitRowsInCell(const ResidentTile& tile, const CellSurface& cell, const ColumnRay& ray,
                   double sA, double sB, ColumnScratch& scratch, MarchState& state) {
    int lastRow = static_cast<int>(scratch.slopes.size()) - 1;
    double tHi = sB - sA;
    while (state.row >= 0) {
        double k = scratch.slopes[state.row];
        double tLo = state.sPrev - sA;
        if (state.row < lastRow && scratch.slopes[state.row + 1] == k && tLo >= 0.0) {
            // The same ray as the row below (slopes clamped near the vertical): same hit. Its
            // search would start exactly on the surface, where rounding can miss the root.
            RecordHit(tile, cell, sA, tLo, state.row--, state.wantLevel, scratch);
            continue;
        }
        if (std::min(ray.ez + k * sA, ray.ez + k * sB) > cell.maxM) return;
        double c0 = cell.h0 - (ray.ez + k * sA), c1 = cell.h1 - k;
        double t = 0.0;
        if (c0 < 0.0 && !FirstRoot(c0, c1, cell.h2, tHi, t)) return;
        t = std::min(std::max(t, std::max(tLo, 0.0)), tHi);
        state.sPrev = sA + t;
        RecordHit(tile, cell, sA, t, state.row, state.wantLevel, scratch);
        --state.row;
    }
}

// Walks the cells of `tile` that the ground track crosses between sBegin and sEnd
// (Amanatides-Woo DDA in the tile's post coordinates). Most cells are passed after four loads
// and one compare: when the current row's ray stays above the cell's highest post, no row
// (each rises above the one below) hits there. Only a cell the ray may reach, or one holding
// the hit of the row below, gets its surface and the rows' roots.
void MarchTile(const ResidentTile& tile, const ColumnRay& ray, double sBegin, double sEnd,
               ColumnScratch& scratch, MarchState& state) {
    constexpr int kLastCell = terrain::kTilePosts - 2;
    double gdx = ray.dx * tile.postsPerM, gdy = ray.dy * tile.postsPerM;
    double gx = (ray.ex + sBegin * ray.dx - tile.originXM) * tile.postsPerM;
    double gy = (ray.ey + sBegin * ray.dy - tile.originYM) * tile.postsPerM;
    int i = std::clamp(static_cast<int>(std::floor(gx)), 0, kLastCell);
    int j = std::clamp(static_cast<int>(std::floor(gy)), 0, kLastCell);
    int stepI = gdx > 0 ? 1 : -1, stepJ = gdy > 0 ? 1 : -1;
    double deltaX = gdx != 0.0 ? std::abs(1.0 / gdx) : kInf;
    double deltaY = gdy != 0.0 ? std::abs(1.0 / gdy) : kInf;
    // A track parallel to a grid axis never crosses that axis's lines (and 0 * inf is NaN).
    double nextX = gdx != 0.0 ? sBegin + (gdx > 0 ? (i + 1 - gx) : (gx - i)) * deltaX : kInf;
    double nextY = gdy != 0.0 ? sBegin + (gdy > 0 ? (j + 1 - gy) : (gy - j)) * deltaY : kInf;
    const float* heights = tile.heightsM.data();
    double sA = sBegin;
    while (state.row >= 0 && sA < sEnd) {
        double sB = std::min(std::min(nextX, nextY), sEnd);
        int c00 = j * terrain::kTilePosts + i;
        const float* h = heights + c00;
        double maxM = std::max(std::max(h[0], h[1]),
                               std::max(h[terrain::kTilePosts], h[terrain::kTilePosts + 1]));
        double k = scratch.slopes[state.row];
        if (state.sPrev >= sA || std::min(ray.ez + k * sA, ray.ez + k * sB) <= maxM) {
            double fx = gx + (sA - sBegin) * gdx - i, fy = gy + (sA - sBegin) * gdy - j;
            HitRowsInCell(tile, SurfaceAlong(h, c00, maxM, fx, fy, gdx, gdy), ray, sA, sB, scratch,
                          state);
        }
        sA = sB;
        bool crossesX = nextX < nextY;
        i = crossesX ? std::clamp(i + stepI, 0, kLastCell) : i;
        j = crossesX ? j : std::clamp(j + stepJ, 0, kLastCell);
        nextX = crossesX ? nextX + deltaX : nextX;
        nextY = crossesX ? nextY : nextY + deltaY;
    }
}

// Distance at which level L stops being fine enough: a sample's footprint reaches twice its
// post spacing. Level 0 never ends.
double LevelEndS(const terrain::PyramidGeometry& geometry, int level, double footprintPerM) {
    return level == 0 ? kInf : 2.0 * geometry.SpacingM(level) / footprintPerM;
}

// Where the track leaves the square of `tile` (slab method), past distance s.
double TileExitS(const ResidentTile& tile, const ColumnRay& ray, double s) {
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

// Constants of one column's shading.
struct ShadingFrame {
    float minHeightM;
    float perReliefM;  // 1 / (max - min height)
    float hazeHalfDistanceM;
};

// Haze fraction, intensity and slope of every row of a traced column, from the slant distance
// of the hit and the shade and slope codes there (sky rows get values ShadePixels ignores).
// Branch-free over arrays so that the compiler vectorises its divisions and square roots,
// which cost more than the rest of the shading.
void HazeAndIntensity(const ShadingFrame& frame, ColumnScratch& scratch) {
    int rows = static_cast<int>(scratch.slopes.size());
    scratch.haze.resize(rows);
    scratch.intensity.resize(rows);
    scratch.slope.resize(rows);
    for (int y = 0; y < rows; ++y) {
        float kf = static_cast<float>(scratch.slopes[y]);
        float s = std::max(static_cast<float>(scratch.hitS[y]), 0.0f);
        float distance = s * std::sqrt(1.0f + kf * kf);
        float haze = distance / (distance + frame.hazeHalfDistanceM);
        float shade = scratch.hitShade[y] / kShadeCodesPerUnit;
        scratch.haze[y] = haze;
        scratch.intensity[y] = std::clamp(shade + (1.0f - shade) * haze, 0.0f, 1.0f);
        scratch.slope[y] = scratch.hitSlope[y] / kSlopeCodesPerUnit;
    }
}

// Pixels of a traced column whose haze and intensity are known: palette material from height
// and slope for terrain rows, the sky gradient above.
void ShadePixels(const ShadingFrame& frame, double eyeZ, const ColumnScratch& scratch,
                 common::Pixel* out) {
    for (int y = 0; y < static_cast<int>(scratch.slopes.size()); ++y) {
        double k = scratch.slopes[y], s = scratch.hitS[y];
        if (s < 0.0) {
            out[y] = {common::SkyIndex(k), 255};
            continue;
        }
        float heightM = static_cast<float>(eyeZ + k * s);
        int material =
            common::MaterialFor((heightM - frame.minHeightM) * frame.perReliefM, scratch.slope[y]);
        out[y] = {common::TerrainIndex(material, scratch.haze[y]),
                  static_cast<std::uint8_t>(scratch.intensity[y] * 255.0f + 0.5f)};
    }
}

}  // namespace

void TraceColumn(const TileCache& cache, const common::CameraPose& pose,
                 const common::ScreenSpec& screen, const CastSettings& settings, int x,
                 ColumnScratch& scratch) {
    int rows = screen.heightPx;
    scratch.slopes.resize(rows);
    scratch.hitS.assign(rows, -1.0);
    scratch.hitLevel.assign(rows, 0);
    scratch.hitShade.resize(rows);
    scratch.hitSlope.resize(rows);
    common::ColumnSlopes(pose, screen, x, scratch.slopes.data());
    common::ColumnRays dir = common::ColumnDirection(pose, screen, x);
    ColumnRay ray{pose.eyeM.x, pose.eyeM.y, pose.eyeM.z, dir.dirX, dir.dirY};
    const terrain::PyramidInfo& info = cache.Info();
    double s = 0.0, s1 = kInf;
    if (!common::ClipTrackToRect({ray.ex, ray.ey, ray.dx, ray.dy}, 0.0, info.dataWidthM, 0.0,
                                 info.dataDepthM, s, s1)) {
        return;
    }
    int finest = info.geometry.levelCount - 1;
    int cap = settings.finestLevel < 0 ? finest : std::min(settings.finestLevel, finest);
    double footprintPerM = common::PixelAngle(screen) * settings.lodBias;
    MarchState state{rows - 1, s, finest};
    while (state.row >= 0 && s < s1) {
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
            MarchTile(*tile, ray, s, sEnd, scratch, state);
        }
        s = sEnd;
    }
}

void CastColumn(const TileCache& cache, const common::CameraPose& pose,
                const common::ScreenSpec& screen, const CastSettings& settings, int x,
                ColumnScratch& scratch, common::Pixel* out) {
    TraceColumn(cache, pose, screen, settings, x, scratch);
    const terrain::PyramidInfo& info = cache.Info();
    float reliefM = std::max(info.maxHeightM - info.minHeightM, 1.0f);
    ShadingFrame frame{info.minHeightM, 1.0f / reliefM,
                       static_cast<float>(settings.hazeHalfDistanceM)};
    HazeAndIntensity(frame, scratch);
    ShadePixels(frame, pose.eyeM.z, scratch, out);
}

}  // namespace bfv::raytracer
