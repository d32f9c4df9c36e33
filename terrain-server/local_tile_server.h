#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/camera.h"
#include "common/expected.h"
#include "terrain-server/tile_scheduler.h"
#include "terrain/pyramid_file.h"

namespace bfv::terrain_server {

/// The terrain server in process, for `bfv render --sequential` and the benchmarks: the server
/// rank's plan (a TileScheduler over a TileSource reading the opened file) and budget
/// (StreamBudget), with each frame's records produced on the caller's thread between frames
/// instead of streamed over MPI.
class LocalTileServer {
  public:
    /// `file` must outlive the server. `budgetBytesPerS` as --terrain-budget.
    LocalTileServer(const terrain::PyramidFile& file, const SchedulerOptions& options,
                    double budgetBytesPerS);

    /// Plans frame `frame` seen from `pose` and appends its evict and tile records to `out`.
    /// With `sync`, every tile the view wants (the budget does not apply); otherwise, with the
    /// view ahead prefetched, what the budget allows after `elapsedS` seconds since the last
    /// frame. Returns the bytes appended, or the error reading a tile gave.
    Expected<std::size_t> ServeFrame(std::uint32_t frame, const common::CameraPose& pose,
                                     double elapsedS, bool sync, std::vector<std::byte>& out);

    const TileScheduler& Scheduler() const { return scheduler_; }
    const TileSource& Source() const { return source_; }
    /// Bytes of records produced so far.
    double StreamBytes() const { return streamBytes_; }

  private:
    TileSource source_;
    TileScheduler scheduler_;
    StreamBudget budget_;
    double streamBytes_ = 0.0;
};

}  // namespace bfv::terrain_server
