#include "raytracer/tracer_rank.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/cpu_quota.h"
#include "common/decomposition.h"
#include "common/interrupt.h"
#include "common/messages.h"
#include "common/mpi_wait.h"
#include "common/rank_protocol.h"
#include "common/tags.h"
#include "raytracer/antialias.h"
#include "terrain/terrain_broadcast.h"

namespace bfv::raytracer {

namespace {

using common::Activity;

// Messages of one frame in flight: buffers stay untouched until their sends complete.
struct FrameSends {
    std::vector<std::vector<std::byte>> buffers;
    std::vector<MPI_Request> requests;
};

// The terrain server's tile stream as this tracer receives it: messages are probed for and
// received without blocking, and their records applied to the cache between frames.
class TileStreamClient {
  public:
    TileStreamClient(const common::Group& group, const common::RenderOptions& options,
                     TileCache& cache)
        : group_(group), options_(options), cache_(cache) {}

    // Before frame `frame`: with --terrain-sync waits for every tile the frame needs;
    // otherwise takes whatever has arrived. Then moves blends on.
    void BeforeFrame(std::uint32_t frame, common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::TerrainReceive);
        lastFrame_ = static_cast<long long>(frame) - 1;
        if (options_.terrain.WaitsForTiles(static_cast<int>(frame))) {
            blendFrames_ = 0;  // what the frame waits for is drawn at once
            while (progress_.lastFrameReady < static_cast<long long>(frame)) Pump(true, recorder);
        } else {
            blendFrames_ = options_.terrain.terrainSync ? 0 : options_.terrain.blendFrames;
            while (Pump(false, recorder)) {
            }
            cache_.AdvanceFrame();
        }
    }

    // After the last frame: takes the rest of the stream, so the server's sends complete.
    void DrainToEnd(common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::TerrainReceive);
        ++lastFrame_;
        while (!progress_.endOfStream) Pump(true, recorder);
    }

  private:
    // Applies what has arrived; with `wait`, waits for one message when the stream has nothing
    // new to apply. Returns whether it applied a message.
    bool Pump(bool wait, common::Recorder& recorder) {
        StreamProgress before = progress_;
        Apply();
        if (progress_.lastFrameReady != before.lastFrameReady ||
            progress_.endOfStream != before.endOfStream) {
            return true;
        }
        if (progress_.endOfStream) return false;  // nothing comes after the end
        MPI_Status status;
        int ready = 0;
        BFV_MPI_CHECK(MPI_Iprobe(group_.serverRank(), common::tags::kTerrainTiles, group_.comm,
                                 &ready, &status));
        if (!ready && !wait) return false;
        double limitS = common::StallLimitS(options_.liveness.stallTimeoutS,
                                            common::Role::RayTracer, common::Role::TerrainServer);
        if (!ready && !common::ProbeYielding(group_.serverRank(), common::tags::kTerrainTiles,
                                             group_.comm, &status, limitS)) {
            common::AbortJob(
                group_, common::StallError(group_, group_.serverRank(), "terrain tiles", limitS,
                                           options_.liveness.stallTimeoutS, lastFrame_));
        }
        int bytes = 0;
        BFV_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
        message_.resize(static_cast<std::size_t>(bytes));
        BFV_MPI_CHECK(MPI_Recv(message_.data(), bytes, MPI_BYTE, group_.serverRank(),
                               common::tags::kTerrainTiles, group_.comm, MPI_STATUS_IGNORE));
        recorder.AddTraffic(Activity::TerrainReceive, bytes, 1);
        reader_.Feed(message_);
        Apply();
        return true;
    }

    void Apply() {
        if (auto ok = ApplyTileStream(reader_, cache_, blendFrames_, progress_); !ok) {
            common::AbortJob(group_, ok.error());
        }
    }

    const common::Group& group_;
    const common::RenderOptions& options_;
    TileCache& cache_;
    terrain::TileStreamReader reader_;
    StreamProgress progress_;
    std::vector<std::byte> message_;
    long long lastFrame_ = -1;  // the last frame this tracer completed, for stall messages
    int blendFrames_ = 0;       // frames over which tiles applied now blend in
};

class Tracer {
  public:
    Tracer(const common::Group& group, const common::RenderOptions& options, const TileCache& cache)
        : group_(group),
          options_(options),
          cache_(cache),
          settings_(CastSettingsFrom(options.shading)) {}

    // Traces `columns` of frame `frame`: the pinhole camera's planes that cross them
    // (common::FanLayout, rebuilt when the pitch changes), each for its pixels in `columns`.
    // Every kPlanesPerProgress planes it lets MPI move the previous frame's messages along: over
    // TCP (and for rendezvous messages) bytes only move while the sender is inside MPI, so
    // without this the send would wait for the trace to end.
    void Render(std::uint32_t frame, const common::CameraPose& pose,
                const common::ColumnSet& columns, common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Trace);
        double startS = common::WallClockS();
        double startCpuS = common::ThreadCpuS();
        int h = options_.view.screen.heightPx;
        columns_ = columns;
        pixels_.resize(static_cast<size_t>(columns_.count) * h);
        coarserSamples_.assign(columns_.count, 0);
        terrainSamples_.assign(columns_.count, 0);
        if (options_.shading.supersample > 1) {
            RenderSupersampled(pose);
        } else {
            RenderPixels(pose, inFlight_[(frame + 1) % 2]);
        }
        const double cpuS = common::ThreadCpuS() - startCpuS;
        sustained_.Add(common::WallClockS() - startS, cpuS);
        traceUs_ = SustainedUs(cpuS);
    }

    // The current frame's tiles took `cpuS` CPU seconds to take in: at the share of a core the
    // trace sustains, what the split balances besides the trace. CPU rather than wall time,
    // since with --terrain-sync the wall also waits for the server, which every tracer does.
    void TookTiles(double cpuS) { tileReceiveUs_ = SustainedUs(cpuS); }

    // Render's one ray per pixel over the fan of the pose's pitch, then (--antialias on) the
    // extra rays of edge pixels. Lets MPI move `previous` (the last frame's sends) along.
    void RenderPixels(const common::CameraPose& pose, FrameSends& previous) {
        common::UpdateFanLayout(options_.view.screen, pose.pitchRad, fan_);
        FrameRays rays = FrameRaysOf(cache_, pose, fan_, settings_);
        const bool antialias = options_.shading.antialias;
        hitS_.resize(antialias ? pixels_.size() : 0);
        std::vector<int> planes = common::PlanesCrossing(fan_, columns_);
        for (std::size_t i = 0; i < planes.size(); ++i) {
            scratch_.hits = scratch_.coarserHits = 0;
            CastPlane(cache_, rays, planes[i], settings_, columns_, scratch_, pixels_.data(),
                      antialias ? hitS_.data() : nullptr);
            // A plane's samples count in the leftmost of its columns in the slice.
            if (scratch_.hits > 0) {
                int x = std::clamp(fan_.planeMinX[planes[i]], columns_.first,
                                   columns_.At(columns_.count - 1));
                std::size_t column = (x - columns_.first) / columns_.stride;
                coarserSamples_[column] += static_cast<std::uint32_t>(scratch_.coarserHits);
                terrainSamples_[column] += static_cast<std::uint32_t>(scratch_.hits);
            }
            if (i % kPlanesPerProgress == kPlanesPerProgress - 1) Progress(previous);
        }
        if (antialias) {
            AntialiasColumns(cache_, rays, settings_, columns_, pixels_.data(), hitS_.data(),
                             scratch_, antialiasBuffers_);
        }
    }

    // Render's --supersample S: the reference (CastSupersampled), its samples counted in the
    // slice's first column.
    void RenderSupersampled(const common::CameraPose& pose) {
        const int s = options_.shading.supersample;
        common::UpdateFanLayout(SupersampledScreen(options_.view.screen, s), pose.pitchRad,
                                fineFan_);
        common::SampleCounts samples = CastSupersampled(
            cache_, pose, settings_, s, fineFan_, columns_, scratch_, finePixels_, pixels_.data());
        terrainSamples_[0] += static_cast<std::uint32_t>(samples.terrain);
        coarserSamples_[0] += static_cast<std::uint32_t>(samples.coarser);
    }

    void Send(std::uint32_t frame, common::Recorder& recorder) {
        FrameSends& sends = inFlight_[frame % 2];
        WaitAll(sends, static_cast<long long>(frame) - 2, recorder);
        int cpm = options_.pipeline.columnsPerMessage,
            nMessages = common::MessagesPerFrame(columns_, cpm);
        sends.buffers.resize(nMessages);  // their earlier sends are complete
        sends.requests.assign(nMessages, MPI_REQUEST_NULL);
        for (size_t m = 0; m < sends.buffers.size(); ++m) {
            int first = static_cast<int>(m) * cpm, n = std::min(cpm, columns_.count - first);
            Pack(frame, first, n, sends.buffers[m], recorder);
            common::ScopedActivity timing(recorder, Activity::Send);
            BFV_MPI_CHECK(MPI_Isend(
                sends.buffers[m].data(), static_cast<int>(sends.buffers[m].size()), MPI_BYTE,
                group_.displayRank(), common::tags::kColumns, group_.comm, &sends.requests[m]));
            recorder.AddTraffic(Activity::Send, static_cast<double>(sends.buffers[m].size()), 1);
        }
    }

    // After the last frame, `lastFrame`: waits for its sends and the frame's before.
    void Drain(long long lastFrame, common::Recorder& recorder) {
        for (long long f = lastFrame - 1; f <= lastFrame; ++f) {
            if (f >= 0) WaitAll(inFlight_[f % 2], f, recorder);
        }
    }

  private:
    void Pack(std::uint32_t frame, int first, int n, std::vector<std::byte>& out,
              common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Pack);
        common::ColumnsHeader header;
        header.frame = frame;
        header.firstColumn = static_cast<std::uint32_t>(columns_.At(first));
        header.columnStride = static_cast<std::uint32_t>(columns_.stride);
        header.nColumns = static_cast<std::uint32_t>(n);
        header.heightPx = static_cast<std::uint32_t>(options_.view.screen.heightPx);
        header.coarserSamples = std::accumulate(coarserSamples_.begin() + first,
                                                coarserSamples_.begin() + first + n, 0u);
        header.terrainSamples = std::accumulate(terrainSamples_.begin() + first,
                                                terrainSamples_.begin() + first + n, 0u);
        header.traceUs = traceUs_;
        header.tileReceiveUs = tileReceiveUs_;
        size_t offset = static_cast<size_t>(first) * options_.view.screen.heightPx;
        common::EncodeColumns(
            header, std::span(pixels_).subspan(offset, static_cast<size_t>(n) * header.heightPx),
            options_.pipeline.columnCodec, out);
    }

    static constexpr std::size_t kPlanesPerProgress = 32;

    // `cpuS` CPU seconds at the share of a core the trace sustains, in whole microseconds.
    std::uint32_t SustainedUs(double cpuS) const {
        return static_cast<std::uint32_t>(std::lround(sustained_.SecondsOf(cpuS) * 1e6));
    }

    static void Progress(FrameSends& sends) {
        int done = 0;
        BFV_MPI_CHECK(MPI_Testall(static_cast<int>(sends.requests.size()), sends.requests.data(),
                                  &done, MPI_STATUSES_IGNORE));
    }

    // Waits for the sends of frame `frame` to complete.
    void WaitAll(FrameSends& sends, long long frame, common::Recorder& recorder) {
        common::ScopedActivity timing(recorder, Activity::Send);
        double limitS = common::StallLimitS(options_.liveness.stallTimeoutS,
                                            common::Role::RayTracer, common::Role::Display);
        if (!common::WaitAllYielding(static_cast<int>(sends.requests.size()), sends.requests.data(),
                                     limitS)) {
            common::AbortJob(group_, common::StallError(
                                         group_, group_.displayRank(),
                                         "receive of the columns of frame " + std::to_string(frame),
                                         limitS, options_.liveness.stallTimeoutS, frame));
        }
    }

    const common::Group& group_;
    const common::RenderOptions& options_;
    const TileCache& cache_;
    CastSettings settings_;
    common::ColumnSet columns_;  // of the current frame
    std::vector<common::Pixel> pixels_;
    std::vector<std::uint32_t> coarserSamples_;  // per column of the current frame
    std::vector<std::uint32_t> terrainSamples_;  // per column of the current frame
    std::uint32_t traceUs_ = 0;                  // trace time of the current frame
    std::uint32_t tileReceiveUs_ = 0;            // its tiles' time (TookTiles)
    // The share of a core this rank's trace sustains (under a CPU quota, on a crowded host).
    common::SustainedShare sustained_;
    ColumnScratch scratch_;
    common::FanLayout fan_;  // of the current frame's pitch (none before the first frame)
    // --antialias on: the hit distances of pixels_, and the pass's working memory.
    std::vector<float> hitS_;
    AntialiasBuffers antialiasBuffers_;
    // --supersample S: the fan of the S-times larger screen and its pixels of this slice.
    common::FanLayout fineFan_;
    std::vector<common::Pixel> finePixels_;
    std::array<FrameSends, 2> inFlight_;
};

// This tracer's columns in the frame `command` starts: from the split it carries with
// --decomposition dynamic, else fixed by the decomposition.
Expected<common::ColumnSet> ColumnsFor(const common::FrameCommand& command,
                                       const common::Group& group,
                                       const common::RenderOptions& options) {
    int nTracers = group.tracerCount(), widthPx = options.view.screen.widthPx;
    if (options.pipeline.decomposition != common::Decomposition::Dynamic)
        return common::ColumnsOf(options.pipeline.decomposition, group.tracerIndex(), nTracers,
                                 widthPx);
    auto split = command.Split(nTracers, widthPx);
    if (!split) return split.error();
    return common::SliceOf(*split, group.tracerIndex());
}

}  // namespace

CastSettings CastSettingsFrom(const common::ShadingOptions& shading) {
    CastSettings settings;
    settings.hazeHalfDistanceM = shading.hazeHalfDistanceM;
    settings.lodBias = shading.lodBias;
    settings.maxAnisotropy = shading.maxAnisotropy;
    settings.secantMaxCellPixels = shading.secantMaxCellPixels;
    return settings;
}

TileCache StartupCache(const terrain::TerrainStartup& startup,
                       const common::ShadingOptions& shading) {
    Lighting lighting;
    lighting.sunAzimuthRad = shading.sunAzimuthDeg * common::kRadPerDeg;
    lighting.sunElevationRad = shading.sunElevationDeg * common::kRadPerDeg;
    LandModel land;
    if (shading.snow) {
        const terrain::GeoExtent& geo = startup.info.geo;
        bool georeferenced = geo.latMaxDeg > geo.latMinDeg;
        double latitudeDeg = georeferenced ? 0.5 * (geo.latMinDeg + geo.latMaxDeg) : 45.0;
        land.snowLineM =
            shading.exaggeration * shading.snowLineM.value_or(DefaultSnowLineM(latitudeDeg));
    }
    return PinnedCache(startup,
                       terrain::WaterLevelM(shading.DrawnSeaLevelM(), shading.water, startup.info),
                       lighting, shading.shadows, land);
}

int RunRayTracer(const common::Group& group, const common::RenderOptions& options) {
    common::Recorder recorder;
    if (!options.output.tracePath.empty()) recorder.StartTimeline(0, common::kMaxTimelineEvents);
    auto startup = terrain::ReceiveTerrainStartup(group, options.terrain.terrainMessageBytes,
                                                  recorder, options.liveness.stallTimeoutS);
    if (!startup) return 1;  // the terrain server reports the error
    terrain::Exaggerate(*startup, options.shading.exaggeration);
    TileCache cache = [&] {
        common::ScopedActivity timing(recorder, Activity::TerrainReceive);
        return StartupCache(*startup, options.shading);
    }();
    TileStreamClient stream(group, options, cache);
    Tracer tracer(group, options, cache);
    common::NotifyReady(group);
    double startS = common::WallClockS();
    double commandLimitS = common::StallLimitS(options.liveness.stallTimeoutS,
                                               common::Role::RayTracer, common::Role::Display);
    long long lastFrame = -1;  // the last frame traced and sent
    bool notified = false;     // whether the display knows of this rank's interrupt
    common::FrameCommand command;
    for (;;) {
        if (int signal = common::InterruptSignal(); signal != 0 && !notified) {
            common::NotifyInterrupted(group, signal);
            notified = true;
        }
        auto next = common::ReceiveFrameCommand(group, recorder, commandLimitS);
        if (!next) {
            common::AbortJob(group, common::StallError(group, group.displayRank(), "frame command",
                                                       commandLimitS,
                                                       options.liveness.stallTimeoutS, lastFrame));
        }
        command = *next;
        if (command.kind == common::FrameCommand::kHeartbeat)
            continue;  // the display waits or is paused
        if (command.kind != common::FrameCommand::kRender) break;
        auto columns = ColumnsFor(command, group, options);
        if (!columns) common::AbortJob(group, columns.error());
        const double tilesStartCpuS = common::ThreadCpuS();
        stream.BeforeFrame(command.frame, recorder);
        tracer.TookTiles(common::ThreadCpuS() - tilesStartCpuS);
        tracer.Render(command.frame, command.Pose(), *columns, recorder);
        tracer.Send(command.frame, recorder);
        lastFrame = command.frame;
    }
    tracer.Drain(lastFrame, recorder);
    if (command.kind == common::FrameCommand::kAbort) return 1;
    stream.DrainToEnd(recorder);
    common::RankSummary extra;
    extra.residentTileMiB = static_cast<double>(cache.ResidentBytes()) / (1 << 20);
    return common::FinishRank(group, recorder, common::WallClockS() - startS, extra, options);
}

}  // namespace bfv::raytracer
