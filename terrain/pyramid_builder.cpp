#include "terrain/pyramid_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "common/check.h"

namespace bfv::terrain {

TerrainRows::TerrainRows(const Terrain& terrain)
    : terrain_(terrain), grid_{terrain.name,      terrain.nx,        terrain.ny,
                               terrain.spacingXM, terrain.spacingYM, terrain.geo} {}

TerrainRows::TerrainRows(Terrain&& terrain)
    : owned_(std::make_unique<const Terrain>(std::move(terrain))),
      terrain_(*owned_),
      grid_{terrain_.name,      terrain_.nx,        terrain_.ny,
            terrain_.spacingXM, terrain_.spacingYM, terrain_.geo} {}

int TerrainRows::StripRows(int j0) const { return std::min(64, grid_.ny - j0); }

Expected<void> TerrainRows::ReadRows(int j0, int count, std::span<float> heightsM) {
    std::size_t nx = static_cast<std::size_t>(grid_.nx);
    BFV_CHECK(j0 >= 0 && count >= 0 && j0 + count <= grid_.ny);
    BFV_CHECK(heightsM.size() == nx * static_cast<std::size_t>(count));
    auto first = terrain_.heightsM.begin() + static_cast<std::ptrdiff_t>(nx * j0);
    std::copy(first, first + static_cast<std::ptrdiff_t>(heightsM.size()), heightsM.begin());
    return {};
}

namespace {

// Hurst exponents of real terrain lie around 0.5 to 0.85; a DEM that was itself smoothed or
// interpolated measures higher, which would leave its refinement without fine detail.
constexpr double kMinHurst = 0.2;
constexpr double kMaxHurst = 0.85;

/// The sum of squared midpoint residuals (post minus the mean of its 4 neighbours `stride`
/// posts away) over a DEM's rows, added a row at a time, south to north.
class ResidualSum {
  public:
    explicit ResidualSum(int stride) : stride_(stride) {}
    int Stride() const { return stride_; }
    /// Adds the residuals of `row` (nx posts), whose neighbour rows `stride` rows south and
    /// north are `south` and `north`.
    void AddRow(const float* south, const float* row, const float* north, int nx) {
        for (int i = stride_; i + stride_ < nx; ++i) {
            double mean = 0.25 * (row[i - stride_] + row[i + stride_] + south[i] + north[i]);
            double r = row[i] - mean;
            sum_ += r * r;
            ++count_;
        }
    }
    /// Root mean square of the residuals added, metres (0 when none were).
    double Rms() const { return count_ > 0 ? std::sqrt(sum_ / static_cast<double>(count_)) : 0.0; }

  private:
    int stride_;
    double sum_ = 0.0;
    long long count_ = 0;
};

/// The roughness the residual sums at strides 1 and 2 measure (see MeasureRoughness).
Roughness RoughnessOf(const ResidualSum& fine, const ResidualSum& coarse, double spacingM) {
    Roughness roughness;
    roughness.referenceSpacingM = spacingM;
    roughness.sigmaM = fine.Rms();
    double coarser = coarse.Rms();
    if (roughness.sigmaM > 0.0 && coarser > 0.0) {
        roughness.hurst = std::clamp(std::log2(coarser / roughness.sigmaM), kMinHurst, kMaxHurst);
    }
    return roughness;
}

/// Calls the caller's progress with a count of posts done over the whole build.
class ProgressCount {
  public:
    ProgressCount(const BuildProgress& progress, long long total)
        : progress_(progress), total_(total) {}
    void Add(long long posts) {
        done_ += posts;
        if (progress_) progress_(done_, total_);
    }

  private:
    const BuildProgress& progress_;
    long long done_ = 0;
    long long total_;
};

/// Posts per side of `level`'s grid over the whole pyramid, border included.
int LevelPosts(const PyramidGeometry& geometry, int level) {
    return geometry.TilesPerSide(level) * kTileCells + 1 + 2 * kTileBorder;
}

/// A strip of consecutive source rows, [First(), End()), read north as the build goes.
class SourceWindow {
  public:
    explicit SourceWindow(PostRowSource& source) : source_(source), nx_(source.Grid().nx) {}
    int End() const { return end_; }
    /// Row j's heights (nx); the row must be held.
    const float* Row(int j) const {
        BFV_CHECK(j >= first_ && j < end_);
        return rows_.data() + static_cast<std::size_t>(j - first_) * nx_;
    }
    /// Forgets the rows south of row j.
    void DropBelow(int j) {
        j = std::min(j, end_);
        if (j <= first_) return;
        rows_.erase(rows_.begin(), rows_.begin() + static_cast<std::ptrdiff_t>(j - first_) * nx_);
        first_ = j;
    }
    /// Reads the next strip of rows and returns their heights. Requires End() < ny.
    Expected<std::span<const float>> ReadStrip() {
        int count = source_.StripRows(end_);
        BFV_CHECK(count >= 1 && end_ + count <= source_.Grid().ny);
        std::size_t held = rows_.size();
        rows_.resize(held + static_cast<std::size_t>(count) * nx_);
        std::span<float> strip = std::span(rows_).subspan(held);
        if (auto read = source_.ReadRows(end_, count, strip); !read) return read.error();
        end_ += count;
        return std::span<const float>(strip);
    }

  private:
    PostRowSource& source_;
    std::size_t nx_;
    int first_ = 0;
    int end_ = 0;
    std::vector<float> rows_;  // rows first_ .. end_ - 1
};

/// One stored level's posts over the whole pyramid, border included (global posts
/// -kTileBorder .. n - 1 - kTileBorder on each axis), held a few rows at a time.
struct LevelRows {
    int level = 0;
    int n = 0;                 // posts per side
    int first = -kTileBorder;  // global row of rows.front()
    std::deque<std::vector<float>> rows;
    int nextTileRow = 0;               // ty of the next row of tiles to cut
    int nextCoarseRow = -kTileBorder;  // the next row of level - 1 to filter from these

    int LastRow() const { return n - 1 - kTileBorder; }
    int End() const { return first + static_cast<int>(rows.size()); }
    /// Global row g, clamped into the grid; the row must be held.
    const std::vector<float>& Row(int g) const {
        g = std::clamp(g, -kTileBorder, LastRow());
        BFV_CHECK(g >= first && g < End());
        return rows[static_cast<std::size_t>(g - first)];
    }
};

/// Row `c` of the level above `fine`: the [1 2 1] x [1 2 1] / 16 filter of `fine` at its even
/// posts, `coarseN` posts; posts past the grid's edge clamp to it.
std::vector<float> FilterRow(const LevelRows& fine, int c, int coarseN) {
    static constexpr float kWeights[3] = {1.0f, 2.0f, 1.0f};
    const std::vector<float>* rows[3] = {&fine.Row(2 * c - 1), &fine.Row(2 * c),
                                         &fine.Row(2 * c + 1)};
    std::vector<float> out(static_cast<std::size_t>(coarseN));
    for (int i = -kTileBorder; i < coarseN - kTileBorder; ++i) {
        float sum = 0.0f;
        for (int b = -1; b <= 1; ++b) {
            const std::vector<float>& row = *rows[b + 1];
            for (int a = -1; a <= 1; ++a) {
                int column = std::clamp(2 * i + a + kTileBorder, 0, fine.n - 1);
                sum += kWeights[a + 1] * kWeights[b + 1] * row[column];
            }
        }
        out[i + kTileBorder] = sum / 16.0f;
    }
    return out;
}

/// The tiles of row `ty` of `level`'s grid, coded. Requires the rows they cover.
std::vector<TilePosts> CutTileRow(const LevelRows& level, int ty, const HeightCoding& coding) {
    int tiles = 1 << level.level;
    std::vector<TilePosts> out;
    out.reserve(static_cast<std::size_t>(tiles));
    for (int tx = 0; tx < tiles; ++tx) {
        TilePosts tile{{level.level, tx, ty}, std::vector<std::int16_t>(kTilePostCount)};
        for (int b = 0; b < kTilePosts; ++b) {
            const std::vector<float>& row = level.Row(ty * kTileCells + b - kTileBorder);
            for (int a = 0; a < kTilePosts; ++a) {
                tile.codes[b * kTilePosts + a] = coding.Encode(row[tx * kTileCells + a]);
            }
        }
        out.push_back(std::move(tile));
    }
    return out;
}

/// The stored levels built row by row from the finest one up: each row of a level is
/// measured, its finished tile rows are cut (when a coding is given) and the rows of the level
/// above it filters are made, and the rows none of that needs any more are dropped.
class LevelCascade {
  public:
    /// `coding` and `sink` null: measure only (the first pass).
    LevelCascade(const PyramidGeometry& geometry, int storedLevels, const HeightCoding* coding,
                 TileSink* sink, ProgressCount& progress)
        : coding_(coding), sink_(sink), progress_(progress) {
        for (int level = 0; level < storedLevels; ++level) {
            LevelRows rows;
            rows.level = level;
            rows.n = LevelPosts(geometry, level);
            levels_.push_back(std::move(rows));
        }
    }

    /// Adds the next row of `level` (a row of the finest stored level, from the caller).
    Expected<void> Push(int level, std::vector<float> row) {
        LevelRows& rows = levels_[static_cast<std::size_t>(level)];
        auto [lo, hi] = std::minmax_element(row.begin(), row.end());
        range_.minM = std::min(range_.minM, *lo);
        range_.maxM = std::max(range_.maxM, *hi);
        rows.rows.push_back(std::move(row));
        progress_.Add(rows.n);
        int last = rows.End() - 1;
        int tileRows = coding_ != nullptr ? 1 << level : 0;
        for (; rows.nextTileRow < tileRows &&
               rows.nextTileRow * kTileCells + kTilePosts - 1 - kTileBorder <= last;
             ++rows.nextTileRow) {
            std::vector<TilePosts> tiles = CutTileRow(rows, rows.nextTileRow, *coding_);
            if (auto put = sink_->PutTileRow(tiles); !put) return put;
        }
        int coarseRows = 0;
        if (level > 0) {
            const LevelRows& coarse = levels_[static_cast<std::size_t>(level) - 1];
            coarseRows = coarse.LastRow() + 1;
            for (; rows.nextCoarseRow < coarseRows &&
                   std::min(2 * rows.nextCoarseRow + 1, rows.LastRow()) <= last;
                 ++rows.nextCoarseRow) {
                std::vector<float> filtered = FilterRow(rows, rows.nextCoarseRow, coarse.n);
                if (auto pushed = Push(level - 1, std::move(filtered)); !pushed) return pushed;
            }
        }
        int keep = rows.LastRow() + 1;
        if (rows.nextTileRow < tileRows) {
            keep = std::min(keep, rows.nextTileRow * kTileCells - kTileBorder);
        }
        if (rows.nextCoarseRow < coarseRows) keep = std::min(keep, 2 * rows.nextCoarseRow - 1);
        for (; rows.first < keep && !rows.rows.empty(); ++rows.first) rows.rows.pop_front();
        return {};
    }

    /// The lowest and highest post of every row pushed so far, metres.
    HeightRange Range() const { return range_; }

  private:
    const HeightCoding* coding_;
    TileSink* sink_;
    ProgressCount& progress_;
    std::vector<LevelRows> levels_;
    HeightRange range_{std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()};
};

/// What the first pass measures on the source besides the levels: the residual sums of the
/// roughness and the source's height range.
struct SourceMeasures {
    ResidualSum fine{1};
    ResidualSum coarse{2};
    HeightRange heightsM{std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()};

    /// Adds the residuals of every row of `window` whose neighbours it now holds; `next` is the
    /// next row of each sum, advanced past them.
    void AddRows(const SourceWindow& window, int nx, int ny, int& nextFine, int& nextCoarse) {
        for (auto [sum, next] : {std::pair{&fine, &nextFine}, std::pair{&coarse, &nextCoarse}}) {
            int s = sum->Stride();
            for (; *next + s < ny && *next + s < window.End(); ++*next) {
                sum->AddRow(window.Row(*next - s), window.Row(*next), window.Row(*next + s), nx);
            }
        }
    }
};

/// One pass over `source`, south to north: samples the finest stored level's rows bilinearly
/// and pushes them through `cascade`; with `measures`, measures the source too.
Expected<void> RunPass(PostRowSource& source, const PyramidGeometry& geometry, int finestStored,
                       LevelCascade& cascade, SourceMeasures* measures) {
    const SourceGrid& grid = source.Grid();
    double spacingM = geometry.SpacingM(finestStored);
    int n = LevelPosts(geometry, finestStored);
    std::vector<PostSpan> columns(static_cast<std::size_t>(n));
    for (int i = -kTileBorder; i < n - kTileBorder; ++i) {
        columns[i + kTileBorder] = PostSpanAt(i * spacingM, grid.spacingXM, grid.nx);
    }
    SourceWindow window(source);
    int nextFine = 1, nextCoarse = 2;  // the next rows of the residual sums
    for (int g = -kTileBorder;;) {     // g: the next row of the finest stored level
        if (measures != nullptr) measures->AddRows(window, grid.nx, grid.ny, nextFine, nextCoarse);
        for (; g < n - kTileBorder; ++g) {
            PostSpan y = PostSpanAt(g * spacingM, grid.spacingYM, grid.ny);
            if (y.index + 1 >= window.End()) break;
            const float* south = window.Row(y.index);
            const float* north = window.Row(y.index + 1);
            std::vector<float> row(static_cast<std::size_t>(n));
            for (int k = 0; k < n; ++k) {
                row[k] = static_cast<float>(BilinearRows(south, north, columns[k], y.fraction));
            }
            if (auto pushed = cascade.Push(finestStored, std::move(row)); !pushed) return pushed;
        }
        if (window.End() == grid.ny) return {};
        int keep =
            g < n - kTileBorder ? PostSpanAt(g * spacingM, grid.spacingYM, grid.ny).index : grid.ny;
        if (measures != nullptr) keep = std::min({keep, nextFine - 1, nextCoarse - 2});
        window.DropBelow(keep);
        Expected<std::span<const float>> strip = window.ReadStrip();
        if (!strip) return strip.error();
        if (measures != nullptr) {
            auto [lo, hi] = std::minmax_element(strip->begin(), strip->end());
            measures->heightsM.minM = std::min(measures->heightsM.minM, *lo);
            measures->heightsM.maxM = std::max(measures->heightsM.maxM, *hi);
        }
    }
}

/// The header of the pyramid of `grid` but for what the source's heights decide (coding,
/// height range, roughness). Errors: see BuildPyramid.
Expected<PyramidInfo> PlanPyramid(const SourceGrid& grid, const PyramidBuildOptions& options) {
    if (grid.nx < 2 || grid.ny < 2) {
        return Error{fmt::format("terrain '{}' has {} x {} posts; a pyramid needs at least 2 x 2",
                                 grid.name, grid.nx, grid.ny)};
    }
    if (auto ok = CheckBuildOptions(options); !ok) return ok.error();
    for (double spacingM : {grid.spacingXM, grid.spacingYM}) {
        if (auto ok = common::CheckRange("terrain '" + grid.name + "': post spacing", spacingM,
                                         kPostSpacingRangeM);
            !ok) {
            return ok.error();
        }
    }
    PyramidInfo info;
    info.name = grid.name;
    info.geo = grid.geo;
    info.dataWidthM = grid.nx * grid.spacingXM;
    info.dataDepthM = grid.ny * grid.spacingYM;
    info.sourceSpacingM = std::min(grid.spacingXM, grid.spacingYM);
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
                grid.name, info.dataWidthM, info.dataDepthM, kMaxLevels, options.finestSpacingM,
                minimumM)};
        }
    }
    info.geometry = {kTileCells * options.finestSpacingM * std::ldexp(1.0, finest), finest + 1};
    int stored = 0;
    while (stored < finest && info.geometry.SpacingM(stored) > info.sourceSpacingM * (1 + 1e-9)) {
        ++stored;
    }
    info.storedLevels = stored + 1;
    return info;
}

/// Fixes the height coding of `info` from the stored levels' height range: room for the
/// fractal levels below them, four standard deviations of every level's displacement.
void SetHeightCoding(PyramidInfo& info, HeightRange storedM) {
    double marginM = 1.0;
    for (int level = info.storedLevels; level < info.geometry.levelCount; ++level) {
        marginM += 4.0 * info.roughness.AmplitudeM(info.geometry.SpacingM(level));
    }
    float lo = storedM.minM, hi = storedM.maxM;
    info.coding.offsetM = 0.5 * (static_cast<double>(lo) + hi);
    info.coding.scaleM = std::max((hi - lo + 2.0 * marginM) / 65534.0, 1e-3);
    info.minHeightM = info.coding.Decode(info.coding.Encode(lo));
    info.maxHeightM = info.coding.Decode(info.coding.Encode(hi));
}

/// A TileSink that collects the tiles into a Pyramid.
class PyramidCollector final : public TileSink {
  public:
    explicit PyramidCollector(Pyramid& pyramid) : pyramid_(pyramid) {}
    Expected<void> Start(const PyramidInfo& info) override {
        pyramid_.info = info;
        pyramid_.tiles.resize(TilesBelowLevel(info.storedLevels));
        return {};
    }
    Expected<void> PutTileRow(std::span<const TilePosts> tiles) override {
        for (const TilePosts& tile : tiles) {
            pyramid_.tiles[static_cast<std::size_t>(pyramid_.StoredIndex(tile.key))] = tile;
        }
        return {};
    }

  private:
    Pyramid& pyramid_;
};

}  // namespace

Roughness MeasureRoughness(const Terrain& source) {
    BFV_CHECK(source.nx >= 2 && source.ny >= 2);
    ResidualSum fine(1), coarse(2);
    for (ResidualSum* sum : {&fine, &coarse}) {
        int s = sum->Stride();
        for (int j = s; j + s < source.ny; ++j) {
            auto row = [&](int r) {
                return &source.heightsM[static_cast<std::size_t>(r) * source.nx];
            };
            sum->AddRow(row(j - s), row(j), row(j + s), source.nx);
        }
    }
    return RoughnessOf(fine, coarse, std::min(source.spacingXM, source.spacingYM));
}

Expected<PyramidBuild> BuildPyramidFromRows(PostRowSource& source,
                                            const PyramidBuildOptions& options, TileSink& sink,
                                            const BuildProgress& progress) {
    Expected<PyramidInfo> planned = PlanPyramid(source.Grid(), options);
    if (!planned) return planned.error();
    PyramidInfo& info = *planned;
    int finestStored = info.storedLevels - 1;
    long long levelPosts = 0;
    for (int level = 0; level < info.storedLevels; ++level) {
        long long n = LevelPosts(info.geometry, level);
        levelPosts += n * n;
    }
    ProgressCount count(progress, 2 * levelPosts);
    SourceMeasures measures;
    LevelCascade measured(info.geometry, info.storedLevels, nullptr, nullptr, count);
    if (auto ok = RunPass(source, info.geometry, finestStored, measured, &measures); !ok) {
        return ok.error();
    }
    const SourceGrid& grid = source.Grid();
    info.roughness =
        RoughnessOf(measures.fine, measures.coarse, std::min(grid.spacingXM, grid.spacingYM));
    info.roughness.sigmaM *= options.roughnessScale;
    info.roughness.seed = options.seed;
    SetHeightCoding(info, measured.Range());
    if (auto started = sink.Start(info); !started) return started.error();
    LevelCascade cut(info.geometry, info.storedLevels, &info.coding, &sink, count);
    if (auto ok = RunPass(source, info.geometry, finestStored, cut, nullptr); !ok) {
        return ok.error();
    }
    return PyramidBuild{info, measures.heightsM};
}

Expected<Pyramid> BuildPyramid(const Terrain& source, const PyramidBuildOptions& options,
                               const BuildProgress& progress) {
    TerrainRows rows(source);
    Pyramid pyramid;
    PyramidCollector collector(pyramid);
    if (auto built = BuildPyramidFromRows(rows, options, collector, progress); !built) {
        return built.error();
    }
    return pyramid;
}

}  // namespace bfv::terrain
