#include "pipeline/sequential.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <thread>
#include <vector>

#include "common/decomposition.h"
#include "common/fan.h"
#include "common/file_io.h"
#include "common/interrupt.h"
#include "display/display_rank.h"
#include "display/presenter.h"
#include "pipeline/launcher.h"
#include "predict/codec_meter.h"
#include "predict/resource_profile.h"
#include "raytracer/antialias.h"
#include "raytracer/tracer_rank.h"
#include "terrain-server/local_tile_server.h"
#include "terrain/pinned_ground.h"
#include "terrain/pyramid_file.h"
#include "terrain/terrain_startup.h"

namespace bfv::pipeline {

namespace {

using common::Activity;

// Ray-casts every pixel of the screen into `image` on `threads` threads: the pinhole camera's
// planes (common::FanLayout, `fan` rebuilt in place when the pitch changes), interleaved, so that
// threads share the work evenly. Workers' CPU time goes to `recorder`. Returns the frame's terrain
// samples and those rendered coarser than their footprint asked for.
// With one thread, `stripS` (if given) accumulates the trace time of each of its
// stripS->size() equal strips of columns, left to right (common::SpreadOverColumnStrips): the
// profile's cost per column.
// A frame's working memory kept from frame to frame: the fans of the last pitch (none before
// the first frame), each thread's scratch, and the anti-aliasing's and supersampling's buffers.
struct TraceBuffers {
    explicit TraceBuffers(int threads) : scratch(threads), edges(threads), finePixels(threads) {}

    common::FanLayout fan, fineFan;
    std::vector<raytracer::ColumnScratch> scratch;
    std::vector<float> hitS;                             // --antialias on: every pixel's hit
    std::vector<raytracer::EdgeColours> edges;           // per thread
    std::vector<std::vector<common::Pixel>> finePixels;  // --supersample: per thread
};

// Thread t's share of the screen's columns for the passes split by columns: a contiguous
// slice of `threads` equal ones.
common::ColumnSet ThreadColumns(int t, int threads, int widthPx) {
    return common::ColumnsOf(common::Decomposition::Contiguous, t, threads, widthPx);
}

// Runs work(t) on threads 0..threads-1 (0 on the calling thread) and adds the other threads'
// CPU time to `recorder`'s trace.
template <class Work>
void OnThreads(int threads, common::Recorder& recorder, Work work) {
    std::vector<double> cpuS(threads, 0.0);
    auto timed = [&](int t) {
        double startCpu = common::ThreadCpuS();
        work(t);
        cpuS[t] = common::ThreadCpuS() - startCpu;
    };
    std::vector<std::jthread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back(timed, t);
    timed(0);
    workers.clear();
    for (int t = 1; t < threads; ++t) recorder.Add(Activity::Trace, 0.0, cpuS[t]);
}

// --antialias on: the edge pixels of `image` (whose hits are buffers.hitS) re-sampled, each
// thread a slice of the columns; the colours go in once every thread has read the frame.
void AntialiasFrame(const raytracer::TileCache& cache, const raytracer::FrameRays& rays,
                    const raytracer::CastSettings& settings, int threads, TraceBuffers& buffers,
                    display::Frame& image, common::Recorder& recorder) {
    const int w = image.WidthPx(), h = image.HeightPx();
    raytracer::CastColumns cast;
    cast.heightPx = h;
    for (int x = 0; x < w; ++x) {
        cast.pixels.push_back(image.Column(x));
        cast.hitS.push_back(buffers.hitS.data() + static_cast<std::size_t>(x) * h);
    }
    OnThreads(threads, recorder, [&](int t) {
        raytracer::AntialiasEdges(cache, rays, settings, cast, ThreadColumns(t, threads, w),
                                  buffers.scratch[t], buffers.edges[t]);
    });
    for (const raytracer::EdgeColours& edges : buffers.edges) {
        for (std::size_t e = 0; e < edges.edges.size(); ++e) {
            image.Column(0)[edges.edges[e]] = edges.colours[e];
        }
    }
}

// --supersample S: the reference frame (raytracer::CastSupersampled), each thread a slice of
// the columns. Returns the fine pixels' terrain samples.
common::SampleCounts SupersampleFrame(const raytracer::TileCache& cache,
                                      const common::CameraPose& pose,
                                      const common::RenderOptions& options, TraceBuffers& buffers,
                                      display::Frame& image, common::Recorder& recorder) {
    const common::ScreenSpec& screen = options.view.screen;
    const int s = options.shading.supersample, threads = options.pipeline.threads;
    common::UpdateFanLayout(raytracer::SupersampledScreen(screen, s), pose.pitchRad,
                            buffers.fineFan);
    const raytracer::CastSettings settings = raytracer::CastSettingsFrom(options.shading);
    std::vector<common::SampleCounts> samples(threads);
    OnThreads(threads, recorder, [&](int t) {
        const common::ColumnSet columns = ThreadColumns(t, threads, screen.widthPx);
        samples[t] = raytracer::CastSupersampled(cache, pose, settings, s, buffers.fineFan, columns,
                                                 buffers.scratch[t], buffers.finePixels[t],
                                                 image.Column(columns.first));
    });
    common::SampleCounts total;
    for (const common::SampleCounts& counts : samples) total += counts;
    return total;
}

common::SampleCounts TraceFrame(const raytracer::TileCache& cache, const common::CameraPose& pose,
                                const common::RenderOptions& options, TraceBuffers& buffers,
                                display::Frame& image, common::Recorder& recorder,
                                std::vector<double>* stripS) {
    common::ScopedActivity timing(recorder, Activity::Trace);
    if (options.shading.supersample > 1) {
        return SupersampleFrame(cache, pose, options, buffers, image, recorder);
    }
    const common::ScreenSpec& screen = options.view.screen;
    common::FanLayout& fan = buffers.fan;
    std::vector<raytracer::ColumnScratch>& scratch = buffers.scratch;
    common::UpdateFanLayout(screen, pose.pitchRad, fan);
    raytracer::CastSettings settings = raytracer::CastSettingsFrom(options.shading);
    raytracer::FrameRays rays = raytracer::FrameRaysOf(cache, pose, fan, settings);
    const common::ColumnSet everyColumn{0, 1, screen.widthPx};
    const bool antialias = options.shading.antialias;
    buffers.hitS.resize(antialias ? static_cast<std::size_t>(screen.widthPx) * screen.heightPx : 0);
    std::vector<double> cpuS(options.pipeline.threads, 0.0);
    for (raytracer::ColumnScratch& s : scratch) s.hits = s.coarserHits = 0;
    auto work = [&](int t) {
        double startCpu = common::ThreadCpuS();
        double stripStartS = common::WallClockS();
        for (int p = t; p < fan.PlaneCount(); p += options.pipeline.threads) {
            raytracer::CastPlane(cache, rays, p, settings, everyColumn, scratch[t], image.Column(0),
                                 antialias ? buffers.hitS.data() : nullptr);
            if (stripS && options.pipeline.threads == 1) {
                double now = common::WallClockS();
                common::SpreadOverColumnStrips(fan, p, now - stripStartS, *stripS);
                stripStartS = now;
            }
        }
        cpuS[t] = common::ThreadCpuS() - startCpu;
    };
    std::vector<std::jthread> workers;
    for (int t = 1; t < options.pipeline.threads; ++t) workers.emplace_back(work, t);
    work(0);
    workers.clear();
    for (int t = 1; t < options.pipeline.threads; ++t) recorder.Add(Activity::Trace, 0.0, cpuS[t]);
    common::SampleCounts samples;
    for (const raytracer::ColumnScratch& s : scratch) {
        samples += {static_cast<std::uint64_t>(s.hits), static_cast<std::uint64_t>(s.coarserHits)};
    }
    if (antialias) {
        AntialiasFrame(cache, rays, settings, options.pipeline.threads, buffers, image, recorder);
    }
    return samples;
}

// A profiled run keeps a copy of every this-many-th frame, at most kCodecSamples of them, and
// measures the column codecs on them after the flight: the measurement takes a few ms a frame,
// which would otherwise slow the frames whose rate the run reports.
constexpr int kCodecSampleFrames = 4;
constexpr int kCodecSamples = 16;

int Fail(const Error& error) {
    std::fprintf(stderr, "bfv render: %s\n", error.message.c_str());
    return 1;
}

double TerrainBytes(const common::RenderOptions& options) {
    std::error_code ec;
    auto size = std::filesystem::file_size(options.terrain.terrainPath, ec);
    return ec ? 0.0 : static_cast<double>(size);
}

// Before frame `frame`: the in-process terrain server's records for the view, within the
// budget over the last frame's wall time (all of them with --terrain-sync), applied to `cache`
// (the arriving tiles decoded and shaded on the --threads threads). The server's work is timed
// as TerrainRead, the tiles' as TerrainReceive: the profile's terrain server and tile receive.
Expected<void> StreamTiles(terrain_server::LocalTileServer& server, raytracer::TileCache& cache,
                           int frame, const common::CameraPose& pose, double lastFrameS,
                           const common::RenderOptions& options, common::Recorder& recorder) {
    std::vector<std::byte> records;
    bool whole = options.terrain.WaitsForTiles(frame);
    auto produced = [&] {
        common::ScopedActivity timing(recorder, Activity::TerrainRead);
        return server.ServeFrame(static_cast<std::uint32_t>(frame), pose, lastFrameS, whole,
                                 records);
    }();
    if (!produced) return produced.error();
    common::ScopedActivity timing(recorder, Activity::TerrainReceive);
    if (*produced > 0)
        recorder.AddTraffic(Activity::TerrainReceive, static_cast<double>(*produced), 0);
    return raytracer::ApplyLocalStream(records, cache, whole ? 0 : options.terrain.blendFrames,
                                       options.pipeline.threads);
}

// The parts a sequential run's frames use, opened by Fly; none owned here.
struct Pipeline {
    const common::RenderOptions& options;
    terrain_server::LocalTileServer& server;
    raytracer::TileCache& cache;
    display::Presenter& presenter;
    common::Recorder& recorder;
};

// What a run gathers while it flies for its resource profile (--profile) after it.
struct ProfileSamples {
    explicit ProfileSamples(const common::RenderOptions& options)
        : stripS(std::min(predict::kProfileStrips, options.view.screen.widthPx), 0.0),
          codecStride(
              std::max(kCodecSampleFrames,
                       (options.output.frames - options.output.warmupFrames) / kCodecSamples)) {}

    // Keeps a copy of `image`, the `counted`-th frame after the warm-up, when it is one of
    // every codecStride-th and fewer than kCodecSamples are kept.
    void KeepForCodecs(int counted, const display::Frame& image) {
        if (counted % codecStride != 0 || codecFrames.size() >= kCodecSamples) return;
        codecFrames.emplace_back(image.Pixels().begin(), image.Pixels().end());
    }

    common::Recorder afterWarmup;  // the totals as the first frame after the warm-up began
    std::vector<double> stripS;    // trace time of each strip of columns (TraceFrame)
    double pitchSumRad = 0.0;      // the measured frames' pitches, summed
    double marchS = 0.0;           // their marches' wall time (ColumnScratch::marchS)
    std::vector<std::vector<common::Pixel>> codecFrames;  // frames the codecs are measured on
    int codecStride;                                      // frames between two kept ones
    int frames = 0;                                       // frames rendered, warm-up included
};

// Renders frames until the presenter gives no pose (the frame count reached, Esc, an
// interrupt): each frame's tiles streamed, its columns traced and the frame presented.
// Errors: the tile stream's or the presenter's.
Expected<void> FlyFrames(const Pipeline& run, ProfileSamples& samples) {
    const common::RenderOptions& options = run.options;
    TraceBuffers buffers(options.pipeline.threads);
    display::Frame image(options.view.screen.widthPx, options.view.screen.heightPx);
    for (int f = 0;; ++f) {
        while (run.presenter.WaitWhilePaused(1.0)) {
        }
        auto pose = run.presenter.NextPose(f);
        if (!pose) return {};
        if (f == options.output.warmupFrames) samples.afterWarmup = run.recorder;
        samples.frames = f + 1;
        bool profiling =
            !options.prediction.profilePath.empty() && f >= options.output.warmupFrames;
        const std::vector<double>& frameTimesS = run.presenter.FrameTimesS();
        double lastFrameS = frameTimesS.empty() ? 0.0 : frameTimesS.back();
        if (auto ok =
                StreamTiles(run.server, run.cache, f, *pose, lastFrameS, options, run.recorder);
            !ok) {
            return ok;
        }
        raytracer::ColumnScratch& scratch = buffers.scratch[0];
        scratch.timeMarch = profiling;  // --profile runs one thread
        scratch.marchS = 0.0;
        common::SampleCounts frameSamples =
            TraceFrame(run.cache, *pose, options, buffers, image, run.recorder,
                       profiling ? &samples.stripS : nullptr);
        if (profiling) {
            samples.KeepForCodecs(f - options.output.warmupFrames, image);
            samples.pitchSumRad += pose->pitchRad;
            samples.marchS += scratch.marchS;
        }
        if (auto ok = run.presenter.Present(f, image, 1, run.recorder, frameSamples); !ok) {
            return ok;
        }
    }
}

// The run's report: its frames, and its one rank's activities, memory and tile stream over
// `wallS` seconds.
common::RunReport SequentialReport(const Pipeline& run, const std::string& terrainName,
                                   double wallS) {
    common::RunReport report;
    report.options = run.options;
    report.mode = common::RunMode::Sequential;
    report.nRanks = 1;
    report.terrainName = terrainName;
    report.resolutionDeficit = run.presenter.ResolutionDeficit();
    report.frameTimesS = run.presenter.FrameTimesS();
    report.checksums = run.presenter.Checksums();
    report.pngQueueWaits = run.presenter.PngQueueWaits();
    report.pngQueueWaitS = run.presenter.PngQueueWaitS();
    common::RankSummary summary{0,
                                0,
                                wallS,
                                common::PeakResidentMiB(),
                                run.recorder.All(),
                                {},
                                static_cast<double>(run.cache.ResidentBytes()) / (1 << 20),
                                common::ProcessCpuQuota()};
    summary.terrain.tilesSent = static_cast<double>(run.server.Scheduler().TilesSent());
    summary.terrain.tilesEvicted = static_cast<double>(run.server.Scheduler().TilesEvicted());
    summary.terrain.bytesSent = run.server.StreamBytes();
    summary.terrain.tilesRead = static_cast<double>(run.server.Source().TilesRead());
    summary.terrain.tilesRefined = static_cast<double>(run.server.Source().TilesRefined());
    report.ranks.push_back(summary);
    if (int signal = run.presenter.InterruptedBy(); signal != 0) {
        report.end = common::RunEnd::Interrupted;
        report.endReason = std::string("interrupted by ") + common::SignalName(signal);
    }
    return report;
}

// --profile: the resource profile of the flight (`recorder`'s totals, `samples`) written to
// options.prediction.profilePath. Errors: the file could not be written.
Expected<void> WriteProfile(const common::RenderOptions& options, const std::string& terrainName,
                            const common::Recorder& recorder, const ProfileSamples& samples) {
    auto profile = predict::BuildResourceProfile(
        options, terrainName, recorder, samples.afterWarmup, samples.frames,
        options.output.warmupFrames, TerrainBytes(options));
    profile.columnCostShares = predict::Shares(samples.stripS);
    if (profile.framesMeasured > 0) {
        profile.view.pitchRad = samples.pitchSumRad / profile.framesMeasured;
    }
    const double traceS = profile.app.rayTrace.rtexS * profile.framesMeasured;
    if (traceS > 0.0) {
        profile.view.marchShare = std::clamp(samples.marchS / traceS, 0.0, 1.0);
    }
    predict::CodecMeter codecs;
    for (const auto& pixels : samples.codecFrames) {
        codecs.Measure(pixels, options.view.screen.widthPx, options.view.screen.heightPx,
                       options.pipeline.columnsPerMessage);
    }
    profile.codecs = codecs.Costs();
    std::string json = predict::ResourceProfileJson(profile).dump(2) + "\n";
    auto bytes = std::as_bytes(std::span(json.data(), json.size()));
    if (auto ok = common::WriteFileAtomic(options.prediction.profilePath, bytes); !ok) return ok;
    std::printf("  wrote resource profile %s\n", options.prediction.profilePath.c_str());
    return {};
}

// The flight over the terrain `file` (its start-up read): the frames, the report and, with
// --profile, the resource profile. Returns the exit code.
int Fly(const common::RenderOptions& options, const terrain::PyramidFile& file,
        const terrain::TerrainStartup& startup, common::Recorder& recorder) {
    double waterLevelM =
        terrain::WaterLevelM(options.shading.DrawnSeaLevelM(), options.shading.water, startup.info);
    raytracer::TileCache cache = raytracer::StartupCache(startup, options.shading);
    terrain::PinnedGround ground(startup, waterLevelM);
    auto flight = display::MakeFlight(options.view, ground);
    if (!flight) return Fail(flight.error());
    auto presenter = display::Presenter::Create(options, *flight, display::FlightGround(ground));
    if (!presenter) return Fail(presenter.error());
    terrain_server::LocalTileServer server(file, terrain_server::SchedulerOptionsFrom(options),
                                           options.terrain.terrainBudgetBytesPerS);
    Pipeline run{options, server, cache, **presenter, recorder};
    double startS = common::WallClockS();
    ProfileSamples samples(options);
    if (auto ok = FlyFrames(run, samples); !ok) return Fail(ok.error());
    common::RunReport report =
        SequentialReport(run, file.Info().name, common::WallClockS() - startS);
    if (auto ok = (*presenter)->Finish(report); !ok) return Fail(ok.error());
    if (int signal = (*presenter)->InterruptedBy(); signal != 0)
        return common::InterruptedExitCode(signal);
    if (options.prediction.profilePath.empty()) return 0;
    if (auto ok = WriteProfile(options, file.Info().name, recorder, samples); !ok)
        return Fail(ok.error());
    return 0;
}

}  // namespace

int RunSequential(const common::RenderOptions& options) {
    // Under mpiexec every process gets here and is refused: let one of them say so.
    if (auto ok = common::ValidateRenderOptions(options, LaunchedProcesses()); !ok) {
        return IsLeadProcess() ? Fail(ok.error()) : 1;
    }
    if (auto ok = common::ValidateOutputFiles(options); !ok) return Fail(ok.error());
    common::InstallInterruptHandlers();
    common::Recorder recorder;
    auto file = [&] {
        common::ScopedActivity timing(recorder, Activity::TerrainRead);
        return terrain::PyramidFile::Open(options.terrain.terrainPath);
    }();
    if (!file) return Fail(file.error());
    auto startup = terrain::ReadTerrainStartup(*file);
    if (!startup) return Fail(startup.error());
    terrain::Exaggerate(*startup, options.shading.exaggeration);
    return Fly(options, *file, *startup, recorder);
}

}  // namespace bfv::pipeline
