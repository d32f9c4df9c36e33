#include "terrain/drape.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "common/colour.h"
#include "terrain/gdal_import.h"
#include "tests/gdal_raster.h"
#include "tests/temp_dir.h"

namespace bfv::terrain {
namespace {

using common::Rgb;
using test_support::RasterSpec;
using test_support::TempDir;
using test_support::WriteImage;

bool Same(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

// A photo-like image: a gradient of hues over the unit square plus noise of +-30 levels per
// channel that changes every 1/512 of it (a pixel).
Rgb PhotoLike(double u, double v) {
    // Through a signed integer: u and v may lie a little outside [0, 1] at the image's edges.
    auto px = static_cast<std::uint32_t>(static_cast<std::int64_t>(std::floor(u * 512.0)));
    auto py = static_cast<std::uint32_t>(static_cast<std::int64_t>(std::floor(v * 512.0)));
    std::uint32_t h = px * 73856093u ^ py * 19349663u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    auto channel = [&](double base, int shift) {
        double noise = static_cast<int>(h >> shift & 63u) - 31.5;
        return static_cast<std::uint8_t>(std::clamp(std::lround(base + noise), 0L, 255L));
    };
    return {channel(40.0 + 180.0 * u, 0), channel(60.0 + 150.0 * v, 8),
            channel(200.0 - 150.0 * u * v, 16)};
}

std::vector<Rgb> PhotoLikeSamples(int side) {
    std::vector<Rgb> samples;
    for (int y = 0; y < side; ++y) {
        for (int x = 0; x < side; ++x)
            samples.push_back(PhotoLike((x + 0.5) / side, (y + 0.5) / side));
    }
    return samples;
}

TEST(BuildPalette, KeepsAFewDistinctColoursExactly) {
    std::vector<Rgb> two(100, Rgb{10, 200, 30});
    two.resize(150, Rgb{220, 40, 180});
    EXPECT_EQ(BuildPalette(two), (std::vector<Rgb>{{10, 200, 30}, {220, 40, 180}}));
    EXPECT_EQ(BuildPalette(std::vector<Rgb>(5, Rgb{1, 2, 3})), (std::vector<Rgb>{{1, 2, 3}}));
}

TEST(BuildPalette, IsDeterministicWhateverTheSamplesOrder) {
    std::vector<Rgb> samples = PhotoLikeSamples(256);
    std::vector<Rgb> palette = BuildPalette(samples);
    EXPECT_GT(palette.size(), 200u);
    EXPECT_LE(palette.size(), std::size_t(kMaxPaletteColours));
    std::reverse(samples.begin(), samples.end());
    EXPECT_EQ(BuildPalette(samples), palette);
    EXPECT_EQ(BuildPalette(samples, 16).size(), 16u);
}

TEST(NearestColour, FindsThePaletteColourNearestInCielab) {
    std::vector<Rgb> palette = BuildPalette(PhotoLikeSamples(128), 64);
    std::vector<std::array<float, 3>> labs;
    for (Rgb c : palette) {
        common::Lab lab = common::SrgbToLab(c);
        labs.push_back({float(lab.l), float(lab.a), float(lab.b)});
    }
    NearestColour nearest(labs);
    PaletteIndex index(palette);
    for (int r = 0; r < 256; r += 17) {
        for (int g = 0; g < 256; g += 15) {
            for (int b = 0; b < 256; b += 51) {
                common::Lab lab =
                    common::SrgbToLab({std::uint8_t(r), std::uint8_t(g), std::uint8_t(b)});
                std::array<float, 3> query{float(lab.l), float(lab.a), float(lab.b)};
                float best = 1e30f;
                for (const auto& p : labs) {
                    float d2 = 0.0f;
                    for (int c = 0; c < 3; ++c) d2 += (p[c] - query[c]) * (p[c] - query[c]);
                    best = std::min(best, d2);
                }
                const auto& found = labs[nearest.Nearest(query)];
                float d2 = 0.0f;
                for (int c = 0; c < 3; ++c) d2 += (found[c] - query[c]) * (found[c] - query[c]);
                ASSERT_EQ(d2, best) << r << "," << g << "," << b;
                ASSERT_EQ(index.Of({std::uint8_t(r), std::uint8_t(g), std::uint8_t(b)}),
                          nearest.Nearest(query));
            }
        }
    }
}

// Imagery given by a function of (u, v), the centre of each cell; or failing.
class FunctionImagery final : public Imagery {
  public:
    explicit FunctionImagery(std::function<Rgb(double, double)> colour, bool fail = false)
        : colour_(std::move(colour)), fail_(fail) {}
    Expected<void> Sample(double u0, double v0, double du, double dv, int columns, int rows,
                          std::vector<Rgb>& out) override {
        if (fail_) return Error{"imagery 'x': cannot read"};
        out.clear();
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < columns; ++c) {
                out.push_back(colour_(u0 + (c + 0.5) * du, v0 + (r + 0.5) * dv));
            }
        }
        ++samples;
        return {};
    }
    std::string Placement() const override { return "by a function"; }
    std::array<double, 2> PixelsAcross() const override { return {pixelsAcross, pixelsAcross}; }
    double pixelsAcross = 100.0;
    int samples = 0;

  private:
    std::function<Rgb(double, double)> colour_;
    bool fail_;
};

// Keeps what it is given.
class KeepingSink final : public TileSink {
  public:
    Expected<void> Start(const PyramidInfo& started) override {
        info = started;
        return {};
    }
    Expected<void> PutTileRow(std::span<const TilePosts> row) override {
        tiles.insert(tiles.end(), row.begin(), row.end());
        return {};
    }
    PyramidInfo info;
    std::vector<TilePosts> tiles;
};

Terrain Slope(int nx, int ny, double spacingM) {
    Terrain t{"slope", nx, ny, spacingM, spacingM, {}, {}};
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) t.heightsM.push_back(static_cast<float>(100.0 + i + 0.5 * j));
    }
    return t;
}

TEST(DrapeSink, GivesTheHeaderThePaletteAndEveryPostItsImageryColoursIndex) {
    const Rgb west{200, 40, 40}, east{40, 40, 200};
    FunctionImagery imagery([&](double u, double) { return u < 0.5 ? west : east; });
    KeepingSink kept;
    DrapeSink drape(imagery, kept);
    Terrain terrain = Slope(300, 200, 10.0);
    TerrainRows rows(terrain);
    auto built = BuildPyramidFromRows(rows, {10.0, 1, 1.0}, drape);
    ASSERT_TRUE(built.ok()) << built.error().message;
    ASSERT_TRUE(kept.info.Textured());
    ASSERT_TRUE(drape.Info().Textured());
    ASSERT_EQ(kept.info.landColours, (std::vector<Rgb>{east, west}));  // in 0xRRGGBB order
    ASSERT_EQ(kept.tiles.size(), TilesBelowLevel(built->info.storedLevels));
    int checked = 0;
    for (const TilePosts& tile : kept.tiles) {
        ASSERT_EQ(tile.materials.size(), std::size_t(kTilePostCount));
        double spacingM = built->info.geometry.SpacingM(tile.key.level);
        for (int j = 0; j < kTilePosts; ++j) {
            for (int i = 0; i < kTilePosts; ++i) {
                double xM = TileOriginM(tile.key.tx, spacingM) + i * spacingM;
                double u = xM / built->info.dataWidthM;
                if (std::abs(u - 0.5) * built->info.dataWidthM < spacingM) continue;  // the edge
                EXPECT_EQ(kept.info.landColours[tile.materials[j * kTilePosts + i]],
                          u < 0.5 ? west : east)
                    << tile.key.ToString() << " post " << i << "," << j;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 1000);
}

TEST(DrapedLevelsFor, ReachesTheLevelWhosePostsMatchThePixels) {
    PyramidInfo info;
    info.geometry = {4096.0, 8};  // 64, 32, 16, 8, 4, 2, 1, 0.5 m posts
    info.storedLevels = 2;
    EXPECT_EQ(DrapedLevelsFor(info, 100.0), 2) << "coarser than the DEM: the stored levels";
    EXPECT_EQ(DrapedLevelsFor(info, 16.0), 3);
    EXPECT_EQ(DrapedLevelsFor(info, 10.0), 3);
    EXPECT_EQ(DrapedLevelsFor(info, 1.0), 7);
    EXPECT_EQ(DrapedLevelsFor(info, 0.01), 8) << "at most the level count";
}

// Imagery finer than the DEM: Start sets the draped levels from its pixels, PutDrapedLevels
// sends every tile of the draped fractal levels, a row at a time, with materials and no codes.
TEST(DrapeSink, PutsTheDrapedFractalLevelsTilesWithTheirImagery) {
    const Rgb west{200, 40, 40}, east{40, 40, 200};
    FunctionImagery imagery([&](double u, double) { return u < 0.5 ? west : east; });
    KeepingSink kept;
    std::vector<std::pair<long long, long long>> progress;
    DrapeSink drape(imagery, kept, [&](long long done, long long total) {
        progress.push_back({done, total});
    });
    Terrain terrain = Slope(300, 200, 10.0);
    TerrainRows rows(terrain);
    auto built = BuildPyramidFromRows(rows, {2.5, 1, 1.0}, drape);
    ASSERT_TRUE(built.ok()) << built.error().message;
    const PyramidInfo& info = drape.Info();
    imagery.pixelsAcross = info.dataWidthM / info.geometry.SpacingM(info.storedLevels + 1);
    ASSERT_EQ(info.drapedLevels, info.storedLevels);  // Start read 100 pixels across: coarse
    KeepingSink fine;
    DrapeSink fineDrape(imagery, fine, [&](long long done, long long total) {
        progress.push_back({done, total});
    });
    TerrainRows again(terrain);
    built = BuildPyramidFromRows(again, {2.5, 1, 1.0}, fineDrape);
    ASSERT_TRUE(built.ok()) << built.error().message;
    const PyramidInfo& fineInfo = fineDrape.Info();
    ASSERT_EQ(fineInfo.drapedLevels, fineInfo.storedLevels + 2);
    ASSERT_TRUE(fineDrape.PutDrapedLevels().ok());
    ASSERT_EQ(fine.tiles.size(), TilesBelowLevel(fineInfo.drapedLevels));
    long long draped = static_cast<long long>(TilesBelowLevel(fineInfo.drapedLevels) -
                                              TilesBelowLevel(fineInfo.storedLevels));
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), (std::pair{draped, draped}));
    for (std::size_t t = TilesBelowLevel(fineInfo.storedLevels); t < fine.tiles.size(); ++t) {
        const TilePosts& tile = fine.tiles[t];
        EXPECT_GE(tile.key.level, fineInfo.storedLevels);
        EXPECT_TRUE(tile.codes.empty());
        ASSERT_EQ(tile.materials.size(), std::size_t(kTilePostCount));
        if (tile.key.tx == 0) {
            EXPECT_EQ(fineInfo.landColours[tile.materials[kTilePosts * 10 + 10]], west)
                << tile.key.ToString();
        }
    }
}

TEST(DrapeSink, AnImageryErrorStopsTheBuild) {
    FunctionImagery imagery([](double, double) { return Rgb{}; }, true);
    KeepingSink kept;
    DrapeSink drape(imagery, kept);
    Terrain terrain = Slope(40, 30, 10.0);
    TerrainRows rows(terrain);
    auto built = BuildPyramidFromRows(rows, {10.0, 1, 1.0}, drape);
    ASSERT_FALSE(built.ok());
    EXPECT_EQ(built.error().message, "imagery 'x': cannot read");
    EXPECT_TRUE(kept.tiles.empty());
}

// A photo-like image draped over a DEM comes back within 5 CIEDE2000 of its colours, on average,
// at the posts of the finest draped level: mean and 95th percentile are printed.
TEST(DrapeSink, ReproducesAPhotoLikeImageWithinFiveDeltaE) {
    FunctionImagery imagery(PhotoLike);
    KeepingSink kept;
    DrapeSink drape(imagery, kept);
    Terrain terrain = Slope(600, 600, 5.0);
    TerrainRows rows(terrain);
    auto built = BuildPyramidFromRows(rows, {5.0, 1, 1.0}, drape);
    ASSERT_TRUE(built.ok()) << built.error().message;
    const PyramidInfo& info = kept.info;
    int finest = info.drapedLevels - 1;
    double spacingM = info.geometry.SpacingM(finest);
    std::vector<double> deltaE;
    for (const TilePosts& tile : kept.tiles) {
        if (tile.key.level != finest) continue;
        for (int j = 0; j < kTilePosts; ++j) {
            for (int i = 0; i < kTilePosts; ++i) {
                double u = (TileOriginM(tile.key.tx, spacingM) + i * spacingM) / info.dataWidthM;
                double v = (TileOriginM(tile.key.ty, spacingM) + j * spacingM) / info.dataDepthM;
                if (u < 0.0 || u >= 1.0 || v < 0.0 || v >= 1.0) continue;
                Rgb shown = info.landColours[tile.materials[j * kTilePosts + i]];
                deltaE.push_back(common::Ciede2000(common::SrgbToLab(PhotoLike(u, v)),
                                                   common::SrgbToLab(shown)));
            }
        }
    }
    ASSERT_GT(deltaE.size(), 100000u);
    std::sort(deltaE.begin(), deltaE.end());
    double mean = std::accumulate(deltaE.begin(), deltaE.end(), 0.0) / deltaE.size();
    double p95 = deltaE[deltaE.size() * 95 / 100];
    std::printf("photo-like image, %zu posts: CIEDE2000 mean %.2f, p95 %.2f, %zu colours\n",
                deltaE.size(), mean, p95, info.landColours.size());
    EXPECT_LT(mean, 5.0);
    EXPECT_LT(p95, 10.0);
}

// A red and white checkerboard draped through GDAL: every post is red, white or a mean of the
// two where its cell straddles squares (red 255, green = blue), never a third colour; the palette
// holds no other.
TEST(DrapeSink, ACheckerboardsPostsAreItsColoursOrTheirMeansOnly) {
    TempDir dir;
    RasterSpec spec;
    spec.nx = 60;
    spec.ny = 40;
    WriteImage(dir.File("checks.tif"), spec, [](int x, int y) {
        double other = (x / 5 + y / 5) % 2 == 0 ? 255.0 : 0.0;
        return std::array<double, 3>{255.0, other, other};
    });
    auto imagery = OpenGdalImagery(dir.File("checks.tif"), GeoExtent{});
    ASSERT_TRUE(imagery.ok()) << imagery.error().message;
    KeepingSink kept;
    DrapeSink drape(**imagery, kept);
    Terrain terrain = Slope(300, 200, 10.0);
    TerrainRows rows(terrain);
    auto built = BuildPyramidFromRows(rows, {10.0, 1, 1.0}, drape);
    ASSERT_TRUE(built.ok()) << built.error().message;
    for (Rgb c : kept.info.landColours) {
        EXPECT_TRUE(c.r == 255 && c.g == c.b) << int(c.r) << "," << int(c.g) << "," << int(c.b);
    }
    int red = 0, white = 0;
    for (const TilePosts& tile : kept.tiles) {
        for (std::uint8_t index : tile.materials) {
            Rgb c = kept.info.landColours[index];
            red += c == Rgb{255, 0, 0};
            white += c == Rgb{255, 255, 255};
        }
    }
    EXPECT_GT(red, 10000);
    EXPECT_GT(white, 10000);
}

// Quadrants of an image: south-west red, south-east blue, north-west green, north-east white.
const Rgb kSouthWest{220, 20, 20}, kSouthEast{20, 20, 220}, kNorthWest{20, 220, 20},
    kNorthEast{250, 250, 250};
const GeoExtent kDemGeo{-84.4, -84.0, 36.4, 36.7};

// A 120 x 100 lon/lat image over lon -84.5..-83.9, lat 36.3..36.8 (0.005 deg pixels) whose
// quadrants split at the DEM's centre (lon -84.2, lat 36.55); rows run north to south unless
// `southUp`.
void WriteQuadrants(const std::string& path, bool southUp = false, bool georeferenced = true) {
    RasterSpec spec;
    spec.nx = 120;
    spec.ny = 100;
    if (georeferenced) {
        spec.geoTransform = southUp ? test_support::GeoTransform{-84.5, 0.005, 0, 36.3, 0, 0.005}
                                    : test_support::GeoTransform{-84.5, 0.005, 0, 36.8, 0, -0.005};
        spec.epsg = 4326;
    }
    WriteImage(path, spec, [&](int x, int y) {
        bool north = southUp ? y >= 50 : y < 50;
        bool eastHalf = x >= 60;
        Rgb c = north ? (eastHalf ? kNorthEast : kNorthWest) : (eastHalf ? kSouthEast : kSouthWest);
        return std::array<double, 3>{double(c.r), double(c.g), double(c.b)};
    });
}

void ExpectQuadrants(Imagery& imagery) {
    std::vector<Rgb> out;
    auto ok = imagery.Sample(0.0, 0.0, 0.5, 0.5, 2, 2, out);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    ASSERT_EQ(out.size(), 4u);
    EXPECT_TRUE(Same(out[0], kSouthWest));
    EXPECT_TRUE(Same(out[1], kSouthEast));
    EXPECT_TRUE(Same(out[2], kNorthWest));
    EXPECT_TRUE(Same(out[3], kNorthEast));
}

// WriteQuadrants to DIR/NAME, opened as imagery over a DEM at `demGeo` (null on failure).
std::unique_ptr<Imagery> OpenQuadrants(const TempDir& dir, const std::string& name,
                                       const GeoExtent& demGeo, bool southUp = false,
                                       bool georeferenced = true) {
    WriteQuadrants(dir.File(name), southUp, georeferenced);
    auto imagery = OpenGdalImagery(dir.File(name), demGeo);
    EXPECT_TRUE(imagery.ok()) << imagery.error().message;
    return imagery.ok() ? std::move(*imagery) : nullptr;
}

TEST(GdalImagery, IsPlacedByTheRastersLonLatExtents) {
    TempDir dir;
    auto imagery = OpenQuadrants(dir, "q.tif", kDemGeo);
    ASSERT_NE(imagery, nullptr);
    ExpectQuadrants(*imagery);
    EXPECT_EQ(imagery->Placement(), "placed by its georeference");
    auto southUp = OpenQuadrants(dir, "south-up.tif", kDemGeo, true);
    ASSERT_NE(southUp, nullptr);
    ExpectQuadrants(*southUp);
}

// A cell's colour is the mean of the imagery under it: averaged by GDAL where the cell spans a
// few pixels, from 8 x 8 samples where it spans many (a coarse tile over a large image).
TEST(GdalImagery, ACellIsTheMeanOfThePixelsUnderIt) {
    TempDir dir;
    auto imagery = OpenQuadrants(dir, "q.tif", kDemGeo);
    ASSERT_NE(imagery, nullptr);
    const Rgb half{120, 20, 120};  // kSouthWest and kSouthEast in equal parts
    std::vector<Rgb> out;
    constexpr double kPixelU = 1.0 / 80.0;  // the DEM is 80 pixels of the imagery across
    ASSERT_TRUE(imagery->Sample(0.5 - 2 * kPixelU, 0.1, 4 * kPixelU, 0.05, 1, 1, out).ok());
    EXPECT_TRUE(Same(out[0], half))
        << int(out[0].r) << "," << int(out[0].g) << "," << int(out[0].b);
    ASSERT_TRUE(imagery->Sample(0.25, 0.0, 0.5, 0.4, 1, 1, out).ok());  // 40 x 24 pixels
    EXPECT_TRUE(Same(out[0], half))
        << int(out[0].r) << "," << int(out[0].g) << "," << int(out[0].b);
}

TEST(GdalImagery, WithoutAGeoreferenceIsStretchedOverTheDem) {
    TempDir dir;
    auto imagery = OpenQuadrants(dir, "plain.tif", kDemGeo, false, false);
    ASSERT_NE(imagery, nullptr);
    ExpectQuadrants(*imagery);  // the image's quadrants split at its centre, as the DEM's
    EXPECT_EQ(imagery->Placement(), "stretched over the DEM (the image has no georeference)");
    auto noDemGeo = OpenQuadrants(dir, "q.tif", GeoExtent{});
    ASSERT_NE(noDemGeo, nullptr);
    EXPECT_EQ(noDemGeo->Placement(), "stretched over the DEM (the DEM has no georeference)");
    std::vector<Rgb> out;
    ASSERT_TRUE(noDemGeo->Sample(0.0, 0.0, 0.25, 0.25, 4, 4, out).ok());
    EXPECT_TRUE(Same(out[0], kSouthWest));
    EXPECT_TRUE(Same(out[15], kNorthEast));
    auto neither = OpenQuadrants(dir, "plain.tif", GeoExtent{}, false, false);
    ASSERT_NE(neither, nullptr);
    EXPECT_EQ(neither->Placement(), "stretched over the DEM (neither has a georeference)");
}

TEST(GdalImagery, CellsOffTheImageryTakeTheNearestEdgeColour) {
    TempDir dir;
    auto imagery = OpenQuadrants(dir, "q.tif", kDemGeo);
    ASSERT_NE(imagery, nullptr);
    std::vector<Rgb> out;
    // Cells 1/2 of the DEM wide from u = -2 to 2; the imagery spans u = -0.25 to 1.25, its
    // colours split at u = 0.5: cells 0-2 lie off it to the west, 6 and 7 to the east.
    ASSERT_TRUE(imagery->Sample(-2.0, 0.0, 0.5, 0.5, 8, 1, out).ok());
    for (int c = 0; c < 5; ++c) EXPECT_TRUE(Same(out[c], kSouthWest)) << c;
    for (int c = 5; c < 8; ++c) EXPECT_TRUE(Same(out[c], kSouthEast)) << c;
    ASSERT_TRUE(imagery->Sample(5.0, 5.0, 0.5, 0.5, 2, 2, out).ok());  // far north-east
    for (const Rgb& c : out) EXPECT_TRUE(Same(c, kNorthEast));
}

TEST(GdalImagery, RefusesImageryItCannotDrape) {
    TempDir dir;
    WriteQuadrants(dir.File("q.tif"));
    auto elsewhere = OpenGdalImagery(dir.File("q.tif"), GeoExtent{10.0, 10.5, 50.0, 50.3});
    ASSERT_FALSE(elsewhere.ok());
    EXPECT_NE(elsewhere.error().message.find("which does not hold the DEM's area (lon 10.00000"),
              std::string::npos)
        << elsewhere.error().message;
    RasterSpec spec;
    spec.nx = spec.ny = 8;
    auto grey = [](int, int) { return std::array<double, 3>{100, 100, 100}; };
    WriteImage(dir.File("one.tif"), spec, grey, 1);
    auto one = OpenGdalImagery(dir.File("one.tif"), kDemGeo);
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.error().message,
              "imagery '" + dir.File("one.tif") +
                  "': 1 band, expected 3 (RGB) or 4 (RGBA); a paletted image converts with "
                  "`gdal_translate -expand rgb`");
    WriteImage(dir.File("deep.tif"), spec, grey, 3, GDT_UInt16);
    auto deep = OpenGdalImagery(dir.File("deep.tif"), kDemGeo);
    ASSERT_FALSE(deep.ok());
    EXPECT_NE(deep.error().message.find("band 1 is UInt16, expected 8-bit colour"),
              std::string::npos)
        << deep.error().message;
    auto missing = OpenGdalImagery(dir.File("none.tif"), kDemGeo);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("GDAL could not open"), std::string::npos);
    WriteImage(dir.File("rgba.tif"), spec, grey, 4);
    EXPECT_TRUE(OpenGdalImagery(dir.File("rgba.tif"), kDemGeo).ok());
}

}  // namespace
}  // namespace bfv::terrain
