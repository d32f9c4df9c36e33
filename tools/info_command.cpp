// `bfv info FILE`: describes a tile pyramid file (.bfvp) and verifies every tile's checksum.

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "terrain/pyramid_file.h"
#include "tools/commands.h"
#include "tools/format_bytes.h"

namespace bfv::tools {
namespace {

using terrain::PyramidFile;
using terrain::PyramidInfo;

struct InfoOptions {
    std::string path;   // the .bfvp to describe
    bool json = false;  // = false // print JSON instead of text
};

[[noreturn]] void Fail(const std::string& message) {
    fmt::print(stderr, "bfv info: {}\n", message);
    throw CLI::RuntimeError(1);
}

bool HasGeoreference(const terrain::GeoExtent& g) {
    return g.lonMinDeg != 0.0 || g.lonMaxDeg != 0.0 || g.latMinDeg != 0.0 || g.latMaxDeg != 0.0;
}

/// Shows a percentage on stderr while verifying, once it has taken a second and only when
/// stderr is a terminal (so logs and tests see no carriage returns).
class VerifyProgress {
  public:
    VerifyProgress() : show_(::isatty(STDERR_FILENO) != 0) {}
    ~VerifyProgress() {
        if (shown_) fmt::print(stderr, "\r\033[K");
    }
    VerifyProgress(const VerifyProgress&) = delete;
    VerifyProgress& operator=(const VerifyProgress&) = delete;

    void operator()(int done, int total) {
        if (!show_ || std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
        int percent = static_cast<int>(100LL * done / total);
        if (percent == lastPercent_) return;
        fmt::print(stderr, "\rverifying checksums: {}% of {} tiles", percent, total);
        std::fflush(stderr);
        lastPercent_ = percent;
        shown_ = true;
    }

  private:
    bool show_;
    bool shown_ = false;
    int lastPercent_ = -1;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void VerifyOrFail(const PyramidFile& file) {
    Expected<void> verified = [&] {
        VerifyProgress progress;
        return file.VerifyAllTiles([&](int done, int total) { progress(done, total); });
    }();
    if (!verified) Fail(verified.error().message);
}

void PrintExtent(const PyramidInfo& info) {
    fmt::print("  extent       {:.2f} x {:.2f} km (east-west x south-north)\n",
               info.dataWidthM / 1000, info.dataDepthM / 1000);
    const terrain::GeoExtent& g = info.geo;
    if (HasGeoreference(g)) {
        fmt::print("               lon {:.5f} to {:.5f} deg, lat {:.5f} to {:.5f} deg\n",
                   g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg);
    } else {
        fmt::print("               no georeference\n");
    }
    fmt::print("  source       {:.2f} m post spacing\n", info.sourceSpacingM);
    fmt::print("  root tile    {:.2f} km side\n", info.geometry.rootSizeM / 1000);
}

void PrintLevels(const PyramidInfo& info) {
    const terrain::PyramidGeometry& geo = info.geometry;
    fmt::print("  levels       {} ({} stored from the source, {} refined fractally)\n",
               geo.levelCount, info.storedLevels, geo.levelCount - info.storedLevels);
    fmt::print("                 level  post spacing m  tiles per side  source\n");
    for (int level = 0; level < geo.levelCount; ++level) {
        fmt::print("                 {:>5}  {:>14.3f}  {:>14}  {}{}\n", level, geo.SpacingM(level),
                   geo.TilesPerSide(level), level < info.storedLevels ? "stored" : "fractal",
                   level < info.drapedLevels ? ", imagery" : "");
    }
}

void PrintValues(const PyramidInfo& info) {
    fmt::print("  heights      {:.1f} to {:.1f} m (stored levels)\n", info.minHeightM,
               info.maxHeightM);
    fmt::print("  coding       int16, {} m per unit, offset {} m\n", info.coding.scaleM,
               info.coding.offsetM);
    const terrain::Roughness& r = info.roughness;
    fmt::print("  roughness    sigma {:.3f} m at {:.2f} m spacing, hurst {:.3f}, seed {}\n",
               r.sigmaM, r.referenceSpacingM, r.hurst, r.seed);
}

void PrintImagery(const PyramidInfo& info) {
    if (!info.Textured()) {
        fmt::print("  imagery      none (bfv's land materials)\n");
        return;
    }
    fmt::print("  imagery      draped, palette of {} colour{}\n", info.landColours.size(),
               info.landColours.size() == 1 ? "" : "s");
}

void PrintText(const std::string& path, const PyramidFile& file) {
    const PyramidInfo& info = file.Info();
    fmt::print("{}: bfv tile pyramid, version {}\n", path, file.Version());
    fmt::print("  name         {}\n", info.name.empty() ? "(none)" : info.name);
    PrintExtent(info);
    PrintLevels(info);
    auto storedTiles = static_cast<long long>(terrain::TilesBelowLevel(info.storedLevels));
    if (file.TileCount() > storedTiles) {
        fmt::print("  stored tiles {} ({} of the DEM's levels, {} of draped fractal levels)\n",
                   file.TileCount(), storedTiles, file.TileCount() - storedTiles);
    } else {
        fmt::print("  stored tiles {}\n", file.TileCount());
    }
    fmt::print("  file size    {}\n", FormatBytes(file.FileBytes()));
    PrintValues(info);
    PrintImagery(info);
    std::fflush(stdout);  // the summary shows while a big file is verified
    VerifyOrFail(file);
    fmt::print("checksums: all {} tiles OK\n", file.TileCount());
}

nlohmann::json LevelsJson(const PyramidInfo& info) {
    nlohmann::json levels = nlohmann::json::array();
    for (int level = 0; level < info.geometry.levelCount; ++level) {
        levels.push_back({{"level", level},
                          {"spacingM", info.geometry.SpacingM(level)},
                          {"tilesPerSide", info.geometry.TilesPerSide(level)},
                          {"stored", level < info.storedLevels},
                          {"draped", level < info.drapedLevels}});
    }
    return levels;
}

/// The draped imagery's palette as "#rrggbb" strings; empty without imagery.
nlohmann::json LandColoursJson(const PyramidInfo& info) {
    nlohmann::json colours = nlohmann::json::array();
    for (const common::Rgb& c : info.landColours) colours.push_back(common::HexColour(c));
    return colours;
}

nlohmann::json InfoJson(const std::string& path, const PyramidFile& file) {
    const PyramidInfo& info = file.Info();
    const terrain::GeoExtent& g = info.geo;
    const terrain::Roughness& r = info.roughness;
    return {
        {"file", path},
        {"version", file.Version()},
        {"fileBytes", file.FileBytes()},
        {"name", info.name},
        {"extent",
         {{"widthM", info.dataWidthM},
          {"depthM", info.dataDepthM},
          {"georeferenced", HasGeoreference(g)},
          {"lonMinDeg", g.lonMinDeg},
          {"lonMaxDeg", g.lonMaxDeg},
          {"latMinDeg", g.latMinDeg},
          {"latMaxDeg", g.latMaxDeg}}},
        {"sourceSpacingM", info.sourceSpacingM},
        {"rootSizeM", info.geometry.rootSizeM},
        {"levelCount", info.geometry.levelCount},
        {"storedLevels", info.storedLevels},
        {"levels", LevelsJson(info)},
        {"storedTiles", file.TileCount()},
        {"heightRange", {{"minM", info.minHeightM}, {"maxM", info.maxHeightM}}},
        {"coding", {{"scaleM", info.coding.scaleM}, {"offsetM", info.coding.offsetM}}},
        {"roughness",
         {{"sigmaM", r.sigmaM},
          {"referenceSpacingM", r.referenceSpacingM},
          {"hurst", r.hurst},
          {"seed", r.seed}}},
        {"landColours", LandColoursJson(info)},
        {"checksums", {{"verifiedTiles", file.TileCount()}, {"ok", true}}},
    };
}

void RunInfo(const InfoOptions& options) {
    Expected<PyramidFile> file = PyramidFile::Open(options.path);
    if (!file) Fail(file.error().message);
    if (options.json) {
        VerifyOrFail(*file);  // nothing on stdout unless the whole file is good
        fmt::print("{}\n", InfoJson(options.path, *file).dump(2));
    } else {
        PrintText(options.path, *file);
    }
}

}  // namespace

void AddInfoCommand(CLI::App& app) {
    auto options = std::make_shared<InfoOptions>();
    CLI::App* command = AddSubcommand(
        app, "info",
        "Describe a tile pyramid file (.bfvp) and verify every tile's checksum.\n"
        "Prints the dataset's name and extent, its levels (post spacing, tiles per side, stored "
        "from the source or refined fractally), the height range and coding, the roughness that "
        "drives the fractal levels, and the file's size; then checks each stored tile's crc32 "
        "and ends with \"checksums: all N tiles OK\". Exits 1 naming the first corrupt tile, or "
        "when the file is not a valid pyramid (an old single-grid .bfvt is to be re-imported "
        "with `bfv import`).\n\n"
        "Examples:\n"
        "  bfv info assets/jacksboro.bfvp\n"
        "  bfv info --json assets/jacksboro.bfvp > info.json");
    command->add_option("FILE", options->path, "tile pyramid file to describe (.bfvp)")->required();
    command->add_flag("--json", options->json,
                      "print the same as JSON on stdout (nothing on stdout when the file is bad)");
    command->callback([options] { RunInfo(*options); });
}

}  // namespace bfv::tools
