#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/decomposition.h"
#include "common/expected.h"
#include "common/instrument.h"
#include "common/messages.h"
#include "common/mpi_group.h"
#include "common/render_options.h"
#include "display/frame.h"

namespace bfv::display {

/// The display's K receive threads (the source paper's receive threads, one per NIC on a
/// cluster). Thread k receives the columns of tracers k, k+K, k+2K, ... into the frame being
/// assembled, keeping one receive posted per tracer (MPI_Irecv + MPI_Waitany), and checks
/// every message's header, and that it carries the columns the frame's split gives its tracer
/// next, before copying its columns. Needs MPI_THREAD_MULTIPLE when K > 1, or when the caller
/// keeps the other ranks posted while it waits (Receive's `keepAlive`).
class ColumnReceivers {
  public:
    ColumnReceivers(const common::Group& group, const common::RenderOptions& options);
    ~ColumnReceivers();  // stops and joins the threads
    ColumnReceivers(const ColumnReceivers&) = delete;
    ColumnReceivers& operator=(const ColumnReceivers&) = delete;

    /// Receives every column of frame `frame` into `image` (blocks until all arrived):
    /// columnsOfTracer[t] are the columns tracer t renders in this frame, in messages of
    /// options.pipeline.columnsPerMessage. Errors when a message is corrupt, belongs to another
    /// frame or carries other columns than expected (the display and a tracer disagree on the
    /// split), and (common::StallError, then Stalled() is true) when a tracer's columns have not
    /// come within --stall-timeout. While it waits, `keepAlive` (when set) is called every
    /// `keepAliveS` seconds (> 0) from the calling thread, for the display to tell the other
    /// ranks that it is alive; its first error is returned once the receive threads are done,
    /// unless they failed first.
    Expected<void> Receive(std::uint32_t frame, std::span<const common::ColumnSet> columnsOfTracer,
                           Frame& image, const std::function<Expected<void>()>& keepAlive = nullptr,
                           double keepAliveS = 1.0);

    /// Trace time of the last frame received on every tracer, in tracer order, seconds (from
    /// the messages' headers).
    const std::vector<double>& TraceTimesS() const { return traceS_; }

    /// Time every tracer took to take in the tiles of the last frame received, in tracer order,
    /// seconds (from the messages' headers).
    const std::vector<double>& TileReceiveTimesS() const { return tileReceiveS_; }

    /// Terrain pixels of the last frame received, and those the tracers rendered coarser than
    /// their footprint asked for (the sums of the messages' terrainSamples and coarserSamples).
    common::SampleCounts Samples() const;

    /// Whether a Receive failed because a tracer stopped answering (--stall-timeout).
    bool Stalled() const { return stalled_; }

    /// Receive time and traffic of all threads, merged.
    common::Recorder Stats() const;

    /// Bytes of every columns message received so far as it would have been raw (header and
    /// pixels): with Stats()' received bytes, the codec's compression ratio.
    double RawBytes() const;

  private:
    struct Task {
        std::uint32_t frame = 0;
        std::span<const common::ColumnSet> columnsOfTracer;  // the caller's, during Receive
        Frame* image = nullptr;
    };
    void ThreadMain(int k);
    Expected<void> ReceiveFrame(int k, const Task& task);

    const common::Group& group_;
    const common::RenderOptions& options_;
    std::vector<std::thread> threads_;
    std::vector<common::Recorder> recorders_;
    std::vector<common::SampleCounts> samples_;    // per thread, of the frame being received
    std::vector<double> rawBytes_;                 // per thread: columns messages as if sent raw
    std::vector<std::vector<std::byte>> scratch_;  // per thread: decompressed payloads
    std::vector<double> traceS_;                   // per tracer, written by its thread
    std::vector<double> tileReceiveS_;             // per tracer, written by its thread
    std::mutex mutex_;
    std::condition_variable changed_;
    Task task_;
    std::uint64_t generation_ = 0;
    int pending_ = 0;
    bool stop_ = false;
    std::string error_;
    std::atomic<bool> stalled_ = false;
};

}  // namespace bfv::display
