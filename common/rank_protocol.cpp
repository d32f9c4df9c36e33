#include "common/rank_protocol.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/interrupt.h"
#include "common/mpi_wait.h"
#include "common/peer_loss.h"
#include "common/tags.h"

namespace bfv::common {

namespace {

// The index of the first of `requests` not yet complete (MPI_Test on each in turn: MPI_Testall
// leaves the complete ones be while any is pending); requests.size() when all are. Request r of
// the display's requests is rank r's (the display is the last rank).
int FirstPending(std::vector<MPI_Request>& requests) {
    for (size_t i = 0; i < requests.size(); ++i) {
        int done = 0;
        BFV_MPI_CHECK(MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE));
        if (!done) return static_cast<int>(i);
    }
    return static_cast<int>(requests.size());
}

}  // namespace

Expected<void> BroadcastFrameCommand(const Group& group, FrameCommand command, Recorder& recorder,
                                     double stallTimeoutS) {
    ScopedActivity timing(recorder, Activity::Wait);
    // Point to point from the display, not MPI_Ibcast: a collective's tree would forward the
    // command through ranks that are busy tracing or asleep between tests, delaying it.
    std::vector<MPI_Request> requests(static_cast<size_t>(group.displayRank()));
    for (int r = 0; r < group.displayRank(); ++r) {
        BFV_MPI_CHECK(MPI_Isend(&command, sizeof(command), MPI_BYTE, r, tags::kFrameCommand,
                                group.comm, &requests[static_cast<size_t>(r)]));
    }
    // The commands are eager: only a stopped rank, tracer or terrain server, stalls them.
    double limitS = StallLimitS(stallTimeoutS, Role::Display, Role::TerrainServer);
    if (WaitAllYielding(static_cast<int>(requests.size()), requests.data(), limitS)) return {};
    if (PeerLossReported()) return LostError(group, FindLostRanks(group));
    int pending = FirstPending(requests);
    if (pending == group.displayRank()) return {};
    return StallError(group, pending, "receive of a frame command", limitS, stallTimeoutS,
                      static_cast<long long>(command.frame) - 2);
}

std::optional<FrameCommand> ReceiveFrameCommand(const Group& group, Recorder& recorder,
                                                double stallLimitS, int maxSleepUs) {
    ScopedActivity timing(recorder, Activity::Wait);
    FrameCommand command;
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Irecv(&command, sizeof(command), MPI_BYTE, group.displayRank(),
                            tags::kFrameCommand, group.comm, &request));
    if (WaitYielding(request, stallLimitS, maxSleepUs)) return command;
    if (PeerLossReported()) return std::nullopt;  // the job ends: no MPI call on a lost rank
    BFV_MPI_CHECK(MPI_Cancel(&request));
    BFV_MPI_CHECK(MPI_Request_free(&request));
    return std::nullopt;
}

double StallLimitS(double stallTimeoutS, Role waiter, Role awaited) {
    if (waiter == Role::RayTracer && awaited == Role::TerrainServer) return 0.5 * stallTimeoutS;
    if (waiter == Role::Display) return stallTimeoutS;  // for columns, or a command taken
    if (waiter == Role::TerrainServer && awaited == Role::Display) return stallTimeoutS;
    if (waiter == Role::RayTracer && awaited == Role::Display) return 2.5 * stallTimeoutS;
    return 2.0 * stallTimeoutS;
}

double StartupLimitS(double stallTimeoutS) { return 6.0 * stallTimeoutS; }

Error StallError(const Group& group, int awaitedRank, const std::string& what, double waitedS,
                 double stallTimeoutS, long long lastFrame) {
    if (PeerLossReported()) return LostError(group, FindLostRanks(group));
    return Error{fmt::format(
        "stalled: {} stopped answering: no {} for {:.1f} s (--stall-timeout {:g}); last frame "
        "completed here: {}",
        group.Describe(awaitedRank), what, waitedS, stallTimeoutS,
        lastFrame >= 0 ? std::to_string(lastFrame) : std::string("none"))};
}

void NotifyReady(const Group& group) {
    BFV_MPI_CHECK(MPI_Send(nullptr, 0, MPI_BYTE, group.displayRank(), tags::kReady, group.comm));
}

Expected<void> AwaitReady(const Group& group, Recorder& recorder, double stallTimeoutS,
                          double heartbeatS) {
    std::vector<MPI_Request> requests(static_cast<size_t>(group.displayRank()));
    for (int r = 0; r < group.displayRank(); ++r) {
        BFV_MPI_CHECK(MPI_Irecv(nullptr, 0, MPI_BYTE, r, tags::kReady, group.comm,
                                &requests[static_cast<size_t>(r)]));
    }
    auto cancelPending = [&] {
        for (MPI_Request& request : requests) {
            if (request == MPI_REQUEST_NULL) continue;
            BFV_MPI_CHECK(MPI_Cancel(&request));
            BFV_MPI_CHECK(MPI_Request_free(&request));
        }
    };
    double limitS = StartupLimitS(stallTimeoutS);
    double startS = WallClockS();
    FrameCommand heartbeat;
    heartbeat.kind = FrameCommand::kHeartbeat;
    for (;;) {
        bool done = false;
        {
            ScopedActivity timing(recorder, Activity::Wait);
            done = WaitAllYielding(static_cast<int>(requests.size()), requests.data(), heartbeatS);
        }
        if (done) return {};
        if (PeerLossReported()) return LostError(group, FindLostRanks(group));
        double waitedS = WallClockS() - startS;
        if (limitS > 0.0 && waitedS >= limitS) {
            int late = FirstPending(requests);
            if (late == group.displayRank()) return {};
            cancelPending();
            return StallError(group, late, "word that its start-up finished", waitedS,
                              stallTimeoutS, -1);
        }
        if (auto ok = BroadcastFrameCommand(group, heartbeat, recorder, stallTimeoutS); !ok) {
            cancelPending();
            return ok;
        }
    }
}

void NotifyInterrupted(const Group& group, int signal) {
    // Eager (4 bytes): returns at once even while the display is busy.
    BFV_MPI_CHECK(
        MPI_Send(&signal, 1, MPI_INT, group.displayRank(), tags::kInterrupted, group.comm));
}

int PollInterrupted(const Group& group) {
    int signal = 0;
    for (;;) {
        int ready = 0;
        MPI_Status status;
        BFV_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, tags::kInterrupted, group.comm, &ready, &status));
        if (!ready) return signal;
        int received = 0;
        BFV_MPI_CHECK(MPI_Recv(&received, 1, MPI_INT, status.MPI_SOURCE, tags::kInterrupted,
                               group.comm, MPI_STATUS_IGNORE));
        if (signal == 0) signal = received;
    }
}

FrameCommandPoller::FrameCommandPoller(const Group& group) : group_(group) { Post(); }

FrameCommandPoller::~FrameCommandPoller() {
    if (request_ == MPI_REQUEST_NULL) return;
    BFV_MPI_CHECK(MPI_Cancel(&request_));
    BFV_MPI_CHECK(MPI_Request_free(&request_));
}

std::optional<FrameCommand> FrameCommandPoller::Poll() {
    if (request_ == MPI_REQUEST_NULL) return std::nullopt;  // after quit or abort
    int done = 0;
    BFV_MPI_CHECK(MPI_Test(&request_, &done, MPI_STATUS_IGNORE));
    if (!done) return std::nullopt;
    FrameCommand command = command_;
    if (command.kind == FrameCommand::kRender || command.kind == FrameCommand::kHeartbeat) Post();
    return command;
}

void FrameCommandPoller::Post() {
    BFV_MPI_CHECK(MPI_Irecv(&command_, sizeof(command_), MPI_BYTE, group_.displayRank(),
                            tags::kFrameCommand, group_.comm, &request_));
}

Expected<std::vector<RankSummary>> GatherSummary(const Group& group, const Recorder& recorder,
                                                 double wallS, const RankSummary& extra,
                                                 double stallTimeoutS) {
    double limitS = 2.0 * stallTimeoutS;
    RankSummary mine = extra;
    mine.rank = group.rank;
    mine.role = static_cast<int>(group.role());
    mine.wallS = wallS;
    mine.peakRssMiB = PeakResidentMiB();
    mine.cpuQuota = ProcessCpuQuota();
    mine.activities = recorder.All();
    // Point to point rather than MPI_Gather, so that a rank that never sends is named.
    if (group.rank != group.displayRank()) {
        MPI_Request request;
        BFV_MPI_CHECK(MPI_Isend(&mine, sizeof(mine), MPI_BYTE, group.displayRank(), tags::kSummary,
                                group.comm, &request));
        if (WaitYielding(request, limitS)) return std::vector<RankSummary>{};
        return StallError(group, group.displayRank(), "receive of this rank's summary", limitS,
                          stallTimeoutS, -1);
    }
    std::vector<RankSummary> all(group.size);
    all[group.rank] = mine;
    std::vector<MPI_Request> requests;
    std::vector<int> ranks;
    for (int r = 0; r < group.size; ++r) {
        if (r == group.rank) continue;
        requests.emplace_back();
        ranks.push_back(r);
        BFV_MPI_CHECK(MPI_Irecv(&all[r], sizeof(RankSummary), MPI_BYTE, r, tags::kSummary,
                                group.comm, &requests.back()));
    }
    if (WaitAllYielding(static_cast<int>(requests.size()), requests.data(), limitS)) return all;
    if (PeerLossReported()) return LostError(group, FindLostRanks(group));
    for (size_t i = 0; i < requests.size(); ++i) {
        int done = 0;
        BFV_MPI_CHECK(MPI_Test(&requests[i], &done, MPI_STATUS_IGNORE));
        if (!done) {
            return StallError(group, ranks[i], "end-of-run summary", limitS, stallTimeoutS, -1);
        }
    }
    return all;
}

Expected<std::vector<RankTimeline>> GatherTimelines(const Group& group, const Recorder& recorder,
                                                    double stallTimeoutS) {
    double limitS = 2.0 * stallTimeoutS;
    const std::vector<TraceEvent>& mine = recorder.Timeline();
    // A message: the count of events dropped (std::uint64_t), then the events.
    if (group.rank != group.displayRank()) {
        std::uint64_t dropped = recorder.TimelineDropped();
        std::vector<std::byte> message(sizeof(dropped) + mine.size() * sizeof(TraceEvent));
        std::memcpy(message.data(), &dropped, sizeof(dropped));
        if (!mine.empty()) {
            std::memcpy(message.data() + sizeof(dropped), mine.data(),
                        mine.size() * sizeof(TraceEvent));
        }
        MPI_Request request;
        BFV_MPI_CHECK(MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_BYTE,
                                group.displayRank(), tags::kTimeline, group.comm, &request));
        if (WaitYielding(request, limitS)) return std::vector<RankTimeline>{};
        return StallError(group, group.displayRank(), "receive of this rank's timeline", limitS,
                          stallTimeoutS, -1);
    }
    std::vector<RankTimeline> all(group.size);
    for (int r = 0; r < group.size; ++r) {
        RankTimeline& t = all[r];
        t.rank = r;
        t.name = fmt::format("r{} {}", r, RoleName(RoleOf(r, group.size)));
        if (r < static_cast<int>(group.hosts.size()))
            t.name += fmt::format(" (host {})", group.hosts[r]);
        if (r == group.rank) {
            t.events = mine;
            t.dropped = recorder.TimelineDropped();
            continue;
        }
        MPI_Status status;
        if (!ProbeYielding(r, tags::kTimeline, group.comm, &status, limitS)) {
            return StallError(group, r, "timeline", limitS, stallTimeoutS, -1);
        }
        int bytes = 0;
        BFV_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
        std::vector<std::byte> message(static_cast<size_t>(bytes));
        BFV_MPI_CHECK(MPI_Recv(message.data(), bytes, MPI_BYTE, r, tags::kTimeline, group.comm,
                               MPI_STATUS_IGNORE));
        std::uint64_t dropped = 0;
        std::memcpy(&dropped, message.data(), sizeof(dropped));
        t.dropped = dropped;
        t.events.resize((message.size() - sizeof(dropped)) / sizeof(TraceEvent));
        if (!t.events.empty()) {
            std::memcpy(t.events.data(), message.data() + sizeof(dropped),
                        t.events.size() * sizeof(TraceEvent));
        }
    }
    return all;
}

int FinishRank(const Group& group, const Recorder& recorder, double wallS, const RankSummary& extra,
               const RenderOptions& options) {
    auto sent = GatherSummary(group, recorder, wallS, extra, options.liveness.stallTimeoutS);
    if (!sent) AbortJob(group, sent.error());
    if (!options.output.tracePath.empty()) {
        if (auto ok = GatherTimelines(group, recorder, options.liveness.stallTimeoutS); !ok)
            AbortJob(group, ok.error());
    }
    int signal = InterruptSignal();
    return signal != 0 ? InterruptedExitCode(signal) : 0;
}

void AbortJob(const Group& group, const Error& error) {
    std::fprintf(stderr, "%s bfv render: %s\n", group.LogPrefix().c_str(), error.message.c_str());
    std::fflush(stderr);
    if (PeerLossReported() && group.rank != ReportingRank(group, FindLostRanks(group))) {
        // The reporting rank writes the report of a lost rank, then ends the job; ending it
        // first from here would leave no report.
        std::this_thread::sleep_for(std::chrono::duration<double>(LostReportWaitS()));
    }
    AbortAfterMessage(group.comm, 1);
}

}  // namespace bfv::common
