// bfv_make_dem OUTPUT.tif [POSTS] [SPACING_M] [voids|rgb]: writes a synthetic DEM as a tiled
// Float32 GeoTIFF for the large-import benchmark (bench/large_import.sh): POSTS x POSTS posts
// (default 20000) SPACING_M metres apart (default 25) in UTM zone 13N, north-up; with "voids",
// nodata -32768 (SRTM's) over discs of 3 to 40 posts' radius, one in every 1000 x 1000 posts.
// With "rgb" it writes instead imagery of the same place: an 8-bit RGB GeoTIFF whose pixels
// tint the height (green valleys, brown slopes, grey and white tops) with patches of value
// noise, to drape over the DEM (`bfv import --texture`). The
// heights are fractal value noise, 11 octaves from 51 km down to 50 m wavelength with amplitudes
// falling as wavelength^0.8 (like real terrain's), 0 to about 3000 m: mountains, valleys and small
// relief for the importer's roughness to measure. Written a strip of tiles at a time, so this tool
// holds one strip, not the DEM.

#include <cpl_conv.h>
#include <fmt/format.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kTileSide = 256;  // GeoTIFF block side, posts
constexpr int kOctaves = 11;
constexpr double kLongestWavelengthM = 51200.0;
constexpr double kHurst = 0.8;

/// A value in [-1, 1] hashed from a lattice point and an octave (splitmix64).
double LatticeValue(std::int64_t x, std::int64_t y, int octave) {
    std::uint64_t z = static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull ^
                      static_cast<std::uint64_t>(y) * 0xC2B2AE3D27D4EB4Full ^
                      static_cast<std::uint64_t>(octave) << 56;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

/// Smoothly interpolated value noise of one octave at lattice coordinates (u, v).
double ValueNoise(double u, double v, int octave) {
    double fu = std::floor(u), fv = std::floor(v);
    auto x = static_cast<std::int64_t>(fu), y = static_cast<std::int64_t>(fv);
    double a = u - fu, b = v - fv;
    a = a * a * (3.0 - 2.0 * a);
    b = b * b * (3.0 - 2.0 * b);
    double south = LatticeValue(x, y, octave) +
                   (LatticeValue(x + 1, y, octave) - LatticeValue(x, y, octave)) * a;
    double north = LatticeValue(x, y + 1, octave) +
                   (LatticeValue(x + 1, y + 1, octave) - LatticeValue(x, y + 1, octave)) * a;
    return south + (north - south) * b;
}

/// Height in metres at (xM, yM) metres from the DEM's north-west corner.
float HeightM(double xM, double yM) {
    static const std::vector<double> amplitudesM = [] {
        std::vector<double> a;
        for (int octave = 0; octave < kOctaves; ++octave)
            a.push_back(1200.0 * std::pow(0.5, kHurst * octave));
        return a;
    }();
    double heightM = 0.0, wavelengthM = kLongestWavelengthM;
    for (int octave = 0; octave < kOctaves; ++octave, wavelengthM *= 0.5) {
        heightM += amplitudesM[octave] * ValueNoise(xM / wavelengthM, yM / wavelengthM, octave);
    }
    return static_cast<float>(std::max(0.0, heightM + 1200.0));
}

/// Whether post (c, r) falls in a void: a disc in each 1000 x 1000 block of posts, of a
/// radius and place hashed from the block.
bool InVoid(int c, int r) {
    constexpr int kBlock = 1000;
    int bx = c / kBlock, by = r / kBlock;
    double u = 0.5 * (LatticeValue(bx, by, 100) + 1.0), v = 0.5 * (LatticeValue(bx, by, 101) + 1.0);
    double radius = 3.0 + 37.0 * 0.5 * (LatticeValue(bx, by, 102) + 1.0);
    double cx = bx * kBlock + 100.0 + u * 800.0, cy = by * kBlock + 100.0 + v * 800.0;
    return (c - cx) * (c - cx) + (r - cy) * (r - cy) < radius * radius;
}

constexpr double kVoidHeight = -32768.0;

/// Imagery's colour at (xM, yM): the height's tint (green to brown to grey to white over 0 to
/// 3000 m) darkened or lightened by 200 m patches of value noise.
std::array<std::uint8_t, 3> ColourAt(double xM, double yM) {
    constexpr std::array<std::array<double, 3>, 4> tint{
        {{70, 110, 50}, {130, 110, 70}, {120, 120, 115}, {235, 235, 240}}};
    double t = std::clamp(HeightM(xM, yM) / 1000.0, 0.0, 2.999);
    int k = static_cast<int>(t);
    double f = t - k, patch = 1.0 + 0.25 * ValueNoise(xM / 200.0, yM / 200.0, 50);
    std::array<std::uint8_t, 3> rgb{};
    for (int c = 0; c < 3; ++c) {
        double v = (tint[k][c] + (tint[k + 1][c] - tint[k][c]) * f) * patch;
        rgb[c] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
    }
    return rgb;
}

int Fail(const std::string& message) {
    fmt::print(stderr, "bfv_make_dem: {}\n", message);
    return 1;
}

/// Creates `path`, a tiled GeoTIFF of posts x posts pixels in `bands` bands of `type`,
/// `spacingM` metres apart in UTM zone 13N, north-up; null (with GDAL's message) on failure.
GDALDatasetUniquePtr CreateGeoTiff(const std::string& path, int posts, double spacingM, int bands,
                                   GDALDataType type) {
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    char** createOptions = nullptr;
    createOptions = CSLSetNameValue(createOptions, "TILED", "YES");
    createOptions = CSLSetNameValue(createOptions, "BLOCKXSIZE", std::to_string(kTileSide).c_str());
    createOptions = CSLSetNameValue(createOptions, "BLOCKYSIZE", std::to_string(kTileSide).c_str());
    createOptions = CSLSetNameValue(createOptions, "BIGTIFF", "IF_SAFER");
    GDALDatasetUniquePtr dataset(
        gtiff->Create(path.c_str(), posts, posts, bands, type, createOptions));
    CSLDestroy(createOptions);
    if (!dataset) return dataset;
    double geoTransform[6] = {500000.0, spacingM, 0.0, 4000000.0 + posts * spacingM,
                              0.0,      -spacingM};
    dataset->SetGeoTransform(geoTransform);
    OGRSpatialReference utm;
    utm.importFromEPSG(32613);
    dataset->SetSpatialRef(&utm);
    return dataset;
}

/// Writes the imagery (ColourAt) into the 3 bands of `dataset`, a strip of tiles at a time.
/// Returns false on a failed write.
bool WriteImagery(GDALDataset& dataset, int posts, double spacingM) {
    std::vector<std::uint8_t> pixels;
    for (int r0 = 0; r0 < posts; r0 += kTileSide) {
        int rows = std::min(kTileSide, posts - r0);
        pixels.resize(static_cast<std::size_t>(rows) * posts * 3);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < posts; ++c) {
                auto colour = ColourAt((c + 0.5) * spacingM, (r0 + r + 0.5) * spacingM);
                std::copy(colour.begin(), colour.end(),
                          &pixels[(static_cast<std::size_t>(r) * posts + c) * 3]);
            }
        }
        bool written = dataset.RasterIO(GF_Write, 0, r0, posts, rows, pixels.data(), posts, rows,
                                        GDT_Byte, 3, nullptr, 3, 3 * posts, 1, nullptr) == CE_None;
        for (int b = 1; b <= 3; ++b) {
            written = written && dataset.GetRasterBand(b)->FlushCache() == CE_None;
        }
        if (!written) return false;
    }
    return true;
}

/// Writes the heights (HeightM, and kVoidHeight in the voids if `voids`) into band 1 of
/// `dataset`, a strip of tiles at a time. Returns false on a failed write.
bool WriteHeights(GDALDataset& dataset, int posts, double spacingM, bool voids) {
    GDALRasterBand* band = dataset.GetRasterBand(1);
    band->SetUnitType("m");
    if (voids) band->SetNoDataValue(kVoidHeight);
    std::vector<float> strip;
    for (int r0 = 0; r0 < posts; r0 += kTileSide) {
        int rows = std::min(kTileSide, posts - r0);
        strip.resize(static_cast<std::size_t>(rows) * posts);
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < posts; ++c) {
                strip[static_cast<std::size_t>(r) * posts + c] =
                    voids && InVoid(c, r0 + r)
                        ? static_cast<float>(kVoidHeight)
                        : HeightM((c + 0.5) * spacingM, (r0 + r + 0.5) * spacingM);
            }
        }
        if (band->RasterIO(GF_Write, 0, r0, posts, rows, strip.data(), posts, rows, GDT_Float32, 0,
                           0) != CE_None ||
            band->FlushCache() != CE_None) {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc == 5 ? argv[4] : "";
    if (argc < 2 || argc > 5 || (argc == 5 && mode != "voids" && mode != "rgb")) {
        return Fail("usage: bfv_make_dem OUTPUT.tif [POSTS (20000)] [SPACING_M (25)] [voids|rgb]");
    }
    bool voids = mode == "voids", rgb = mode == "rgb";
    std::string path = argv[1];
    int posts = argc > 2 ? std::atoi(argv[2]) : 20000;
    double spacingM = argc > 3 ? std::atof(argv[3]) : 25.0;
    if (posts < 2 || posts > 65536 || !(spacingM > 0.0)) {
        return Fail("POSTS must be 2..65536 and SPACING_M > 0");
    }
    GDALAllRegister();
    GDALDatasetUniquePtr dataset =
        CreateGeoTiff(path, posts, spacingM, rgb ? 3 : 1, rgb ? GDT_Byte : GDT_Float32);
    if (!dataset) return Fail(fmt::format("cannot create '{}': {}", path, CPLGetLastErrorMsg()));
    bool written = rgb ? WriteImagery(*dataset, posts, spacingM)
                       : WriteHeights(*dataset, posts, spacingM, voids);
    if (!written) return Fail(fmt::format("cannot write '{}': {}", path, CPLGetLastErrorMsg()));
    dataset.reset();
    if (rgb) {
        fmt::print("wrote {}: {} x {} pixels of imagery, {} m apart\n", path, posts, posts,
                   spacingM);
    } else {
        fmt::print("wrote {}: {} x {} posts, {} m apart{}\n", path, posts, posts, spacingM,
                   voids ? ", with voids" : "");
    }
    return 0;
}
