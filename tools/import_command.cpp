// `bfv import INPUT OUTPUT`: converts a DEM into the project's tile pyramid file (.bfvp).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "common/interrupt.h"
#include "terrain/gdal_import.h"
#include "terrain/npz_import.h"
#include "terrain/png_import.h"
#include "terrain/pyramid_file.h"
#include "terrain/tile_pyramid.h"
#include "tools/commands.h"
#include "tools/format_bytes.h"

namespace bfv::tools {
namespace {

namespace fs = std::filesystem;

/// Options that apply to some input formats only, unset unless given: what an input without
/// georeference needs (PNG heightmap, .npy), which array of an .npz to read, and where a GIS
/// raster's nodata posts are filled (set by the import: the output's directory).
struct ImportSettings {
    std::optional<double> spacingM;       // --spacing: post spacing, metres
    std::optional<double> heightScaleM;   // --height-scale: metres per PNG value (1)
    std::optional<double> heightOffsetM;  // --height-offset: height of PNG value 0, metres (0)
    std::optional<std::string> array;     // --array: the .npz's array, the netCDF's variable
    std::string scratchDir;               // where a GIS raster's nodata posts are filled
    bool anyRaster = false;               // --any-raster: import what GIS checks refuse as no DEM
};

struct ImportOptions {
    std::string inputPath;    // DEM to read
    std::string outputPath;   // .bfvp to write
    std::string texturePath;  // --texture: RGB imagery to drape over the DEM; "": none
    bool force = false;       // = false // overwrite an existing output
    ImportSettings settings;  // PNG heightmap options
    terrain::PyramidBuildOptions build;
};

/// A DEM opened for reading row by row: a GDAL raster read a strip at a time, or a Terrain
/// read whole by another importer.
using RowSource = std::unique_ptr<terrain::PostRowSource>;

/// A DEM format the importer reads, chosen by the input's extension.
struct InputFormat {
    const char* extension;    // lower case, with the dot
    const char* description;  // for help and error messages
    Expected<RowSource> (*open)(const std::string& path, const ImportSettings& settings);
};

/// Whether a progress line is on stderr without its end of line (a message goes below it).
bool gProgressLineOpen = false;

/// Progress on stderr when it is a terminal: "  LABEL  42%", rewritten in place, at most every
/// 2%, ending the line at the first 100%.
terrain::BuildProgress ProgressLine(const char* label) {
    static const bool terminal = isatty(STDERR_FILENO) != 0;
    if (!terminal) return {};
    return [label, shown = -1](long long done, long long total) mutable {
        int percent = static_cast<int>(100 * done / std::max(total, 1LL));
        if (percent == shown || (percent / 2 == shown / 2 && percent != 100)) return;
        shown = percent;
        gProgressLineOpen = percent != 100;
        fmt::print(stderr, "\r  {} {:3d}%{}", label, percent, percent == 100 ? "\n" : "");
    };
}

/// Whether SIGINT or SIGTERM came (common/interrupt.h): the import's reads, fill and writes
/// ask it as they go, and stop, leaving no file behind.
bool Interrupted() { return common::InterruptSignal() != 0; }

/// A DEM read whole by `importer` (formats GDAL does not read), served row by row.
Expected<RowSource> InMemory(Expected<terrain::Terrain> imported) {
    if (!imported) return imported.error();
    return RowSource(std::make_unique<terrain::TerrainRows>(std::move(*imported)));
}

/// Band 1 of a GDAL raster (`variable` of a file of several), read a strip of rows at a time;
/// nodata posts are filled next to the output (`settings.scratchDir`).
Expected<RowSource> OpenGdal(const std::string& path, const std::string& variable,
                             const ImportSettings& settings) {
    terrain::GdalRowsOptions options;
    options.scratchDir = settings.scratchDir;
    options.anyRaster = settings.anyRaster;
    options.progress = ProgressLine("checking heights");
    options.fillProgress = ProgressLine("filling nodata");
    options.stop = &Interrupted;
    return terrain::OpenGdalRows(path, variable, options);
}

/// An error when --array is given for an input that holds one raster only.
Expected<void> RefuseArray(const std::string& path, const ImportSettings& settings) {
    if (!settings.array) return {};
    return Error{fmt::format("input '{}': --array applies to .npz, .nc and .grd files only", path)};
}

/// An error when an option of a heightmap without georeference is given for an input that
/// carries its own georeference and height units (it would be ignored).
Expected<void> RefuseHeightmapOptions(const std::string& path, const ImportSettings& settings) {
    if (settings.spacingM || settings.heightScaleM || settings.heightOffsetM) {
        return Error{
            fmt::format("input '{}': --spacing, --height-scale and --height-offset "
                        "apply to PNG heightmaps only (--spacing to .npy arrays too)",
                        path)};
    }
    return {};
}

/// A single-raster GDAL format, which carries its own georeference and height units: the PNG
/// options and --array would be ignored, so giving them is an error.
Expected<RowSource> OpenGdalRaster(const std::string& path, const ImportSettings& settings) {
    if (auto ok = RefuseHeightmapOptions(path, settings); !ok) return ok.error();
    if (auto ok = RefuseArray(path, settings); !ok) return ok.error();
    return OpenGdal(path, "", settings);
}

/// A GDAL container of variables (netCDF, GMT): --array names the variable.
Expected<RowSource> OpenVariableInput(const std::string& path, const ImportSettings& settings) {
    if (auto ok = RefuseHeightmapOptions(path, settings); !ok) return ok.error();
    return OpenGdal(path, settings.array.value_or(""), settings);
}

Expected<RowSource> ImportNpzInput(const std::string& path, const ImportSettings& settings) {
    if (auto ok = RefuseHeightmapOptions(path, settings); !ok) return ok.error();
    return InMemory(terrain::ImportNpz(path, {settings.array.value_or("")}));
}

Expected<RowSource> ImportNpyInput(const std::string& path, const ImportSettings& settings) {
    if (auto ok = RefuseArray(path, settings); !ok) return ok.error();
    if (settings.heightScaleM || settings.heightOffsetM) {
        return Error{fmt::format(
            "input '{}': --height-scale and --height-offset apply to PNG heightmaps only", path)};
    }
    if (!settings.spacingM) {
        return Error{fmt::format(
            "input '{}': a .npy array has no georeference: give --spacing METRES", path)};
    }
    return InMemory(terrain::ImportNpy(path, *settings.spacingM));
}

Expected<RowSource> ImportPng(const std::string& path, const ImportSettings& settings) {
    if (auto ok = RefuseArray(path, settings); !ok) return ok.error();
    if (!settings.spacingM) {
        return Error{fmt::format(
            "input '{}': a PNG heightmap has no georeference: give --spacing METRES", path)};
    }
    return InMemory(
        terrain::ImportPng16(path, {*settings.spacingM, settings.heightScaleM.value_or(1.0),
                                    settings.heightOffsetM.value_or(0.0)}));
}

constexpr auto importGdal = &OpenGdalRaster;

const InputFormat inputFormats[] = {
    {".npz",
     "numpy archive: heights in metres; xmin/xmax/ymin/ymax/dx/dy or longitude/latitude arrays "
     "in degrees",
     &ImportNpzInput},
    {".npy", "numpy array of heights in metres, row 0 north; needs --spacing", &ImportNpyInput},
    {".tif", "GeoTIFF", importGdal},
    {".tiff", "GeoTIFF", importGdal},
    {".hgt", "SRTM tile, named like N36W099.hgt", importGdal},
    {".asc", "ESRI ASCII grid; metres unless a .prj says otherwise", importGdal},
    {".dem", "USGS DEM", importGdal},
    {".img", "Erdas Imagine", importGdal},
    {".bil", "ESRI BIL with its .hdr", importGdal},
    {".flt", "ESRI float grid with its .hdr", importGdal},
    {".adf", "ArcInfo binary grid, e.g. hdr.adf", importGdal},
    {".dt0", "DTED level 0", importGdal},
    {".dt1", "DTED level 1", importGdal},
    {".dt2", "DTED level 2", importGdal},
    {".vrt", "GDAL virtual raster", importGdal},
    {".nc", "netCDF grid (GMT, CF); --array picks the variable", &OpenVariableInput},
    {".grd", "GMT grid (netCDF); --array picks the variable", &OpenVariableInput},
    {".png", "16-bit greyscale heightmap; needs --spacing", &ImportPng},
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

Expected<RowSource> OpenInput(const std::string& path, const ImportSettings& settings) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        return Error{fmt::format("input '{}' {}", path,
                                 fs::exists(path, ec) ? "is not a file" : "does not exist")};
    }
    std::string ext = LowerExtension(path);
    for (const InputFormat& f : inputFormats) {
        if (ext == f.extension) return f.open(path, settings);
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

/// The temporary files an import named in its output's folder, other than a fill's folder
/// (terrain::kFillFolderPrefix), each with the process id as group 1: the output renamed over
/// OUTPUT at its end (common::AtomicFileWriter), and the fill's files of bfv before these (a
/// hidden .NAME.fill.PID-heights.tif and GDALFillNodata's _PID_Nfill_*_work.tif).
const std::regex kTemporaryNames[] = {
    std::regex(R"(.+\.bfvp\.tmp\.(\d{1,9}))"),
    std::regex(R"(\..+\.fill\.(\d{1,9})-(heights|mask)\.tif)"),
    std::regex(R"(_(\d{1,9})_\d+fill_(y|val|filtmask)_work\.tif)"),
};

/// The process id in the name of an import's temporary file or folder, or 0 for any other name.
pid_t TemporaryOwner(const std::string& name) {
    std::string_view prefix = terrain::kFillFolderPrefix;
    std::string_view id = std::string_view(name).substr(std::min(name.size(), prefix.size()));
    if (name.starts_with(prefix) && !id.empty() && id.size() <= 9 &&
        std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::stoi(std::string(id));
    }
    std::smatch match;
    for (const std::regex& pattern : kTemporaryNames) {
        if (std::regex_match(name, match, pattern)) return std::stoi(match[1].str());
    }
    return 0;
}

/// Bytes in `path`, a file or a folder (all it holds).
std::uintmax_t BytesIn(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return fs::file_size(path, ec);
    std::uintmax_t bytes = 0;
    for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
        if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
    }
    return bytes;
}

/// Removes from `folder` the temporary files of imports that were killed before they could
/// (their process is gone; bfv's own have no name, but a fill's work files and the moment of
/// the rename do), saying so on stderr for each.
void RemoveStaleTemporaries(const fs::path& folder) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        pid_t owner = TemporaryOwner(entry.path().filename().string());
        if (owner <= 0 || ::kill(owner, 0) == 0 || errno != ESRCH) continue;
        std::uintmax_t bytes = BytesIn(entry.path());
        if (fs::remove_all(entry.path(), ec) == static_cast<std::uintmax_t>(-1)) continue;
        fmt::print(stderr,
                   "bfv import: removed '{}', {}, left by an import (process {}) that was "
                   "killed\n",
                   entry.path().string(), FormatBytes(bytes), owner);
    }
}

/// What an import read and wrote.
struct Imported {
    terrain::SourceGrid grid;      // the DEM
    terrain::PyramidBuild built;   // the pyramid
    std::string imageryPlacement;  // with --texture: how the imagery lies over the DEM
    std::size_t outputBytes = 0;   // the file written
};

void PrintSummary(const Imported& imported, const ImportOptions& options) {
    const terrain::SourceGrid& t = imported.grid;
    const terrain::PyramidBuild& built = imported.built;
    const terrain::PyramidInfo& info = built.info;
    const terrain::GeoExtent& g = t.geo;
    fmt::print("imported '{}' from {}\n", t.name, options.inputPath);
    fmt::print("  posts    {} x {} ({} posts)\n", t.nx, t.ny, static_cast<long long>(t.nx) * t.ny);
    fmt::print("  spacing  {:.2f} m east-west, {:.2f} m south-north\n", t.spacingXM, t.spacingYM);
    fmt::print(
        "  extent   lon {:.5f} to {:.5f} deg, lat {:.5f} to {:.5f} deg ({:.2f} x {:.2f} km)\n",
        g.lonMinDeg, g.lonMaxDeg, g.latMinDeg, g.latMaxDeg, info.dataWidthM / 1000,
        info.dataDepthM / 1000);
    fmt::print("  heights  {:.1f} to {:.1f} m\n", built.sourceHeightsM.minM,
               built.sourceHeightsM.maxM);
    const terrain::PyramidGeometry& levels = info.geometry;
    std::string refined =
        info.storedLevels < levels.levelCount
            ? fmt::format(", {}-{} refined fractally", info.storedLevels, levels.levelCount - 1)
            : "";
    fmt::print(
        "  pyramid  {} levels, {:.0f} m to {:g} m post spacing; levels 0-{} from the DEM{}\n",
        levels.levelCount, levels.SpacingM(0), levels.SpacingM(levels.levelCount - 1),
        info.storedLevels - 1, refined);
    fmt::print("  roughness {:.2f} m at {:.0f} m spacing, Hurst exponent {:.2f}, seed {}\n",
               info.roughness.sigmaM, info.roughness.referenceSpacingM, info.roughness.hurst,
               info.roughness.seed);
    if (info.Textured()) {
        fmt::print(
            "  imagery  {} draped, {}, over levels 0-{} (to {:g} m posts); palette of {} "
            "colour{}\n",
            options.texturePath, imported.imageryPlacement, info.drapedLevels - 1,
            levels.SpacingM(info.drapedLevels - 1), info.landColours.size(),
            info.landColours.size() == 1 ? "" : "s");
    }
    fmt::print("  wrote    {}, {}\n", options.outputPath, FormatBytes(imported.outputBytes));
}

/// Reads the input (and imagery), builds the pyramid and writes it a row of tiles at a time,
/// atomically; returns what was read and written.
Expected<Imported> Import(const ImportOptions& options) {
    Imported imported;
    if (Expected<void> output = CheckOutputPath(options); !output) return output.error();
    ImportSettings settings = options.settings;
    settings.scratchDir = fs::absolute(options.outputPath).parent_path().string();
    RemoveStaleTemporaries(settings.scratchDir);
    Expected<RowSource> source = OpenInput(options.inputPath, settings);
    if (!source) return source.error();
    imported.grid = (*source)->Grid();
    std::unique_ptr<terrain::Imagery> imagery;
    if (!options.texturePath.empty()) {
        Expected<std::unique_ptr<terrain::Imagery>> opened =
            terrain::OpenGdalImagery(options.texturePath, imported.grid.geo);
        if (!opened) return opened.error();
        imagery = std::move(*opened);
        imported.imageryPlacement = imagery->Placement();
    }
    terrain::PyramidWriteWatch watch{ProgressLine("building levels"),
                                     ProgressLine("draping imagery"), &Interrupted};
    Expected<terrain::PyramidBuild> written = terrain::WritePyramidFileFromRows(
        options.outputPath, **source, options.build, imagery.get(), watch);
    if (!written) return written.error();
    imported.built = std::move(*written);
    std::error_code ec;
    imported.outputBytes = static_cast<std::size_t>(fs::file_size(options.outputPath, ec));
    return imported;
}

/// What an import stopped by `signal` says: nothing was written, and an old `outputPath` is
/// kept as it was (the output is only ever replaced whole).
std::string InterruptedMessage(int signal, const std::string& outputPath) {
    std::error_code ec;
    return fmt::format("interrupted by {}; nothing written{}", common::SignalName(signal),
                       fs::exists(outputPath, ec)
                           ? fmt::format(", the old '{}' is kept as it was", outputPath)
                           : "");
}

void RunImport(const ImportOptions& options) {
    common::InstallInterruptHandlers();
    Expected<Imported> imported = Import(options);
    if (!imported) {
        int signal = common::InterruptSignal();
        std::string message =
            signal != 0 ? InterruptedMessage(signal, options.outputPath) : imported.error().message;
        fmt::print(stderr, "{}bfv import: {}\n", gProgressLineOpen ? "\n" : "", message);
        throw CLI::RuntimeError(signal != 0 ? common::InterruptedExitCode(signal) : 1);
    }
    PrintSummary(*imported, options);
}

// The refinement of the pyramid: how fine, how rough, from which seed.
void AddPyramidOptions(CLI::App& command, terrain::PyramidBuildOptions& build) {
    CLI::Option_group* group =
        command.add_option_group("Pyramid", "How fine the pyramid goes, and its fractal detail");
    group
        ->add_option("--finest-spacing", build.finestSpacingM,
                     "post spacing of the finest level, metres (at most 20 levels: the import "
                     "says how fine the terrain allows)")
        ->capture_default_str()
        ->check(InRange(terrain::kPostSpacingRangeM));
    group->add_option("--seed", build.seed, "seed of the fractal refinement")
        ->capture_default_str();
    group
        ->add_option("--roughness-scale", build.roughnessScale,
                     "multiplies the roughness measured on the DEM (0: smooth refinement)")
        ->capture_default_str()
        ->check(InRange(terrain::kRoughnessScaleRange));
}

// What some input formats need said: the array of an .npz or netCDF file, the spacing and the
// height scale of a PNG heightmap or .npy array.
void AddInputFormatOptions(CLI::App& command, ImportSettings& settings) {
    CLI::Option_group* group =
        command.add_option_group("Input format", "What some formats of INPUT need said");
    group->add_option("--array", settings.array,
                      fmt::format(".npz, .nc and .grd only: the elevation array's (netCDF: "
                                  "variable's) name (default: the first of {} present, else "
                                  "the only 2-D array)",
                                  fmt::join(terrain::kElevationArrayNames, ", ")));
    group->add_flag("--any-raster", settings.anyRaster,
                    fmt::format("GIS rasters only: import band 1 of a raster that looks like no "
                                "DEM, refused without it: an image (3 or more 8-bit bands, or "
                                "palette indices) or one with under {:g}% or {} valid posts",
                                100.0 * terrain::kMinValidPostShare, terrain::kMinValidPosts));
    group
        ->add_option("--spacing", settings.spacingM,
                     "PNG heightmaps and .npy arrays only, required for them: post spacing in "
                     "metres")
        ->check(InRange(terrain::kPostSpacingRangeM));
    group
        ->add_option("--height-scale", settings.heightScaleM,
                     "PNG heightmaps only: metres per unit of the 16-bit value (default 1)")
        ->check(InRange(terrain::kHeightScaleRangeM));
    group
        ->add_option("--height-offset", settings.heightOffsetM,
                     "PNG heightmaps only: height of value 0 in metres (default 0)")
        ->check(InRange(terrain::kPostHeightRangeM));
}

// `bfv import --help`'s footer: the formats' conventions, the pyramid, memory, an example.
constexpr const char* kImportFooter =
    "GIS rasters are read with GDAL: band 1, heights in metres (feet are converted); "
    "nodata posts are filled from their neighbours; negative heights (bathymetry) are "
    "kept. A PNG heightmap's top row is north; height = offset + value * scale.\n"
    "An .npz is georeferenced by the scalars xmin/xmax/ymin/ymax (outer edges) or by 1-D\n"
    "coordinate arrays longitude/latitude, lon/lat or x/y (post centres, evenly spaced,\n"
    "degrees; 0..360 longitudes and Mercator-spaced latitudes are accepted).\n"
    "The pyramid's level 0 is one tile over the whole DEM; each level halves the post\n"
    "spacing down to --finest-spacing. Levels down to the DEM's own resolution are\n"
    "resampled from it and stored; finer ones are refined fractally (deterministic, seeded\n"
    "by --seed, roughness measured on the DEM) by the terrain server as it streams them.\n"
    "GIS rasters are read a strip of rows at a time (nodata posts are filled on disk,\n"
    "next to OUTPUT) and the pyramid is written a row of tiles at a time, so memory does\n"
    "not grow with the DEM (the other formats are read whole). The import is all or\n"
    "nothing: the output is written to a file without a name and renamed over OUTPUT\n"
    "once complete, so an error, Ctrl-C, SIGTERM or even SIGKILL leaves the old OUTPUT (or\n"
    "none); a killed fill's work files (.bfv-fill.PID) are removed by the next import.\n"
    "--texture drapes imagery (an orthophoto, a land-cover map) over the terrain: its\n"
    "colours are quantised into a palette of up to 256 (median cut and k-means in CIELAB)\n"
    "and every post keeps the palette colour nearest the mean colour of its cell, on the\n"
    "stored levels and on the fractal levels down to the one whose posts are as far apart\n"
    "as the image's pixels; bfv render interpolates these colours between posts and shades\n"
    "and hazes them in place of its own land materials.\n\n"
    "Example:\n"
    "  bfv import /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz "
    "assets/jacksboro.bfvp\n"
    "  bfv import dem.tif draped.bfvp --texture orthophoto.tif\n"
    "  bfv info assets/jacksboro.bfvp";

}  // namespace

void AddImportCommand(CLI::App& app) {
    auto options = std::make_shared<ImportOptions>();
    CLI::App* command = app.add_subcommand(
        "import", "Convert a DEM into bfv's tile pyramid (.bfvp), which `bfv render` streams.");
    command
        ->add_option(
            "INPUT", options->inputPath,
            "DEM to convert; its format is chosen by extension. Supported: " + SupportedFormats())
        ->required();
    command->add_option("OUTPUT", options->outputPath, "tile pyramid to write (.bfvp)")->required();
    command->add_flag("-f,--force", options->force, "overwrite OUTPUT if it already exists");
    command
        ->add_option("--texture", options->texturePath,
                     "RGB imagery to drape over the DEM (an 8-bit RGB or RGBA raster GDAL reads: "
                     "GeoTIFF, PNG, JPEG, ...); placed by its georeference, else stretched over "
                     "the DEM, top row north")
        ->check(CLI::ExistingFile);
    AddPyramidOptions(*command, options->build);
    AddInputFormatOptions(*command, options->settings);
    command->footer(kImportFooter);
    command->callback([options] { RunImport(*options); });
}

}  // namespace bfv::tools
