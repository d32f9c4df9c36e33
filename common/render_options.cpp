#include "common/render_options.h"

#include <fmt/format.h>

#include <cmath>
#include <regex>
#include <string>

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
    if (!(screen.hFovRad > 0.017 && screen.hFovRad < 2.8)) {
        return OptionError("--fov must be between 1 and 160 degrees");
    }
    return {};
}

}  // namespace

Expected<void> ValidateRenderOptions(const RenderOptions& options, int nRanks) {
    if (!options.sequential && nRanks < 3) {
        return OptionError(
            "bfv render needs at least 3 MPI ranks (terrain server, ray tracer, "
            "display), got " +
            std::to_string(nRanks) + "; run `mpiexec -n 3 bfv render ...` or use --sequential");
    }
    if (auto ok = ValidateScreen(options.screen, options.sequential ? 1 : nRanks - 2); !ok) {
        return ok;
    }
    if (!options.sequential && options.decomposition == Decomposition::Dynamic &&
        nRanks - 2 > kMaxDynamicTracers) {
        return OptionError("--decomposition dynamic serves at most " +
                           std::to_string(kMaxDynamicTracers) +
                           " ray tracers (N <= " + std::to_string(kMaxDynamicTracers + 2) +
                           "); use contiguous or interleaved");
    }
    if (options.columnsPerMessage < 1) return OptionError("--columns-per-message must be >= 1");
    if (options.receiveThreads < 1 || options.receiveThreads > 64) {
        return OptionError("--receive-threads must be 1..64");
    }
    if (options.terrainMessageBytes < 64)
        return OptionError("--terrain-message-bytes must be >= 64");
    if (!(options.terrainBudgetBytesPerS >= 0.0)) {
        return OptionError(
            "--terrain-budget must be >= 0 bytes/s (0 streams nothing: coarse "
            "levels only)");
    }
    if (options.cacheMiB < 0 || options.cacheMiB > 1 << 20)
        return OptionError("--cache-mib must be 0..1048576");
    if (options.blendFrames < 0 || options.blendFrames > 1000)
        return OptionError("--blend-frames must be 0..1000");
    if (options.frames < 0 || options.warmupFrames < 0 || options.pngEvery < 0) {
        return OptionError("--frames, --warmup and --png-every must not be negative");
    }
    if (options.threads < 1 || options.threads > 256)
        return OptionError("--threads must be 1..256");
    if (!(options.stallTimeoutS >= 0.0 && options.stallTimeoutS <= kMaxStallTimeoutS)) {
        return OptionError("--stall-timeout must be 0..86400 seconds (0: never), got " +
                           fmt::format("{:g}", options.stallTimeoutS));
    }
    if (!(options.frameDtS > 0.0) || !(options.hazeHalfDistanceM > 0.0) ||
        !(options.lodBias > 0.0)) {
        return OptionError("--frame-dt, --haze and --lod-bias must be positive");
    }
    if (!options.machinePath.empty() && (options.sequential || options.profilePath.empty())) {
        return OptionError(
            "--machine predicts an MPI run (N >= 3) from a resource profile: give --profile "
            "PROFILE.json with it, without --sequential");
    }
    if (options.machinePath.empty() && !options.profilePath.empty() &&
        (!options.sequential || options.threads != 1)) {
        return OptionError(
            "--profile measures the single-machine program: use it with "
            "--sequential and --threads 1");
    }
    if (options.machinePath.empty() && !options.profilePath.empty() &&
        options.FrameCount() <= options.warmupFrames) {
        return OptionError("--profile needs more --frames than --warmup frames");
    }
    if (!(options.flightStyle.speedMPerS > 0.0) || std::abs(options.flightStyle.pitchRad) > 1.4) {
        return OptionError("--speed must be positive and --pitch within +-80 degrees");
    }
    return {};
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
