// `bfv import INPUT OUTPUT`: converts a DEM into the project's terrain file format (.bfvt).

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "common/file_io.h"
#include "common/npz_import.h"
#include "common/terrain_file.h"
#include "tools/commands.h"
#include "tools/format_bytes.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;

struct ImportOptions {
    std::string inputPath;   // DEM to read
    std::string outputPath;  // .bfvt to write
    bool force = false;      // = false // overwrite an existing output
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
    if (LowerExtension(options.outputPath) != ".bfvt") {
        return Error{fmt::format("output '{}' must end in .bfvt", options.outputPath)};
    }
    std::error_code ec;
    if (!options.force && fs::exists(options.outputPath, ec)) {
        return Error{fmt::format("output '{}' already exists; pass --force to overwrite it",
                                 options.outputPath)};
    }
    return {};
}

void PrintSummary(const common::Terrain& t, const ImportOptions& options, std::size_t outputBytes) {
    common::HeightRange range = common::ComputeHeightRange(t);
    const common::GeoExtent& g = t.geo;
    fmt::print("imported '{}' from {}\n", t.name, options.inputPath);
    fmt::print("  posts    {} x {} ({} posts)\n", t.nx, t.ny, t.heightsM.size());
    fmt::print("  spacing  {:.2f} m east-west, {:.2f} m south-north\n", t.spacingXM, t.spacingYM);
    fmt::print(
        "  extent   lon {:.5f} to {:.5f} deg, lat {:.5f} to {:.5f} deg ({:.2f} x {:.2f} km)\n",
        g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg, t.WidthM() / 1000, t.DepthM() / 1000);
    fmt::print("  heights  {:.1f} to {:.1f} m\n", range.minM, range.maxM);
    fmt::print("  wrote    {}, {}\n", options.outputPath, FormatBytes(outputBytes));
}

/// Imports, writes atomically and returns the size of the file written, in bytes.
Expected<std::size_t> Import(const ImportOptions& options, common::Terrain& terrain) {
    if (Expected<void> output = CheckOutputPath(options); !output) return output.error();
    Expected<common::Terrain> imported = ImportInput(options.inputPath);
    if (!imported) return imported.error();
    terrain = std::move(*imported);
    if (auto storable = common::CheckTerrainStorable(terrain); !storable) return storable.error();
    std::vector<std::byte> bytes = common::EncodeTerrain(terrain);
    if (auto written = common::WriteFileAtomic(options.outputPath, bytes); !written) {
        return written.error();
    }
    return bytes.size();
}

void RunImport(const ImportOptions& options) {
    common::Terrain terrain;
    Expected<std::size_t> outputBytes = Import(options, terrain);
    if (!outputBytes) {
        fmt::print(stderr, "bfv import: {}\n", outputBytes.error().message);
        throw CLI::RuntimeError(1);
    }
    PrintSummary(terrain, options, *outputBytes);
}

}  // namespace

void AddImportCommand(CLI::App& app) {
    auto options = std::make_shared<ImportOptions>();
    CLI::App* command = app.add_subcommand(
        "import",
        "Convert a DEM into bfv's terrain file format (.bfvt), which `bfv render` reads.");
    command
        ->add_option(
            "INPUT", options->inputPath,
            "DEM to convert; its format is chosen by extension. Supported: " + SupportedFormats())
        ->required();
    command->add_option("OUTPUT", options->outputPath, "terrain file to write (.bfvt)")->required();
    command->add_flag("-f,--force", options->force, "overwrite OUTPUT if it already exists");
    command->footer(
        "The output is written atomically (to a temporary file, then renamed).\n\n"
        "Example:\n"
        "  bfv import /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz "
        "assets/jacksboro.bfvt");
    command->callback([options] { RunImport(*options); });
}

}  // namespace bfv::tools
