#include "terrain-server/server_rank.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/file_io.h"
#include "common/interrupt.h"
#include "common/mpi_wait.h"
#include "common/peer_loss.h"
#include "common/rank_protocol.h"
#include "common/report.h"
#include "common/tags.h"
#include "terrain-server/tile_scheduler.h"
#include "terrain/pyramid_file.h"
#include "terrain/terrain_broadcast.h"
#include "terrain/terrain_startup.h"
#include "terrain/tile_stream.h"

namespace bfv::terrain_server {

namespace {

using common::Activity;

// The start-up terrain of an opened pyramid, encoded for the broadcast.
Expected<std::vector<std::byte>> StartupBytes(const terrain::PyramidFile& file) {
    auto startup = terrain::ReadTerrainStartup(file);
    if (!startup) return startup.error();
    return terrain::EncodeTerrainStartup(*startup);
}

// The tile stream to every ray tracer: bytes queue up, leave in messages of messageBytes (the
// last one short when flushed), one copy per tracer, by non-blocking sends.
class StreamSender {
  public:
    StreamSender(const common::Group& group, int messageBytes, common::Recorder& recorder)
        : group_(group),
          messageBytes_(static_cast<std::size_t>(messageBytes)),
          recorder_(recorder) {}

    std::vector<std::byte>& Pending() { return pending_; }
    std::size_t MessagesInFlight() const { return inFlight_.size(); }
    double StreamBytes() const { return streamBytes_; }

    // Sends whole messages from the pending bytes, and the rest too when `flush`.
    void Send(bool flush) {
        std::size_t at = 0;
        while (pending_.size() - at >= messageBytes_ || (flush && at < pending_.size())) {
            std::size_t n = std::min(messageBytes_, pending_.size() - at);
            Message& m = inFlight_.emplace_back();
            m.bytes.assign(pending_.begin() + at, pending_.begin() + at + n);
            for (int t = 0; t < group_.tracerCount(); ++t) {
                m.requests.emplace_back();
                BFV_MPI_CHECK(MPI_Isend(m.bytes.data(), static_cast<int>(n), MPI_BYTE,
                                        group_.tracerRank(t), common::tags::kTerrainTiles,
                                        group_.comm, &m.requests.back()));
            }
            recorder_.AddTraffic(Activity::TerrainSend,
                                 static_cast<double>(n * group_.tracerCount()),
                                 group_.tracerCount());
            streamBytes_ += static_cast<double>(n);
            at += n;
        }
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(at));
    }

    // Frees the buffers of completed messages; true if any completed.
    bool Reap() {
        bool any = false;
        while (!inFlight_.empty()) {
            Message& m = inFlight_.front();
            int done = 0;
            BFV_MPI_CHECK(MPI_Testall(static_cast<int>(m.requests.size()), m.requests.data(), &done,
                                      MPI_STATUSES_IGNORE));
            if (!done) break;
            inFlight_.pop_front();
            any = true;
        }
        return any;
    }

    // Waits for every message in flight; errors (StallError) naming a tracer that has not
    // taken one within `limitS` (> 0).
    Expected<void> WaitAll(double limitS, double stallTimeoutS) {
        for (Message& m : inFlight_) {
            if (common::WaitAllYielding(static_cast<int>(m.requests.size()), m.requests.data(),
                                        limitS)) {
                continue;
            }
            if (common::PeerLossReported())
                return common::LostError(group_, common::FindLostRanks(group_));
            for (size_t t = 0; t < m.requests.size(); ++t) {
                int done = 0;
                BFV_MPI_CHECK(MPI_Test(&m.requests[t], &done, MPI_STATUS_IGNORE));
                if (!done) {
                    return common::StallError(group_, group_.tracerRank(static_cast<int>(t)),
                                              "receive of the tile stream", limitS, stallTimeoutS,
                                              -1);
                }
            }
        }
        inFlight_.clear();
        return {};
    }

  private:
    struct Message {
        std::vector<std::byte> bytes;
        std::vector<MPI_Request> requests;
    };
    const common::Group& group_;
    std::size_t messageBytes_;
    common::Recorder& recorder_;
    std::vector<std::byte> pending_;
    std::deque<Message> inFlight_;
    double streamBytes_ = 0.0;  // one copy
};

constexpr std::size_t kMaxMessagesInFlight = 64;  // back-pressure on slow tracers

// The scheduler's queue depth (wanted tiles not yet sent), sampled once a frame.
struct QueueDepthSamples {
    double sum = 0.0, count = 0.0, max = 0.0;

    void Add(double depth) {
        sum += depth;
        count += 1.0;
        max = std::max(max, depth);
    }
    double Mean() const { return count > 0 ? sum / count : 0.0; }
};

// Sends every tile the view `scheduler` was last given wants, each message as soon as it is
// full (the tracers decode while the server reads, and see it is alive: --stall-timeout), then
// `frame`'s frame-ready record; says how long that took unless every frame waits for its tiles
// (--terrain-sync). Aborts the job if a tile cannot be read.
void SendWholeView(const common::Group& group, const common::RenderOptions& options,
                   long long frame, TileScheduler& scheduler, StreamSender& sender) {
    double preloadStartS = common::WallClockS();
    double bytesBefore = sender.StreamBytes() + static_cast<double>(sender.Pending().size());
    auto tilesBefore = scheduler.TilesSent();
    for (;;) {
        auto produced = scheduler.Produce(
            static_cast<std::size_t>(options.terrain.terrainMessageBytes), sender.Pending());
        if (!produced) common::AbortJob(group, produced.error());
        if (*produced == 0) break;
        sender.Send(false);
    }
    terrain::AppendFrameReadyRecord(frame, sender.Pending());
    sender.Send(true);
    if (!options.terrain.terrainSync) {
        std::printf(
            "bfv render: preloaded the first view: %llu tiles, %.1f MB in %.2f s "
            "(--no-preload starts at once, blurred)\n",
            static_cast<unsigned long long>(scheduler.TilesSent() - tilesBefore),
            (sender.StreamBytes() - bytesBefore) / 1e6, common::WallClockS() - preloadStartS);
        std::fflush(stdout);
    }
}

// Points `scheduler` at the view of render command `command`, and sends that view's tiles at
// once if the frame waits for them (RenderOptions::WaitsForTiles).
void ServeFrame(const common::Group& group, const common::RenderOptions& options,
                const common::FrameCommand& command, TileScheduler& scheduler, StreamSender& sender,
                common::Recorder& recorder, QueueDepthSamples& depths) {
    common::ScopedActivity timing(recorder, Activity::TerrainRead);
    bool whole = options.terrain.WaitsForTiles(static_cast<int>(command.frame));
    scheduler.SetView(command.Pose(), command.frame, !whole);
    depths.Add(static_cast<double>(scheduler.QueueDepth()));
    if (whole) SendWholeView(group, options, command.frame, scheduler, sender);
}

// Ends the stream: the end-of-stream record, then every message delivered (aborting the job if
// a tracer takes none within `limitS`, see StreamSender::WaitAll).
void EndStream(const common::Group& group, double limitS, double stallTimeoutS,
               StreamSender& sender) {
    terrain::AppendEndOfStreamRecord(sender.Pending());
    sender.Send(true);
    if (auto ok = sender.WaitAll(limitS, stallTimeoutS); !ok) common::AbortJob(group, ok.error());
}

// Sends what the bandwidth budget allows since `lastS` (updated to now) of the tiles the view
// wants, flushing the last short message once none is left. Returns whether any tile went.
bool SendWithinBudget(const common::Group& group, TileScheduler& scheduler, StreamBudget& budget,
                      double& lastS, StreamSender& sender, common::Recorder& recorder) {
    double now = common::WallClockS();
    std::size_t allowed = budget.Refill(now - lastS);
    lastS = now;
    if (allowed == 0) return false;
    common::ScopedActivity timing(recorder, Activity::TerrainRead);
    auto produced = scheduler.Produce(allowed, sender.Pending());
    if (!produced) common::AbortJob(group, produced.error());
    budget.Spend(*produced);
    sender.Send(*produced == 0 || scheduler.QueueDepth() == 0);
    return *produced > 0;
}

// The report of a run whose display stopped answering or was lost (`end`: stalled or lost;
// `stalled` names it), written by this rank in the display's place, to --out on this rank's
// host: how the run ended and why, with the options and terrain; the display's frame times,
// checksums and PNGs are lost with it. Returns `stalled` with where the report went (or why it
// could not be written) appended.
Error WithLostDisplayReport(const common::Group& group, const common::RenderOptions& options,
                            const std::string& terrainName, common::RunEnd end,
                            const Error& stalled) {
    common::RunReport report;
    report.options = options;
    report.nRanks = group.size;
    report.terrainName = terrainName;
    report.end = end;
    report.endReason = stalled.message + "; report written by " + group.Describe(group.rank) +
                       " in the display's place, without its frame times and checksums";
    std::filesystem::path path = std::filesystem::path(options.output.outDir) / "report.json";
    std::error_code ec;
    std::filesystem::create_directories(options.output.outDir, ec);
    std::string json = common::ReportJson(report).dump(2) + "\n";
    auto written = common::WriteFileAtomic(path.string(), std::as_bytes(std::span(json)));
    return Error{stalled.message +
                 (written ? "; wrote the run's report in the display's place to " + path.string()
                          : "; " + written.error().message)};
}

// Streams until the display ends the run. Returns the last command (quit or abort).
common::FrameCommand Stream(const common::Group& group, const common::RenderOptions& options,
                            TileScheduler& scheduler, common::Recorder& recorder,
                            common::TerrainStreamStats& stats) {
    StreamSender sender(group, options.terrain.terrainMessageBytes, recorder);
    common::FrameCommandPoller commands(group);
    StreamBudget budget(options.terrain.terrainBudgetBytesPerS,
                        terrain::TileRecordBytes(scheduler.Info()));
    double lastS = common::WallClockS();
    QueueDepthSamples depths;
    int idleUs = 0;
    double limitS = common::StallLimitS(options.liveness.stallTimeoutS, common::Role::TerrainServer,
                                        common::Role::Display);
    double lastCommandS = lastS;
    long long lastFrame = -1;  // the frame of the last command
    bool notified = false;     // whether the display knows of this rank's interrupt
    for (;;) {
        bool busy = false;
        if (int signal = common::InterruptSignal(); signal != 0 && !notified) {
            common::NotifyInterrupted(group, signal);
            notified = true;
        }
        if (common::PeerLossReported()) {
            std::vector<int> lost = common::FindLostRanks(group);
            Error error = common::LostError(group, lost);
            if (common::ReportingRank(group, lost) == group.rank) {
                error = WithLostDisplayReport(group, options, scheduler.Info().name,
                                              common::RunEnd::Lost, error);
            }
            common::AbortJob(group, error);
        }
        while (auto command = commands.Poll()) {
            lastCommandS = common::WallClockS();
            // A paused display, or one waiting for a tracer's columns.
            if (command->kind == common::FrameCommand::kHeartbeat) continue;
            if (command->kind != common::FrameCommand::kRender) {
                EndStream(group,
                          common::StallLimitS(options.liveness.stallTimeoutS,
                                              common::Role::TerrainServer, common::Role::RayTracer),
                          options.liveness.stallTimeoutS, sender);
                stats.bytesSent = sender.StreamBytes();
                stats.queueDepthMean = depths.Mean();
                stats.queueDepthMax = depths.max;
                return *command;
            }
            busy = true;
            lastFrame = command->frame;
            ServeFrame(group, options, *command, scheduler, sender, recorder, depths);
        }
        // After the poll: commands queued while a whole view was read are not a silence.
        if (limitS > 0.0 && common::WallClockS() - lastCommandS > limitS) {
            Error stalled = common::StallError(group, group.displayRank(), "frame command", limitS,
                                               options.liveness.stallTimeoutS, lastFrame);
            common::AbortJob(group, WithLostDisplayReport(group, options, scheduler.Info().name,
                                                          common::RunEnd::Stalled, stalled));
        }
        if (!options.terrain.terrainSync && sender.MessagesInFlight() < kMaxMessagesInFlight) {
            busy |= SendWithinBudget(group, scheduler, budget, lastS, sender, recorder);
        }
        busy |= sender.Reap();
        idleUs = busy ? 0
                      : std::min(std::max(2 * idleUs, common::kMinPollSleepUs),
                                 common::kMaxStreamIdleSleepUs);
        if (idleUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(idleUs));
    }
}

}  // namespace

int RunTerrainServer(const common::Group& group, const common::RenderOptions& options) {
    common::Recorder recorder;
    if (!options.output.tracePath.empty()) recorder.StartTimeline(0, common::kMaxTimelineEvents);
    Expected<terrain::PyramidFile> file = [&]() -> Expected<terrain::PyramidFile> {
        common::ScopedActivity timing(recorder, Activity::TerrainRead);
        return terrain::PyramidFile::Open(options.terrain.terrainPath);
    }();
    Expected<std::vector<std::byte>> startup =
        file ? [&] {
            common::ScopedActivity timing(recorder, Activity::TerrainRead);
            return StartupBytes(*file);
        }()
             : Expected<std::vector<std::byte>>(file.error());
    if (!terrain::BroadcastTerrainFile(group, startup, options.terrain.terrainMessageBytes,
                                       recorder, options.liveness.stallTimeoutS)) {
        std::fprintf(stderr, "bfv render: %s\n", startup.error().message.c_str());
        return 1;
    }
    double startS = common::WallClockS();
    const terrain::PyramidInfo& info = file->Info();
    TileSource source(info, [&](const terrain::TileKey& key) { return file->ReadTile(key); });
    TileScheduler scheduler(info, source, SchedulerOptionsFrom(options));
    common::NotifyReady(group);
    common::RankSummary extra;
    common::FrameCommand last = Stream(group, options, scheduler, recorder, extra.terrain);
    if (last.kind == common::FrameCommand::kAbort) return 1;
    extra.terrain.tilesSent = static_cast<double>(scheduler.TilesSent());
    extra.terrain.tilesEvicted = static_cast<double>(scheduler.TilesEvicted());
    extra.terrain.tilesRead = static_cast<double>(source.TilesRead());
    extra.terrain.tilesRefined = static_cast<double>(source.TilesRefined());
    return common::FinishRank(group, recorder, common::WallClockS() - startS, extra, options);
}

}  // namespace bfv::terrain_server
