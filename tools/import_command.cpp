// `bfv import INPUT OUTPUT`: converts a DEM into the project's tile pyramid file (.bfvp).

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include <unistd.h>

#include "common/file_io.h"
#include "common/npz_import.h"
#include "common/pyramid_file.h"
#include "common/tile_pyramid.h"
#include "tools/commands.h"
#include "tools/format_bytes.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;

struct ImportOptions {
    std::string inputPath;   // DEM to read
    std::string outputPath;  // .bfvp to write
    bool force = false;      // = false // overwrite an existing output
    common::PyramidBuildOptions build;
};

/// A DEM format the importer reads, chosen by the input's extension.
struct InputFormat {
    const char* extension;    // lower case, with the dot
    const char* description;  // for help and error messages
    Expected<common::Terrain> (*import)(const std::string& path);
};

// More formats (GeoTIFF and the rest of GDAL's) are to come.
const InputFormat inputFormats[] = {
    {".npz", "numpy archive: 'elevation' in metres, xmin/xmax/ymin/ymax/dx/dy in degrees",
     &common::ImportNpz},
};

std::string LowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

std::string SupportedFormats() {
    std::string list;
    for (const InputFormat& f : inputFormats) {
        list += fmt::format("{}{} ({})", list.empty() ? "" : ", ", f.extension, f.description);
    }
    return list;
}

Expected<common::Terrain> ImportInput(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        return Error{fmt::format("input '{}' {}", path,
                                 fs::exists(path, ec) ? "is not a file" : "does not exist")};
    }
    std::string ext = LowerExtension(path);
    for (const InputFormat& f : inputFormats) {
        if (ext == f.extension) return f.import(path);
    }
    return Error{fmt::format("input '{}': unsupported format '{}'; supported: {}", path,
                             ext.empty() ? "(no extension)" : ext, SupportedFormats())};
}

Expected<void> CheckOutputPath(const ImportOptions& options) {
    if (LowerExtension(options.outputPath) != ".bfvp") {
        return Error{fmt::format("output '{}' must end in .bfvp", options.outputPath)};
    }
    std::error_code ec;
    if (!options.force && fs::exists(options.outputPath, ec)) {
        return Error{fmt::format("output '{}' already exists; pass --force to overwrite it",
                                 options.outputPath)};
    }
    return {};
}

void PrintSummary(const common::Terrain& t, const common::PyramidInfo& info,
                  const ImportOptions& options, std::size_t outputBytes) {
    common::HeightRange range = common::ComputeHeightRange(t);
    const common::GeoExtent& g = t.geo;
    fmt::print("imported '{}' from {}\n", t.name, options.inputPath);
    fmt::print("  posts    {} x {} ({} posts)\n", t.nx, t.ny, t.heightsM.size());
    fmt::print("  spacing  {:.2f} m east-west, {:.2f} m south-north\n", t.spacingXM, t.spacingYM);
    fmt::print(
        "  extent   lon {:.5f} to {:.5f} deg, lat {:.5f} to {:.5f} deg ({:.2f} x {:.2f} km)\n",
        g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg, t.WidthM() / 1000, t.DepthM() / 1000);
    fmt::print("  heights  {:.1f} to {:.1f} m\n", range.minM, range.maxM);
    const common::PyramidGeometry& levels = info.geometry;
    fmt::print("  pyramid  {} levels, {:.0f} m to {:g} m post spacing; levels 0-{} from the DEM, "
               "{}-{} refined fractally\n",
               levels.levelCount, levels.SpacingM(0), levels.SpacingM(levels.levelCount - 1),
               info.storedLevels - 1, info.storedLevels, levels.levelCount - 1);
    fmt::print("  roughness {:.2f} m at {:.0f} m spacing, Hurst exponent {:.2f}, seed {}\n",
               info.roughness.sigmaM, info.roughness.referenceSpacingM, info.roughness.hurst,
               info.roughness.seed);
    fmt::print("  wrote    {}, {}\n", options.outputPath, FormatBytes(outputBytes));
}

// Progress on stderr when it is a terminal: a line rewritten in place, at most every 2%.
void ShowProgress(long long done, long long total) {
    static const bool terminal = isatty(STDERR_FILENO) != 0;
    static int shown = -1;
    if (!terminal) return;
    int percent = static_cast<int>(100 * done / std::max(total, 1LL));
    if (percent / 2 == shown / 2 && percent != 100) return;
    shown = percent;
    fmt::print(stderr, "\r  building levels {:3d}%{}", percent, percent == 100 ? "\n" : "");
}

/// Imports, builds the pyramid, writes it atomically and returns the size of the file written,
/// in bytes.
Expected<std::size_t> Import(const ImportOptions& options, common::Terrain& terrain,
                             common::PyramidInfo& info) {
    if (Expected<void> output = CheckOutputPath(options); !output) return output.error();
    Expected<common::Terrain> imported = ImportInput(options.inputPath);
    if (!imported) return imported.error();
    terrain = std::move(*imported);
    Expected<common::Pyramid> pyramid = common::BuildPyramid(terrain, options.build, ShowProgress);
    if (!pyramid) return pyramid.error();
    info = pyramid->info;
    if (auto written = common::WritePyramidFile(options.outputPath, *pyramid); !written) {
        return written.error();
    }
    std::error_code ec;
    return static_cast<std::size_t>(fs::file_size(options.outputPath, ec));
}

void RunImport(const ImportOptions& options) {
    common::Terrain terrain;
    common::PyramidInfo info;
    Expected<std::size_t> outputBytes = Import(options, terrain, info);
    if (!outputBytes) {
        fmt::print(stderr, "bfv import: {}\n", outputBytes.error().message);
        throw CLI::RuntimeError(1);
    }
    PrintSummary(terrain, info, options, *outputBytes);
}

}  // namespace

void AddImportCommand(CLI::App& app) {
    auto options = std::make_shared<ImportOptions>();
    CLI::App* command = app.add_subcommand(
        "import",
        "Convert a DEM into bfv's tile pyramid (.bfvp), which `bfv render` streams.");
    command
        ->add_option(
            "INPUT", options->inputPath,
            "DEM to convert; its format is chosen by extension. Supported: " + SupportedFormats())
        ->required();
    command->add_option("OUTPUT", options->outputPath, "tile pyramid to write (.bfvp)")->required();
    command->add_flag("-f,--force", options->force, "overwrite OUTPUT if it already exists");
    command->add_option("--finest-spacing", options->build.finestSpacingM,
                        "post spacing of the finest level, metres")
        ->capture_default_str();
    command->add_option("--seed", options->build.seed, "seed of the fractal refinement")
        ->capture_default_str();
    command->add_option("--roughness-scale", options->build.roughnessScale,
                        "multiplies the roughness measured on the DEM (0: smooth refinement)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    command->footer(
        "The pyramid's level 0 is one tile over the whole DEM; each level halves the post\n"
        "spacing down to --finest-spacing. Levels down to the DEM's own resolution are\n"
        "resampled from it and stored; finer ones are refined fractally (deterministic, seeded\n"
        "by --seed, roughness measured on the DEM) by the terrain server as it streams them.\n"
        "The output is written atomically (to a temporary file, then renamed).\n\n"
        "Example:\n"
        "  bfv import /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz "
        "assets/jacksboro.bfvp\n"
        "  bfv info assets/jacksboro.bfvp");
    command->callback([options] { RunImport(*options); });
}

}  // namespace bfv::tools
