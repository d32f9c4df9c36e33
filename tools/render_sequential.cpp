#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <thread>
#include <vector>

#include "common/decomposition.h"
#include "common/file_io.h"
#include "common/mpi_group.h"
#include "common/resource_profile.h"
#include "common/terrain_file.h"
#include "display/display_rank.h"
#include "display/presenter.h"
#include "raytracer/tracer_rank.h"
#include "tools/render.h"

namespace bfv::tools {

namespace {

using common::Activity;

// Ray-casts every column of the screen into `image` on `threads` threads (interleaved
// columns, so threads share the work evenly). Workers' CPU time goes to `recorder`.
// With one thread, `stripS` (if given) accumulates the trace time of each of its
// stripS->size() equal strips of columns, left to right: the profile's cost per column.
void TraceFrame(const raytracer::TerrainPyramid& pyramid, const common::CameraPose& pose,
                const common::RenderOptions& options,
                std::vector<raytracer::ColumnScratch>& scratch, display::Frame& image,
                common::Recorder& recorder, std::vector<double>* stripS) {
    common::ScopedActivity timing(recorder, Activity::Trace);
    raytracer::CastSettings settings = raytracer::CastSettingsFrom(options);
    std::vector<double> cpuS(options.threads, 0.0);
    auto work = [&](int t) {
        double startCpu = common::ThreadCpuS();
        auto columns = common::ColumnsOf(common::Decomposition::Interleaved, t, options.threads,
                                         options.screen.widthPx);
        double stripStartS = common::WallClockS();
        for (int k = 0; k < columns.count; ++k) {
            int x = columns.At(k);
            raytracer::CastColumn(pyramid, pose, options.screen, settings, x, scratch[t],
                                  image.Column(x));
            if (stripS && options.threads == 1) {
                size_t strip = static_cast<size_t>(x) * stripS->size() / options.screen.widthPx;
                double now = common::WallClockS();
                (*stripS)[strip] += now - stripStartS;
                stripStartS = now;
            }
        }
        cpuS[t] = common::ThreadCpuS() - startCpu;
    };
    std::vector<std::jthread> workers;
    for (int t = 1; t < options.threads; ++t) workers.emplace_back(work, t);
    work(0);
    workers.clear();
    for (int t = 1; t < options.threads; ++t) recorder.Add(Activity::Trace, 0.0, cpuS[t]);
}

int Fail(const Error& error) {
    std::fprintf(stderr, "bfv render: %s\n", error.message.c_str());
    return 1;
}

double TerrainBytes(const common::RenderOptions& options) {
    std::error_code ec;
    auto size = std::filesystem::file_size(options.terrainPath, ec);
    return ec ? 0.0 : static_cast<double>(size);
}

Expected<common::Terrain> LoadTerrain(const std::string& path, common::Recorder& recorder) {
    common::ScopedActivity timing(recorder, Activity::TerrainRead);
    return common::ReadTerrainFile(path);
}

}  // namespace

int RunSequential(const common::RenderOptions& options) {
    if (auto ok = common::ValidateRenderOptions(options, 0); !ok) return Fail(ok.error());
    common::Recorder recorder;
    auto terrain = LoadTerrain(options.terrainPath, recorder);
    if (!terrain) return Fail(terrain.error());
    auto flight = display::MakeFlight(options, *terrain);
    if (!flight) return Fail(flight.error());
    auto presenter = display::Presenter::Create(options, *flight, display::FlightGround(*terrain));
    if (!presenter) return Fail(presenter.error());
    raytracer::TerrainPyramid pyramid = [&] {
        common::ScopedActivity timing(recorder, Activity::TerrainReceive);
        return raytracer::TerrainPyramid(*terrain);
    }();
    std::vector<raytracer::ColumnScratch> scratch(options.threads);
    display::Frame image(options.screen.widthPx, options.screen.heightPx);
    double startS = common::WallClockS();
    common::Recorder afterWarmup;
    std::vector<double> stripS(std::min(common::kProfileStrips, options.screen.widthPx), 0.0);
    int frames = 0;
    for (int f = 0;; ++f) {
        auto pose = (*presenter)->NextPose(f);
        if (!pose) break;
        if (f == options.warmupFrames) afterWarmup = recorder;
        frames = f + 1;
        bool profiling = !options.profilePath.empty() && f >= options.warmupFrames;
        TraceFrame(pyramid, *pose, options, scratch, image, recorder,
                   profiling ? &stripS : nullptr);
        if (auto ok = (*presenter)->Present(f, image, 1, recorder); !ok) {
            return Fail(ok.error());
        }
    }
    common::RunReport report;
    report.options = options;
    report.mode = "sequential";
    report.nRanks = 1;
    report.terrainName = terrain->name;
    report.frameTimesS = (*presenter)->FrameTimesS();
    report.checksums = (*presenter)->Checksums();
    report.ranks.push_back(
        {0, 0, common::WallClockS() - startS, common::PeakResidentMiB(), recorder.All()});
    if (auto ok = (*presenter)->Finish(report); !ok) return Fail(ok.error());
    if (options.profilePath.empty()) return 0;
    auto profile =
        common::BuildResourceProfile(options, terrain->name, recorder, afterWarmup, frames,
                                     options.warmupFrames, TerrainBytes(options));
    profile.columnCostShares = common::Shares(stripS);
    std::string json = common::ResourceProfileJson(profile).dump(2) + "\n";
    auto bytes = std::as_bytes(std::span(json.data(), json.size()));
    if (auto ok = common::WriteFileAtomic(options.profilePath, bytes); !ok) return Fail(ok.error());
    std::printf("  wrote resource profile %s\n", options.profilePath.c_str());
    return 0;
}

}  // namespace bfv::tools
