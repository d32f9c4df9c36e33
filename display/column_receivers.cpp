#include "display/column_receivers.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "common/check.h"
#include "common/decomposition.h"
#include "common/messages.h"
#include "common/mpi_wait.h"
#include "common/peer_loss.h"
#include "common/rank_protocol.h"
#include "common/tags.h"
#include "common/timeline.h"

namespace bfv::display {

namespace {

// A tracer this thread receives from, with its receive buffer and what is left this frame.
struct Source {
    int tracer = 0;
    common::ColumnSet columns;  // of this frame
    int remaining = 0;          // messages
    int received = 0;           // messages
    std::vector<std::byte> buffer;
};

// Whether message number `source.received` of the tracer's frame carries the columns its split
// gives it next.
Expected<void> CheckColumns(const Source& source, const common::ColumnsHeader& h,
                            int columnsPerMessage, int rank) {
    int first = source.received * columnsPerMessage;
    int count = std::min(columnsPerMessage, source.columns.count - first);
    if (h.firstColumn == static_cast<std::uint32_t>(source.columns.At(first)) &&
        h.columnStride == static_cast<std::uint32_t>(source.columns.stride) &&
        h.nColumns == static_cast<std::uint32_t>(count)) {
        return {};
    }
    return Error{"columns message from rank " + std::to_string(rank) + ": " +
                 std::to_string(h.nColumns) + " columns from " + std::to_string(h.firstColumn) +
                 " (stride " + std::to_string(h.columnStride) + "), expected " +
                 std::to_string(count) + " from " + std::to_string(source.columns.At(first)) +
                 " (stride " + std::to_string(source.columns.stride) +
                 "): the display and the tracer disagree on the split of the columns"};
}

void CopyColumns(const common::ColumnsHeader& h, const std::byte* payload, Frame& image) {
    size_t columnBytes = static_cast<size_t>(h.heightPx) * sizeof(common::Pixel);
    for (std::uint32_t k = 0; k < h.nColumns; ++k) {
        std::memcpy(image.Column(static_cast<int>(h.firstColumn + k * h.columnStride)),
                    payload + k * columnBytes, columnBytes);
    }
}

// A columns message accepted for the frame being assembled: its header, and its raw pixels as
// bytes (ColumnsPayload: the message's own, or decompressed into the thread's scratch).
struct AcceptedColumns {
    common::ColumnsHeader header;
    std::span<const std::byte> payload;
};

// Checks message number `source.received` from `source`'s tracer (MPI rank `rank`): a valid
// columns message for a widthPx x heightPx screen (DecodeColumns), of `frame`, carrying the
// columns its split gives it next (CheckColumns), with a payload that decodes into `scratch`.
Expected<AcceptedColumns> Accept(std::span<const std::byte> message, const Source& source,
                                 std::uint32_t frame, int widthPx, int heightPx,
                                 int columnsPerMessage, int rank, std::vector<std::byte>& scratch) {
    auto header = common::DecodeColumns(message, widthPx, heightPx);
    if (!header) return header.error();
    if (header->frame != frame) {
        return Error{"columns of frame " + std::to_string(header->frame) +
                     " arrived while assembling frame " + std::to_string(frame)};
    }
    if (auto ok = CheckColumns(source, *header, columnsPerMessage, rank); !ok) return ok.error();
    auto payload = common::ColumnsPayload(message, *header, scratch);
    if (!payload) return payload.error();
    return AcceptedColumns{*header, *payload};
}

// Cancels the receives still posted and names the first tracer whose columns have not come.
Error StallOf(const common::Group& group, double stallTimeoutS, std::uint32_t frame,
              const std::vector<Source>& sources, std::vector<MPI_Request>& requests,
              double waitedS) {
    int late = -1;
    for (size_t s = 0; s < sources.size(); ++s) {
        if (requests[s] == MPI_REQUEST_NULL) continue;
        if (late < 0) late = group.tracerRank(sources[s].tracer);
        if (common::PeerLossReported()) continue;  // the job ends: no MPI call on a lost rank
        BFV_MPI_CHECK(MPI_Cancel(&requests[s]));
        BFV_MPI_CHECK(MPI_Request_free(&requests[s]));
    }
    return common::StallError(group, late, "columns of frame " + std::to_string(frame), waitedS,
                              stallTimeoutS, static_cast<long long>(frame) - 1);
}

}  // namespace

ColumnReceivers::ColumnReceivers(const common::Group& group, const common::RenderOptions& options)
    : group_(group),
      options_(options),
      recorders_(options.pipeline.receiveThreads),
      samples_(options.pipeline.receiveThreads),
      rawBytes_(options.pipeline.receiveThreads, 0.0),
      scratch_(options.pipeline.receiveThreads),
      traceS_(group.tracerCount(), 0.0),
      tileReceiveS_(group.tracerCount(), 0.0) {
    for (int k = 0; k < options.pipeline.receiveThreads; ++k) {
        if (!options.output.tracePath.empty())
            recorders_[k].StartTimeline(k + 1, common::kMaxTimelineEvents);
        threads_.emplace_back([this, k] { ThreadMain(k); });
    }
}

ColumnReceivers::~ColumnReceivers() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
}

Expected<void> ColumnReceivers::Receive(std::uint32_t frame,
                                        std::span<const common::ColumnSet> columnsOfTracer,
                                        Frame& image,
                                        const std::function<Expected<void>()>& keepAlive,
                                        double keepAliveS) {
    BFV_CHECK(static_cast<int>(columnsOfTracer.size()) == group_.tracerCount());
    BFV_CHECK(keepAliveS > 0.0);
    std::unique_lock lock(mutex_);
    task_ = {frame, columnsOfTracer, &image};
    pending_ = static_cast<int>(threads_.size());
    ++generation_;
    changed_.notify_all();
    auto done = [this] { return pending_ == 0; };
    Expected<void> kept;
    if (keepAlive) {
        auto interval = std::chrono::duration<double>(keepAliveS);
        while (!changed_.wait_for(lock, interval, done)) {
            if (!kept) continue;  // one failed: the receive threads' own limits end the wait
            lock.unlock();
            kept = keepAlive();
            lock.lock();
        }
    }
    changed_.wait(lock, done);
    if (!error_.empty()) return Error{error_};
    return kept;
}

common::SampleCounts ColumnReceivers::Samples() const {
    common::SampleCounts sum;
    for (const common::SampleCounts& s : samples_) sum += s;
    return sum;
}

common::Recorder ColumnReceivers::Stats() const {
    common::Recorder merged;
    for (const common::Recorder& r : recorders_) merged.Merge(r);
    return merged;
}

double ColumnReceivers::RawBytes() const {
    double total = 0.0;
    for (double bytes : rawBytes_) total += bytes;
    return total;
}

void ColumnReceivers::ThreadMain(int k) {
    std::uint64_t seen = 0;
    for (;;) {
        Task task;
        {
            std::unique_lock lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            task = task_;
        }
        Expected<void> result = ReceiveFrame(k, task);
        std::lock_guard lock(mutex_);
        if (!result && error_.empty()) error_ = result.error().message;
        if (--pending_ == 0) changed_.notify_all();
    }
}

Expected<void> ColumnReceivers::ReceiveFrame(int k, const Task& task) {
    common::ScopedActivity timing(recorders_[k], common::Activity::Receive);
    int width = options_.view.screen.widthPx, height = options_.view.screen.heightPx;
    size_t capacity = common::ColumnsMessageBytes(options_.pipeline.columnsPerMessage, height);
    std::vector<Source> sources;
    std::vector<MPI_Request> requests;
    samples_[k] = {};
    double stallLimitS = common::StallLimitS(options_.liveness.stallTimeoutS, common::Role::Display,
                                             common::Role::RayTracer);
    for (int t = k; t < group_.tracerCount(); t += options_.pipeline.receiveThreads) {
        const common::ColumnSet& columns = task.columnsOfTracer[t];
        int n = common::MessagesPerFrame(columns, options_.pipeline.columnsPerMessage);
        sources.push_back({t, columns, n, 0, std::vector<std::byte>(capacity)});
    }
    requests.assign(sources.size(), MPI_REQUEST_NULL);
    auto post = [&](size_t s) {
        BFV_MPI_CHECK(MPI_Irecv(sources[s].buffer.data(), static_cast<int>(capacity), MPI_BYTE,
                                group_.tracerRank(sources[s].tracer), common::tags::kColumns,
                                group_.comm, &requests[s]));
    };
    for (size_t s = 0; s < sources.size(); ++s) post(s);
    Expected<void> result;
    for (int left = static_cast<int>(sources.size()); left > 0;) {
        MPI_Status status;
        int s = common::WaitAnyYielding(static_cast<int>(requests.size()), requests.data(), &status,
                                        stallLimitS);
        if (s == MPI_UNDEFINED) {
            stalled_ = true;
            return StallOf(group_, options_.liveness.stallTimeoutS, task.frame, sources, requests,
                           stallLimitS);
        }
        int bytes = 0;
        BFV_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &bytes));
        recorders_[k].AddTraffic(common::Activity::Receive, bytes, 1);
        auto message = std::span(sources[s].buffer).first(static_cast<size_t>(bytes));
        auto accepted = Accept(message, sources[s], task.frame, width, height,
                               options_.pipeline.columnsPerMessage,
                               group_.tracerRank(sources[s].tracer), scratch_[k]);
        if (!accepted) {
            result = accepted.error();
        } else {
            CopyColumns(accepted->header, accepted->payload.data(), *task.image);
            samples_[k] += {accepted->header.terrainSamples, accepted->header.coarserSamples};
            rawBytes_[k] += sizeof(common::ColumnsHeader) + accepted->payload.size();
            traceS_[sources[s].tracer] = accepted->header.traceUs * 1e-6;
            tileReceiveS_[sources[s].tracer] = accepted->header.tileReceiveUs * 1e-6;
        }
        ++sources[s].received;
        if (--sources[s].remaining > 0)
            post(static_cast<size_t>(s));
        else
            --left;
    }
    return result;
}

}  // namespace bfv::display
