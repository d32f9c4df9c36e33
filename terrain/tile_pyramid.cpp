#include "terrain/tile_pyramid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/check.h"

namespace bfv::terrain {

std::uint64_t TileKey::Packed() const {
    return (static_cast<std::uint64_t>(level) << 48) | (static_cast<std::uint64_t>(tx) << 24) |
           static_cast<std::uint64_t>(ty);
}

TileKey TileKey::Unpack(std::uint64_t packed) {
    return {static_cast<int>(packed >> 48), static_cast<int>((packed >> 24) & 0xFFFFFF),
            static_cast<int>(packed & 0xFFFFFF)};
}

std::string TileKey::ToString() const { return fmt::format("L{}/{}/{}", level, tx, ty); }

double PyramidGeometry::SpacingM(int level) const {
    return rootSizeM / std::ldexp(static_cast<double>(kTileCells), level);
}

TileKey PyramidGeometry::TileAt(int level, double xM, double yM) const {
    int n = TilesPerSide(level);
    double perTile = 1.0 / TileSizeM(level);
    auto index = [&](double v) {
        return std::clamp(static_cast<int>(std::floor(v * perTile)), 0, n - 1);
    };
    return {level, index(xM), index(yM)};
}

std::int16_t HeightCoding::Encode(double heightM) const {
    double code = std::round((heightM - offsetM) / scaleM);
    return static_cast<std::int16_t>(std::clamp(code, -32767.0, 32767.0));
}

double Roughness::AmplitudeM(double spacingM) const {
    return sigmaM * std::pow(spacingM / referenceSpacingM, hurst);
}

namespace {

// Hurst exponents of real terrain lie around 0.5 to 0.85; a DEM that was itself smoothed or
// interpolated measures higher, which would leave its refinement without fine detail.
constexpr double kMinHurst = 0.2;
constexpr double kMaxHurst = 0.85;

// Heights of one level's posts over the whole pyramid, border included: global posts
// -kTileBorder .. TilesPerSide * kTileCells + kTileBorder on each axis.
struct LevelGrid {
    int level = 0;
    int n = 0;  // posts per side
    std::vector<float> heightsM;

    float& At(int i, int j) { return heightsM[Index(i, j)]; }
    float At(int i, int j) const { return heightsM[Index(i, j)]; }
    // Global post (i, j), clamped into the grid.
    std::size_t Index(int i, int j) const {
        int a = std::clamp(i + kTileBorder, 0, n - 1), b = std::clamp(j + kTileBorder, 0, n - 1);
        return static_cast<std::size_t>(b) * n + a;
    }
};

LevelGrid SampleSource(const Terrain& source, const PyramidGeometry& geometry, int level,
                       const BuildProgress& progress, long long& done, long long total) {
    LevelGrid grid{level, geometry.TilesPerSide(level) * kTileCells + 1 + 2 * kTileBorder, {}};
    grid.heightsM.resize(static_cast<std::size_t>(grid.n) * grid.n);
    double spacingM = geometry.SpacingM(level);
    for (int j = -kTileBorder; j < grid.n - kTileBorder; ++j) {
        for (int i = -kTileBorder; i < grid.n - kTileBorder; ++i) {
            grid.At(i, j) = static_cast<float>(BilinearHeightM(source, i * spacingM, j * spacingM));
        }
        if (progress) progress(done += grid.n, total);
    }
    return grid;
}

// The [1 2 1] x [1 2 1] / 16 filter of `fine` at its even posts.
LevelGrid Downsample(const LevelGrid& fine) {
    LevelGrid coarse{fine.level - 1, (fine.n - 1 - 2 * kTileBorder) / 2 + 1 + 2 * kTileBorder, {}};
    coarse.heightsM.resize(static_cast<std::size_t>(coarse.n) * coarse.n);
    static constexpr float kWeights[3] = {1.0f, 2.0f, 1.0f};
    for (int j = -kTileBorder; j < coarse.n - kTileBorder; ++j) {
        for (int i = -kTileBorder; i < coarse.n - kTileBorder; ++i) {
            float sum = 0.0f;
            for (int b = -1; b <= 1; ++b) {
                for (int a = -1; a <= 1; ++a) {
                    sum += kWeights[a + 1] * kWeights[b + 1] * fine.At(2 * i + a, 2 * j + b);
                }
            }
            coarse.At(i, j) = sum / 16.0f;
        }
    }
    return coarse;
}

void CutTiles(const LevelGrid& grid, const HeightCoding& coding, std::vector<TilePosts>& out) {
    int tiles = 1 << grid.level;
    for (int ty = 0; ty < tiles; ++ty) {
        for (int tx = 0; tx < tiles; ++tx) {
            TilePosts tile{{grid.level, tx, ty}, std::vector<std::int16_t>(kTilePostCount)};
            for (int b = 0; b < kTilePosts; ++b) {
                for (int a = 0; a < kTilePosts; ++a) {
                    tile.codes[b * kTilePosts + a] = coding.Encode(grid.At(
                        tx * kTileCells + a - kTileBorder, ty * kTileCells + b - kTileBorder));
                }
            }
            out.push_back(std::move(tile));
        }
    }
}

double RmsResidual(const Terrain& t, int stride) {
    double sum = 0.0;
    long long count = 0;
    for (int j = stride; j + stride < t.ny; ++j) {
        for (int i = stride; i + stride < t.nx; ++i) {
            double mean = 0.25 * (t.HeightAt(i - stride, j) + t.HeightAt(i + stride, j) +
                                  t.HeightAt(i, j - stride) + t.HeightAt(i, j + stride));
            double r = t.HeightAt(i, j) - mean;
            sum += r * r;
            ++count;
        }
    }
    return count > 0 ? std::sqrt(sum / static_cast<double>(count)) : 0.0;
}

// A displacement with mean 0 and variance 1 (uniform on [-sqrt 3, sqrt 3]) that depends only
// on (seed, level, i, j): splitmix64 of the packed key.
double Displacement(std::uint64_t seed, int level, int i, int j) {
    std::uint64_t z = seed ^ (static_cast<std::uint64_t>(level) << 58) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 29) ^
                      static_cast<std::uint64_t>(static_cast<std::uint32_t>(j));
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    double unit = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    return (2.0 * unit - 1.0) * std::sqrt(3.0);
}

}  // namespace

Roughness MeasureRoughness(const Terrain& source) {
    BFV_CHECK(source.nx >= 2 && source.ny >= 2);
    Roughness roughness;
    roughness.referenceSpacingM = std::min(source.spacingXM, source.spacingYM);
    roughness.sigmaM = RmsResidual(source, 1);
    double coarser = RmsResidual(source, 2);
    if (roughness.sigmaM > 0.0 && coarser > 0.0) {
        roughness.hurst = std::clamp(std::log2(coarser / roughness.sigmaM), kMinHurst, kMaxHurst);
    }
    return roughness;
}

Expected<void> CheckBuildOptions(const PyramidBuildOptions& options) {
    if (auto ok = common::CheckRange("finest spacing", options.finestSpacingM, kPostSpacingRangeM);
        !ok) {
        return ok;
    }
    return common::CheckRange("roughness scale", options.roughnessScale, kRoughnessScaleRange);
}

Expected<Pyramid> BuildPyramid(const Terrain& source, const PyramidBuildOptions& options,
                               const BuildProgress& progress) {
    if (source.nx < 2 || source.ny < 2) {
        return Error{fmt::format("terrain '{}' has {} x {} posts; a pyramid needs at least 2 x 2",
                                 source.name, source.nx, source.ny)};
    }
    if (auto ok = CheckBuildOptions(options); !ok) return ok.error();
    for (double spacingM : {source.spacingXM, source.spacingYM}) {
        if (auto ok = common::CheckRange("terrain '" + source.name + "': post spacing", spacingM,
                                         kPostSpacingRangeM);
            !ok) {
            return ok.error();
        }
    }
    Pyramid pyramid;
    PyramidInfo& info = pyramid.info;
    info.name = source.name;
    info.geo = source.geo;
    info.dataWidthM = source.WidthM();
    info.dataDepthM = source.DepthM();
    info.sourceSpacingM = std::min(source.spacingXM, source.spacingYM);
    int finest = 0;
    while (kTileCells * options.finestSpacingM * std::ldexp(1.0, finest) <
           std::max(info.dataWidthM, info.dataDepthM)) {
        if (++finest >= kMaxLevels) {
            double minimumM = std::max(info.dataWidthM, info.dataDepthM) /
                              (kTileCells * std::ldexp(1.0, kMaxLevels - 1));
            double digitM = std::pow(10.0, std::floor(std::log10(minimumM)) - 2);
            minimumM = std::ceil(minimumM / digitM) * digitM;  // 3 digits, rounded up
            return Error{fmt::format(
                "terrain '{}' ({:.0f} x {:.0f} m) needs more than {} levels at a finest spacing "
                "of {} m: the finest spacing must be >= {:g} m for it",
                source.name, info.dataWidthM, info.dataDepthM, kMaxLevels, options.finestSpacingM,
                minimumM)};
        }
    }
    info.geometry = {kTileCells * options.finestSpacingM * std::ldexp(1.0, finest), finest + 1};
    int stored = 0;
    while (stored < finest && info.geometry.SpacingM(stored) > info.sourceSpacingM * (1 + 1e-9)) {
        ++stored;
    }
    info.storedLevels = stored + 1;
    info.roughness = MeasureRoughness(source);
    info.roughness.sigmaM *= options.roughnessScale;
    info.roughness.seed = options.seed;

    long long total = 0;
    for (int level = 0; level <= stored; ++level) {
        long long n = info.geometry.TilesPerSide(level) * kTileCells + 1 + 2 * kTileBorder;
        total += n * n;
    }
    long long done = 0;
    std::vector<LevelGrid> grids(info.storedLevels);
    grids[stored] = SampleSource(source, info.geometry, stored, progress, done, total);
    for (int level = stored - 1; level >= 0; --level) {
        grids[level] = Downsample(grids[level + 1]);
        long long n = grids[level].n;
        if (progress) progress(done += n * n, total);
    }
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    for (const LevelGrid& grid : grids) {
        auto [mn, mx] = std::minmax_element(grid.heightsM.begin(), grid.heightsM.end());
        lo = std::min(lo, *mn);
        hi = std::max(hi, *mx);
    }
    // Room for the fractal levels: four standard deviations of every level's displacement.
    double marginM = 1.0;
    for (int level = info.storedLevels; level < info.geometry.levelCount; ++level) {
        marginM += 4.0 * info.roughness.AmplitudeM(info.geometry.SpacingM(level));
    }
    info.coding.offsetM = 0.5 * (static_cast<double>(lo) + hi);
    info.coding.scaleM = std::max((hi - lo + 2.0 * marginM) / 65534.0, 1e-3);
    info.minHeightM = info.coding.Decode(info.coding.Encode(lo));
    info.maxHeightM = info.coding.Decode(info.coding.Encode(hi));
    for (const LevelGrid& grid : grids) CutTiles(grid, info.coding, pyramid.tiles);
    return pyramid;
}

namespace {

// How one axis of a child post is predicted from its parent level: an even post is its
// parent; an odd one the 4-point interpolating subdivision of Dyn, Levin and Gregory,
// (-1, 9, 9, -1) / 16 over the four nearest parents, which joins levels with C1 smoothness
// (bilinear prediction would leave creases along every parent cell edge). Local indices
// into the parent tile.
struct AxisStencil {
    int first = 0;  // local index of the first parent
    int taps = 1;   // 1 or 4
    static constexpr double kWeights[4] = {-1.0 / 16, 9.0 / 16, 9.0 / 16, -1.0 / 16};
};

AxisStencil StencilFor(int global, int parentOrigin) {
    if ((global & 1) == 0) return {(global >> 1) - parentOrigin, 1};
    return {((global - 1) >> 1) - 1 - parentOrigin, 4};
}

}  // namespace

TilePosts RefineTile(const PyramidInfo& info, const TilePosts& parent, const TileKey& child) {
    BFV_CHECK(child.level > 0 && child.Parent() == parent.key);
    BFV_CHECK(parent.codes.size() == static_cast<std::size_t>(kTilePostCount));
    std::vector<double> parentM(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k) parentM[k] = info.coding.Decode(parent.codes[k]);
    double amplitudeM = info.roughness.AmplitudeM(info.geometry.SpacingM(child.level));
    int parentOriginX = parent.key.tx * kTileCells - kTileBorder;
    int parentOriginY = parent.key.ty * kTileCells - kTileBorder;
    TilePosts tile{child, std::vector<std::int16_t>(kTilePostCount)};
    for (int b = 0; b < kTilePosts; ++b) {
        int gj = child.ty * kTileCells + b - kTileBorder;
        AxisStencil sy = StencilFor(gj, parentOriginY);
        for (int a = 0; a < kTilePosts; ++a) {
            int gi = child.tx * kTileCells + a - kTileBorder;
            AxisStencil sx = StencilFor(gi, parentOriginX);
            double heightM = 0.0;
            for (int v = 0; v < sy.taps; ++v) {
                double wy = sy.taps == 1 ? 1.0 : AxisStencil::kWeights[v];
                const double* row = &parentM[(sy.first + v) * kTilePosts + sx.first];
                double along = 0.0;
                for (int u = 0; u < sx.taps; ++u) {
                    along += (sx.taps == 1 ? 1.0 : AxisStencil::kWeights[u]) * row[u];
                }
                heightM += wy * along;
            }
            if ((gi | gj) & 1) {
                heightM += amplitudeM * Displacement(info.roughness.seed, child.level, gi, gj);
            }
            tile.codes[b * kTilePosts + a] = info.coding.Encode(heightM);
        }
    }
    return tile;
}

int PinnedLevels(const PyramidInfo& info) { return std::min(info.storedLevels, kMaxPinnedLevels); }

std::uint64_t TilesBelowLevel(int levelCount) {
    return ((std::uint64_t{1} << (2 * levelCount)) - 1) / 3;
}

long long TileIndex(int levelCount, const TileKey& key) {
    if (key.level < 0 || key.level >= levelCount) return -1;
    long long perSide = 1LL << key.level;
    bool inside = key.tx >= 0 && key.ty >= 0 && key.tx < perSide && key.ty < perSide;
    if (!inside) return -1;
    return static_cast<long long>(TilesBelowLevel(key.level)) + key.ty * perSide + key.tx;
}

int Pyramid::StoredIndex(const TileKey& key) const {
    return static_cast<int>(TileIndex(info.storedLevels, key));
}

}  // namespace bfv::terrain
