#include "common/render_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <initializer_list>
#include <regex>
#include <string>
#include <system_error>
#include <utility>

#include "common/file_io.h"

namespace bfv::common {

namespace {

Error OptionError(const std::string& what) { return Error{what}; }

Expected<void> ValidateScreenSize(int widthPx, int heightPx) {
    if (widthPx < 1 || heightPx < 1 || widthPx > kMaxScreenPx || heightPx > kMaxScreenPx) {
        return OptionError("--size " + std::to_string(widthPx) + "x" + std::to_string(heightPx) +
                           " is impossible: width and height must be 1.." +
                           std::to_string(kMaxScreenPx) + " pixels");
    }
    return {};
}

Expected<void> ValidateScreen(const ScreenSpec& screen, int nTracers) {
    if (auto ok = ValidateScreenSize(screen.widthPx, screen.heightPx); !ok) return ok;
    if (screen.widthPx < nTracers) {
        return OptionError("--size: " + std::to_string(screen.widthPx) +
                           " columns cannot be shared by " + std::to_string(nTracers) +
                           " ray tracers; use a wider screen or fewer ranks");
    }
    return CheckRange("--fov", DegreesFromRadians(screen.hFovRad), kFovRangeDeg);
}

Expected<void> ValidateJob(const RenderOptions& options, int nRanks) {
    if (options.pipeline.sequential && nRanks > 1) {
        return OptionError(
            "--sequential runs the whole render in one process, but this is one of " +
            std::to_string(nRanks) +
            " processes of an MPI launch, which would all render into one output "
            "directory; run it without mpiexec (or with -n 1)");
    }
    if (options.pipeline.sequential && !options.output.tracePath.empty()) {
        return OptionError(
            "--trace records the timelines of an MPI run's ranks, and a --sequential run has "
            "none: run it under mpiexec (N >= 3) or leave out --trace");
    }
    if (!options.pipeline.sequential && nRanks < 3) {
        return OptionError(
            "bfv render needs at least 3 MPI ranks (terrain server, ray tracer, "
            "display), got " +
            std::to_string(nRanks) + "; run `mpiexec -n 3 bfv render ...` or use --sequential");
    }
    if (!options.pipeline.sequential && options.pipeline.decomposition == Decomposition::Dynamic &&
        nRanks - 2 > kMaxDynamicTracers) {
        return OptionError("--decomposition dynamic serves at most " +
                           std::to_string(kMaxDynamicTracers) +
                           " ray tracers (N <= " + std::to_string(kMaxDynamicTracers + 2) +
                           "); use contiguous or interleaved");
    }
    return {};
}

// An option's value and what it may be.
struct NumberCheck {
    const char* option;
    double value;
    Range range;
};

Expected<void> FirstOutOfRange(std::initializer_list<NumberCheck> checks) {
    for (const NumberCheck& c : checks) {
        if (auto ok = CheckRange(c.option, c.value, c.range); !ok) return ok;
    }
    return {};
}

Expected<void> ValidateNumbers(const RenderOptions& o) {
    const FlightStyle& flight = o.view.flightStyle;
    return FirstOutOfRange({
        {"--columns-per-message", static_cast<double>(o.pipeline.columnsPerMessage),
         Range::Closed(1.0, o.view.screen.widthPx, "columns (the screen width)")},
        {"--receive-threads", static_cast<double>(o.pipeline.receiveThreads), kReceiveThreadsRange},
        {"--terrain-message-bytes", static_cast<double>(o.terrain.terrainMessageBytes),
         kTerrainMessageRangeBytes},
        {"--terrain-budget", o.terrain.terrainBudgetBytesPerS, kTerrainBudgetRangeBytesPerS},
        {"--cache-mib", static_cast<double>(o.terrain.cacheMiB), kCacheRangeMiB},
        {"--blend-frames", static_cast<double>(o.terrain.blendFrames), kBlendFramesRange},
        {"--frames", static_cast<double>(o.output.frames), kFramesRange},
        {"--warmup", static_cast<double>(o.output.warmupFrames), kFramesRange},
        {"--png-every", static_cast<double>(o.output.pngEvery), kPngEveryRange},
        {"--threads", static_cast<double>(o.pipeline.threads), kThreadsRange},
        {"--frame-dt", o.view.frameDtS, kFrameDtRangeS},
        {"--haze", o.shading.hazeHalfDistanceM, kHazeRangeM},
        {"--lod-bias", o.shading.lodBias, kLodBiasRange},
        {"--max-anisotropy", o.shading.maxAnisotropy, kMaxAnisotropyRange},
        {"--secant-cell-pixels", o.shading.secantMaxCellPixels, kSecantCellPixelsRange},
        {"--sea-level", o.shading.seaLevelM.value_or(0.0), kSeaLevelRangeM},
        {"--sun-azimuth", o.shading.sunAzimuthDeg, kSunAzimuthRangeDeg},
        {"--sun-elevation", o.shading.sunElevationDeg, kSunElevationRangeDeg},
        {"--exaggeration", o.shading.exaggeration, kExaggerationRange},
        {"--snow-line", o.shading.snowLineM.value_or(0.0), kSnowLineRangeM},
        {"--supersample", static_cast<double>(o.shading.supersample), kSupersampleRange},
        {"--agl", flight.aglM, kAglRangeM},
        {"--pitch", DegreesFromRadians(flight.pitchRad), kPitchRangeDeg},
        {"--speed", flight.speedMPerS, kSpeedRangeMPerS},
    });
}

// --stall-timeout's own wording ("0: never").
Expected<void> ValidateStallTimeout(const RenderOptions& options) {
    const double timeoutS = options.liveness.stallTimeoutS;
    if (!(timeoutS >= 0.0 && timeoutS <= kMaxStallTimeoutS)) {
        return OptionError(
            fmt::format("--stall-timeout must be 0 (never) or {:g}..{:g} seconds, got {:g}",
                        kMinStallTimeoutS, kMaxStallTimeoutS, timeoutS));
    }
    if (timeoutS > 0.0 && timeoutS < kMinStallTimeoutS) {
        return OptionError(fmt::format(
            "--stall-timeout {:g} is shorter than a healthy start-up keeps a rank silent (frame 0 "
            "waits for the first view's tiles): give 0 (never) or {:g}..{:g} seconds",
            timeoutS, kMinStallTimeoutS, kMaxStallTimeoutS));
    }
    return {};
}

// --profile alone measures a --sequential run; with --machine it is the prediction's input.
Expected<void> ValidateProfile(const RenderOptions& options) {
    if (!options.prediction.machinePath.empty() &&
        (options.pipeline.sequential || options.prediction.profilePath.empty())) {
        return OptionError(
            "--machine predicts an MPI run (N >= 3) from a resource profile: give --profile "
            "PROFILE.json with it, without --sequential");
    }
    if (!options.prediction.machinePath.empty() || options.prediction.profilePath.empty())
        return {};
    if (!options.pipeline.sequential || options.pipeline.threads != 1) {
        return OptionError(
            "--profile measures the single-machine program: use it with "
            "--sequential and --threads 1");
    }
    if (options.output.FrameCount() <= options.output.warmupFrames) {
        return OptionError("--profile needs more --frames than --warmup frames");
    }
    return {};
}

}  // namespace

Expected<void> ValidateRenderOptions(const RenderOptions& options, int nRanks) {
    if (auto ok = ValidateJob(options, nRanks); !ok) return ok;
    if (auto ok = ValidateScreen(options.view.screen, options.pipeline.sequential ? 1 : nRanks - 2);
        !ok) {
        return ok;
    }
    if (auto ok = ValidateNumbers(options); !ok) return ok;
    if (auto ok = ValidateStallTimeout(options); !ok) return ok;
    return ValidateProfile(options);
}

namespace {

// Success when `folder` is a folder this process may write in; errors name `option` and its
// value `path`: "--record 'no/dir/flown.json': its folder 'no/dir' does not exist".
Expected<void> CheckWritableFolder(const char* option, const std::string& path,
                                   const std::filesystem::path& folder) {
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error)) {
        return OptionError(
            fmt::format("{} '{}': its folder '{}' does not exist", option, path, folder.string()));
    }
    if (::access(folder.c_str(), W_OK) != 0) {
        return OptionError(fmt::format("{} '{}': its folder '{}' cannot be written to", option,
                                       path, folder.string()));
    }
    return {};
}

}  // namespace

Expected<void> ValidateOutputFiles(const RenderOptions& options) {
    std::pair<const char*, std::string> files[] = {
        {"--record", options.view.recordPath},
        {"--trace", options.output.tracePath},
        {"--profile",
         options.prediction.machinePath.empty() ? options.prediction.profilePath : ""}};
    for (const auto& [option, path] : files) {
        if (path.empty()) continue;
        std::filesystem::path folder = std::filesystem::path(path).parent_path();
        if (auto ok = CheckWritableFolder(option, path, folder.empty() ? "." : folder); !ok) {
            return ok;
        }
    }
    return CheckFolderCanBeMade("--out", options.output.outDir);
}

Expected<void> ParseScreenSize(const std::string& text, ScreenSpec& screen) {
    std::smatch m;
    if (!std::regex_match(text, m, std::regex(R"((\d{1,6})x(\d{1,6}))"))) {
        return OptionError("--size: expected WIDTHxHEIGHT such as 1280x720, got '" + text + "'");
    }
    int widthPx = std::stoi(m[1]), heightPx = std::stoi(m[2]);
    if (auto ok = ValidateScreenSize(widthPx, heightPx); !ok) return ok;
    screen.widthPx = widthPx;
    screen.heightPx = heightPx;
    return {};
}

}  // namespace bfv::common
