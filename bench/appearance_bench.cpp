// The ground's appearance in figures (issue 29), on the shipped terrain (or --terrain FILE), each
// view rendered as `bfv render --sequential --headless --frames 1 --flight VIEW.json` renders its
// first frame (the same start-up cache, the first view's tiles all streamed, the same cast):
//   relief   from 1500 m above the ground at pitch -20 deg (headings 0 and 180): Pearson's r
//            between each terrain pixel's luminance (Rec. 709 luma of its sRGB) and GDAL's
//            hillshade of the finest stored level under the same sun (`gdaldem hillshade
//            -az 315 -alt 45`) at the pixel's ground point; the luminance's variance that the
//            hillshade explains (r^2 var) against the rest (the land cover's). Target r >= 0.7,
//            the land cover's variance never larger than the relief's. Also the same within
//            bands of distance, where the haze (which brightens far ground whatever its relief)
//            is about constant.
//   sky      300 m up at pitch -10 and 0 (heading 0): per channel, the largest difference
//            between vertically adjacent sky pixels, and the share of adjacent sky pairs that
//            differ by more than 1 level in a channel. Target: at most 1 level.
// Every figure is given for this build's own frame and for any PNG of the same view passed with
// --image-before VIEW=FILE (an older bfv's `bfv render` of the flight file that --write-flights
// writes: the pinhole geometry has not changed, so a pixel sees the same ground point);
// --image-check VIEW=FILE compares this build's frame with the current `bfv render`'s PNG.
//   build/bench/bfv_appearance_bench --help

#include <gdal_priv.h>
#include <gdal_utils.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "common/fan.h"
#include "common/flight.h"
#include "common/pixel.h"
#include "common/render_options.h"
#include "display/display_rank.h"
#include "display/frame.h"
#include "raytracer/ray_caster.h"
#include "raytracer/tracer_rank.h"
#include "terrain-server/local_tile_server.h"
#include "terrain-server/tile_scheduler.h"
#include "terrain/pinned_ground.h"
#include "terrain/pyramid_file.h"
#include "terrain/terrain_startup.h"
#include "terrain/tile_pyramid.h"
#include "terrain/water.h"

namespace {

using namespace bfv;

constexpr double kDegToRad = std::numbers::pi / 180.0;

const char* const kUsage =
    "Usage: bfv_appearance_bench [--terrain FILE] [--write-flights DIR]\n"
    "                            [--image-before VIEW=FILE.png]... [--image-check "
    "VIEW=FILE.png]...\n"
    "Prints the ground's appearance figures of issue 29 for each view (relief-h0, relief-h180:\n"
    "1500 m above the ground, pitch -20 deg, headings 0 and 180; sky-p-10, sky-p0: 300 m up,\n"
    "pitch -10 and 0, heading 0), 1280x720, 60 deg, every other render option at its default\n"
    "(sun azimuth 315, elevation 45), as `bfv render --sequential --headless --frames 1` renders\n"
    "the view's first frame.\n"
    "  --terrain FILE          the terrain pyramid (default: the shipped " BFV_DEFAULT_TERRAIN
    ")\n"
    "  --write-flights DIR     write each view's flight file DIR/VIEW.json and print the\n"
    "                          `bfv render` command that renders it to DIR/VIEW/frame_00000.png\n"
    "  --image-before VIEW=F   also give VIEW's figures for PNG F (e.g. an older bfv's render)\n"
    "  --image-check VIEW=F    compare this build's frame of VIEW with PNG F (the current\n"
    "                          `bfv render`'s): mean and max difference per channel, levels\n"
    "  --help                  this text\n";

// An error message on stderr and exit code 1.
[[noreturn]] void Exit(const std::string& message) {
    std::fprintf(stderr, "bfv_appearance_bench: %s\n", message.c_str());
    std::exit(1);
}

template <typename T>
T OrExit(Expected<T> value) {
    if (!value) Exit(value.error().message);
    return std::move(*value);
}

void OrExit(const Expected<void>& done) {
    if (!done) Exit(done.error().message);
}

// What the command line asks for.
struct Arguments {
    std::string terrainPath = BFV_DEFAULT_TERRAIN;
    std::string flightsDir;                     // "": write no flight files
    std::map<std::string, std::string> before;  // view name -> PNG
    std::map<std::string, std::string> check;   // view name -> PNG
};

// "VIEW=FILE" into `into`; exits on anything else.
void AddViewImage(const std::string& option, const std::string& value,
                  std::map<std::string, std::string>& into) {
    auto eq = value.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
        Exit(option + " wants VIEW=FILE.png, got '" + value + "'");
    into[value.substr(0, eq)] = value.substr(eq + 1);
}

Arguments ParseArguments(int argc, char** argv) {
    Arguments args;
    for (int i = 1; i < argc; ++i) {
        std::string option = argv[i];
        if (option == "--help" || option == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (i + 1 >= argc) Exit("unknown option or missing value: '" + option + "' (see --help)");
        std::string value = argv[++i];
        if (option == "--terrain") {
            args.terrainPath = value;
        } else if (option == "--write-flights") {
            args.flightsDir = value;
        } else if (option == "--image-before") {
            AddViewImage(option, value, args.before);
        } else if (option == "--image-check") {
            AddViewImage(option, value, args.check);
        } else {
            Exit("unknown option '" + option + "' (see --help)");
        }
    }
    return args;
}

// A view the figures are measured at: the pose's height above the ground under the eye (as
// `bfv render --agl` places it), pitch and heading, at the data area's centre.
struct View {
    std::string name;
    double aglM, pitchDeg, headingDeg;
    bool relief;  // relief figures (true) or sky figures (false)
};

const std::vector<View>& Views() {
    static const std::vector<View> views = {{"relief-h0", 1500.0, -20.0, 0.0, true},
                                            {"relief-h180", 1500.0, -20.0, 180.0, true},
                                            {"sky-p-10", 300.0, -10.0, 0.0, false},
                                            {"sky-p0", 300.0, 0.0, 0.0, false}};
    return views;
}

// The terrain as `bfv render --sequential` opens it, with the default render options.
struct Terrain {
    common::RenderOptions options;
    terrain::PyramidFile file;
    std::unique_ptr<terrain::TerrainStartup> startup;
    std::unique_ptr<terrain::PinnedGround> ground;
};

std::unique_ptr<Terrain> OpenTerrain(const std::string& path) {
    if (!std::filesystem::exists(path))
        Exit("terrain file '" + path + "' does not exist (give one with --terrain FILE.bfvp)");
    auto file = terrain::PyramidFile::Open(path);
    if (!file) Exit("terrain file '" + path + "': " + file.error().message);
    auto t = std::make_unique<Terrain>(Terrain{{}, std::move(*file), nullptr, nullptr});
    t->options.terrain.terrainPath = path;
    t->options.pipeline.sequential = true;
    t->options.output.headless = true;
    t->options.output.frames = 1;
    t->startup =
        std::make_unique<terrain::TerrainStartup>(OrExit(terrain::ReadTerrainStartup(t->file)));
    terrain::Exaggerate(*t->startup, t->options.shading.exaggeration);
    const common::ShadingOptions& shading = t->options.shading;
    t->ground = std::make_unique<terrain::PinnedGround>(
        *t->startup,
        terrain::WaterLevelM(shading.DrawnSeaLevelM(), shading.water, t->startup->info));
    return t;
}

common::CameraPose PoseOf(const Terrain& t, const View& view) {
    const terrain::PyramidInfo& info = t.file.Info();
    double xM = 0.5 * info.dataWidthM, yM = 0.5 * info.dataDepthM;
    double groundM = display::FlightGround(*t.ground)(xM, yM);
    return {
        {xM, yM, groundM + view.aglM}, view.headingDeg * kDegToRad, view.pitchDeg * kDegToRad, 0.0};
}

// One rendered view: its frame (column-major, heightPx rows a column, as display::Frame) and per
// pixel the horizontal distance to its hit (< 0: sky) and the hit's ground point.
struct Render {
    common::ScreenSpec screen;
    std::vector<common::Pixel> frame;
    std::vector<double> hitS;
    std::vector<double> groundXM, groundYM;
    std::vector<float> lambertShade;  // the caster's shade at the hit (hitShade), shade codes
};

// Renders `pose` as `bfv render --sequential` renders its first frame: a fresh start-up cache,
// every tile of the view streamed in at once, every plane cast with the options' settings.
Render RenderView(const Terrain& t, const common::CameraPose& pose) {
    const common::RenderOptions& options = t.options;
    raytracer::TileCache cache = raytracer::StartupCache(*t.startup, options.shading);
    terrain_server::LocalTileServer server(t.file, terrain_server::SchedulerOptionsFrom(options),
                                           options.terrain.terrainBudgetBytesPerS);
    std::vector<std::byte> records;
    OrExit(server.ServeFrame(0, pose, 0.0, options.terrain.WaitsForTiles(0), records));
    OrExit(raytracer::ApplyLocalStream(records, cache, 0));
    Render r{options.view.screen, {}, {}, {}, {}, {}};
    const std::size_t pixels = static_cast<std::size_t>(r.screen.widthPx) * r.screen.heightPx;
    r.frame.resize(pixels);
    r.hitS.assign(pixels, -1.0);
    r.groundXM.assign(pixels, 0.0);
    r.groundYM.assign(pixels, 0.0);
    r.lambertShade.assign(pixels, 0.0f);
    common::FanLayout fan = common::BuildFanLayout(r.screen, pose.pitchRad);
    raytracer::CastSettings settings = raytracer::CastSettingsFrom(options.shading);
    raytracer::FrameRays rays = raytracer::FrameRaysOf(cache, pose, fan, settings);
    raytracer::ColumnScratch scratch;
    for (int p = 0; p < fan.PlaneCount(); ++p) {
        raytracer::CastPlane(cache, rays, p, settings, {0, 1, r.screen.widthPx}, scratch,
                             r.frame.data());
        int start = fan.planeStart[p], rows = fan.planeStart[p + 1] - start;
        raytracer::TracePlane(cache, rays, p,
                              {fan.pixelSlope.data() + start, static_cast<std::size_t>(rows)},
                              settings, scratch);
        common::HorizontalDirection dir = common::PlaneDirection(fan, p, pose.headingRad);
        for (int row = 0; row < rows; ++row) {
            std::size_t i = fan.pixelIndex[start + row];
            double s = scratch.hitS[row];
            r.hitS[i] = s;
            r.groundXM[i] = pose.eyeM.x + s * dir.dirX;
            r.groundYM[i] = pose.eyeM.y + s * dir.dirY;
            r.lambertShade[i] = scratch.hitShade[row];
        }
    }
    return r;
}

// A PNG read into a frame laid out as Render::frame (column-major); exits if it cannot be read
// or is not `screen`'s size.
std::vector<common::Pixel> ReadPng(const std::string& path, const common::ScreenSpec& screen) {
    int w = 0, h = 0, channels = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> rgb(
        stbi_load(path.c_str(), &w, &h, &channels, 3), stbi_image_free);
    if (!rgb) Exit("cannot read PNG '" + path + "': " + stbi_failure_reason());
    if (w != screen.widthPx || h != screen.heightPx) {
        Exit("PNG '" + path + "' is " + std::to_string(w) + "x" + std::to_string(h) +
             ", the views are " + std::to_string(screen.widthPx) + "x" +
             std::to_string(screen.heightPx));
    }
    std::vector<common::Pixel> frame(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = rgb.get() + 3 * (static_cast<std::size_t>(y) * w + x);
            frame[static_cast<std::size_t>(x) * h + y] = {p[0], p[1], p[2]};
        }
    }
    return frame;
}

// Rec. 709 luma of an sRGB pixel, 0..255 (ITU-R BT.709 weights on the gamma-encoded channels).
double Luma709(const common::Pixel& p) { return 0.2126 * p.r + 0.7152 * p.g + 0.0722 * p.b; }

// GDAL's hillshade of the finest stored level's posts: a raster with a post at every pixel
// centre, row 0 at the north edge, and Sample for any ground point.
class Hillshade {
  public:
    // The posts of level `level` of `cache` (TileCache::HeightAtM at the level's spacing over
    // the data area) in an in-memory GeoTIFF, through GDALDEMProcessing's "hillshade" with
    // `gdaldem hillshade -az AZ -alt ALT -compute_edges` (values 1..255).
    Hillshade(const raytracer::TileCache& cache, int level, double azimuthDeg,
              double elevationDeg) {
        const terrain::PyramidInfo& info = cache.Info();
        spacingM_ = info.geometry.SpacingM(level);
        columns_ = static_cast<int>(std::ceil(info.dataWidthM / spacingM_)) + 1;
        rows_ = static_cast<int>(std::ceil(info.dataDepthM / spacingM_)) + 1;
        northM_ = (rows_ - 1) * spacingM_;
        std::vector<float> heightsM(static_cast<std::size_t>(columns_) * rows_);
        for (int j = 0; j < rows_; ++j) {
            for (int i = 0; i < columns_; ++i) {
                heightsM[static_cast<std::size_t>(j) * columns_ + i] = static_cast<float>(
                    cache.HeightAtM(level, i * spacingM_, northM_ - j * spacingM_));
            }
        }
        values_ = Shade(heightsM, azimuthDeg, elevationDeg);
    }

    // The hillshade at ground point (xM, yM), bilinear between the four posts around it (clamped
    // into the raster), 1..255.
    double Sample(double xM, double yM) const {
        double u = std::clamp(xM / spacingM_, 0.0, columns_ - 1.0);
        double v = std::clamp((northM_ - yM) / spacingM_, 0.0, rows_ - 1.0);
        int i = std::min(static_cast<int>(u), columns_ - 2),
            j = std::min(static_cast<int>(v), rows_ - 2);
        double fu = u - i, fv = v - j;
        auto at = [&](int a, int b) { return values_[static_cast<std::size_t>(b) * columns_ + a]; };
        return (1 - fv) * ((1 - fu) * at(i, j) + fu * at(i + 1, j)) +
               fv * ((1 - fu) * at(i, j + 1) + fu * at(i + 1, j + 1));
    }

    double SpacingM() const { return spacingM_; }

  private:
    std::vector<float> Shade(std::vector<float>& heightsM, double azimuthDeg,
                             double elevationDeg) const {
        GDALAllRegister();
        GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
        if (!mem) Exit("GDAL has no MEM driver");
        GDALDataset* dem = mem->Create("", columns_, rows_, 1, GDT_Float32, nullptr);
        double transform[6] = {-0.5 * spacingM_,          spacingM_, 0.0,
                               northM_ + 0.5 * spacingM_, 0.0,       -spacingM_};
        dem->SetGeoTransform(transform);
        if (dem->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, columns_, rows_, heightsM.data(),
                                            columns_, rows_, GDT_Float32, 0, 0) != CE_None)
            Exit("GDAL could not write the DEM");
        std::string az = std::to_string(azimuthDeg), alt = std::to_string(elevationDeg);
        const char* argv[] = {
            "-of", "MEM", "-az", az.c_str(), "-alt", alt.c_str(), "-compute_edges", nullptr};
        GDALDEMProcessingOptions* options =
            GDALDEMProcessingOptionsNew(const_cast<char**>(argv), nullptr);
        int usageError = 0;
        GDALDatasetH shaded =
            GDALDEMProcessing("", dem, "hillshade", nullptr, options, &usageError);
        GDALDEMProcessingOptionsFree(options);
        if (!shaded || usageError) Exit("GDALDEMProcessing hillshade failed");
        std::vector<float> values(static_cast<std::size_t>(columns_) * rows_);
        if (GDALRasterIO(GDALGetRasterBand(shaded, 1), GF_Read, 0, 0, columns_, rows_,
                         values.data(), columns_, rows_, GDT_Float32, 0, 0) != CE_None)
            Exit("GDAL could not read the hillshade");
        GDALClose(shaded);
        GDALClose(dem);
        return values;
    }

    double spacingM_ = 0.0, northM_ = 0.0;
    int columns_ = 0, rows_ = 0;
    std::vector<float> values_;
};

// Pearson's correlation of pairs added one by one, and the variance of the second variable.
struct Correlation {
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;

    void Add(double x, double y) {
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        syy += y * y;
        sxy += x * y;
    }
    double R() const {
        double cxy = sxy - sx * sy / n, cxx = sxx - sx * sx / n, cyy = syy - sy * sy / n;
        return cxy / std::sqrt(cxx * cyy);
    }
    double VarianceY() const { return (syy - sy * sy / n) / n; }
};

// Whether pixel `i` of `render` hits the terrain inside the data area.
bool HitsData(const Render& render, std::size_t i, const terrain::PyramidInfo& info) {
    double x = render.groundXM[i], y = render.groundYM[i];
    return render.hitS[i] >= 0 && x >= 0 && y >= 0 && x <= info.dataWidthM && y <= info.dataDepthM;
}

// The ceiling the colours are measured against: the caster's own shade at each hit
// (ColumnScratch::hitShade, before colour and haze) against the hillshade. Near 1 when the hits'
// ground points and the hillshade's raster line up.
void CasterShadeFigure(const Render& render, const Hillshade& shade,
                       const terrain::PyramidInfo& info) {
    Correlation c;
    for (std::size_t i = 0; i < render.frame.size(); ++i) {
        if (HitsData(render, i, info))
            c.Add(shade.Sample(render.groundXM[i], render.groundYM[i]), render.lambertShade[i]);
    }
    std::printf("  %-28s r %.3f (the caster's shade at the hit: alignment check)\n",
                "caster's shade", c.R());
}

// The relief figures of `frame` (laid out as render.frame): luma against the hillshade at every
// pixel whose hit lies inside the data area.
void ReliefFigures(const char* label, const Render& render, const std::vector<common::Pixel>& frame,
                   const Hillshade& shade, const terrain::PyramidInfo& info) {
    Correlation c;
    for (std::size_t i = 0; i < frame.size(); ++i) {
        if (HitsData(render, i, info))
            c.Add(shade.Sample(render.groundXM[i], render.groundYM[i]), Luma709(frame[i]));
    }
    double r = c.R(), var = c.VarianceY();
    std::printf(
        "  %-28s hits %8.0f  r %.3f  luma variance %7.1f: relief (r^2 var) %7.1f, land cover "
        "and the rest ((1-r^2) var) %7.1f  %s\n",
        label, c.n, r, var, r * r * var, (1 - r * r) * var,
        r >= 0.7 && r * r >= 0.5 ? "[meets r >= 0.7, relief >= rest]" : "[misses the target]");
    // The haze brightens the ground with distance whatever the relief, over 2 to 30 km here: the
    // same figures within bands of distance (each a sixteenth of the hits, nearest first), where
    // the haze is about constant, pooled (the variances weighted by the bands' hits).
    std::vector<std::pair<double, std::size_t>> byDistance;
    for (std::size_t i = 0; i < frame.size(); ++i) {
        if (HitsData(render, i, info)) byDistance.push_back({render.hitS[i], i});
    }
    std::sort(byDistance.begin(), byDistance.end());
    constexpr int kBands = 16;
    double relief = 0.0, rest = 0.0;
    for (int b = 0; b < kBands; ++b) {
        Correlation band;
        for (std::size_t k = byDistance.size() * b / kBands;
             k < byDistance.size() * (b + 1) / kBands; ++k) {
            std::size_t i = byDistance[k].second;
            band.Add(shade.Sample(render.groundXM[i], render.groundYM[i]), Luma709(frame[i]));
        }
        double rb = band.R(), vb = band.VarianceY() * band.n;
        relief += rb * rb * vb;
        rest += (1 - rb * rb) * vb;
    }
    double pooledR = std::sqrt(relief / std::max(relief + rest, 1e-9));
    std::printf(
        "  %-28s r %.3f  relief %7.1f, land cover and the rest %7.1f (within %d distance "
        "bands: the haze held about constant)  %s\n",
        "  ... within distance bands", pooledR, relief / c.n, rest / c.n, kBands,
        pooledR >= 0.7 && relief >= rest ? "[meets r >= 0.7, relief >= rest]"
                                         : "[misses the target]");
}

// The sky figures of `frame`: over each column's vertically adjacent pairs of sky pixels (both
// rows' rays miss the terrain), the largest difference per channel and the share of pairs
// differing by more than 1 level in some channel.
void SkyFigures(const char* label, const Render& render, const std::vector<common::Pixel>& frame) {
    const int w = render.screen.widthPx, h = render.screen.heightPx;
    int maxDiff[3] = {0, 0, 0};
    long long pairs = 0, beyondOne = 0;
    for (int x = 0; x < w; ++x) {
        for (int y = 0; y + 1 < h; ++y) {
            std::size_t i = static_cast<std::size_t>(x) * h + y;
            if (render.hitS[i] >= 0 || render.hitS[i + 1] >= 0) continue;
            const common::Pixel &a = frame[i], &b = frame[i + 1];
            int d[3] = {std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)};
            for (int k = 0; k < 3; ++k) maxDiff[k] = std::max(maxDiff[k], d[k]);
            ++pairs;
            beyondOne += std::max({d[0], d[1], d[2]}) > 1;
        }
    }
    double share = pairs ? 100.0 * static_cast<double>(beyondOne) / static_cast<double>(pairs) : 0;
    std::printf(
        "  %-28s sky pairs %8lld  max adjacent difference r %d g %d b %d levels  pairs > 1 "
        "level %.2f%%  %s\n",
        label, pairs, maxDiff[0], maxDiff[1], maxDiff[2], share,
        std::max({maxDiff[0], maxDiff[1], maxDiff[2]}) <= 1 ? "[meets <= 1 level]"
                                                            : "[misses the target]");
}

// Mean and largest difference per channel between this build's frame and the PNG of `bfv render`.
void CheckFigures(const Render& render, const std::vector<common::Pixel>& png) {
    double sum = 0;
    int maxDiff = 0;
    long long differing = 0;
    for (std::size_t i = 0; i < png.size(); ++i) {
        const common::Pixel &a = render.frame[i], &b = png[i];
        differing += !(a == b);
        for (int d : {std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)}) {
            sum += d;
            maxDiff = std::max(maxDiff, d);
        }
    }
    std::printf(
        "  check: this build's frame vs bfv render's PNG: mean %.4f max %d levels, %lld pixels "
        "differ\n",
        sum / (3.0 * static_cast<double>(png.size())), maxDiff, differing);
}

// Writes `pose` as the flight file DIR/VIEW.json, prints the `bfv render` command for it and
// returns the pose as read back from the file (as `bfv render --flight` reads it: the same bits).
common::CameraPose WriteFlight(const std::string& dir, const View& view,
                               const common::CameraPose& pose, const Terrain& t,
                               const std::string& terrainPath) {
    std::filesystem::create_directories(dir);
    std::string path = dir + "/" + view.name + ".json";
    std::ofstream(path) << common::RecordedFlightJson({pose});
    common::Flight flight = OrExit(common::LoadFlightFile(path, display::FlightGround(*t.ground)));
    std::printf(
        "  render: bfv render --sequential --headless --frames 1 --terrain %s --flight %s "
        "--out %s/%s\n",
        terrainPath.c_str(), path.c_str(), dir.c_str(), view.name.c_str());
    return flight.PoseAt(0.0);
}

}  // namespace

int main(int argc, char** argv) {
    Arguments args = ParseArguments(argc, argv);
    for (const auto* images : {&args.before, &args.check}) {
        for (const auto& [name, path] : *images) {
            if (std::none_of(Views().begin(), Views().end(),
                             [&](const View& v) { return v.name == name; }))
                Exit("no view named '" + name + "' (see --help)");
            if (!std::filesystem::exists(path)) Exit("PNG '" + path + "' does not exist");
        }
    }
    auto t = OpenTerrain(args.terrainPath);
    const terrain::PyramidInfo& info = t->file.Info();
    const common::ShadingOptions& shading = t->options.shading;
    const int level = info.storedLevels - 1;
    std::unique_ptr<Hillshade> hillshade;
    std::printf("terrain %s; sun azimuth %.0f deg, elevation %.0f deg; %dx%d, %.0f deg\n",
                args.terrainPath.c_str(), shading.sunAzimuthDeg, shading.sunElevationDeg,
                t->options.view.screen.widthPx, t->options.view.screen.heightPx,
                t->options.view.screen.hFovRad / kDegToRad);
    for (const View& view : Views()) {
        common::CameraPose pose = PoseOf(*t, view);
        std::printf(
            "view %s: eye (%.1f, %.1f, %.1f) m (%.0f m above the ground), heading %.0f "
            "deg, pitch %.0f deg\n",
            view.name.c_str(), pose.eyeM.x, pose.eyeM.y, pose.eyeM.z, view.aglM, view.headingDeg,
            view.pitchDeg);
        if (!args.flightsDir.empty())
            pose = WriteFlight(args.flightsDir, view, pose, *t, args.terrainPath);
        Render render = RenderView(*t, pose);
        if (view.relief && !hillshade) {
            // The start-up cache holds every tile of the stored levels (PinnedLevels).
            if (level >= terrain::PinnedLevels(info))
                Exit("the finest stored level is not pinned: its posts are not all at hand");
            raytracer::TileCache cache = raytracer::StartupCache(*t->startup, shading);
            hillshade = std::make_unique<Hillshade>(cache, level, shading.sunAzimuthDeg,
                                                    shading.sunElevationDeg);
        }
        auto figures = [&](const char* label, const std::vector<common::Pixel>& frame) {
            if (view.relief)
                ReliefFigures(label, render, frame, *hillshade, info);
            else
                SkyFigures(label, render, frame);
        };
        if (view.relief) CasterShadeFigure(render, *hillshade, info);
        figures("this build", render.frame);
        if (auto it = args.before.find(view.name); it != args.before.end())
            figures("before (PNG)", ReadPng(it->second, render.screen));
        if (auto it = args.check.find(view.name); it != args.check.end())
            CheckFigures(render, ReadPng(it->second, render.screen));
    }
    return 0;
}
