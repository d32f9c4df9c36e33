#include "terrain-server/local_tile_server.h"

#include <limits>

#include "terrain/tile_stream.h"

namespace bfv::terrain_server {

LocalTileServer::LocalTileServer(const terrain::PyramidFile& file, const SchedulerOptions& options,
                                 double budgetBytesPerS)
    : source_(file.Info(), [&file](const terrain::TileKey& key) { return file.ReadTile(key); }),
      scheduler_(file.Info(), source_, options),
      budget_(budgetBytesPerS, terrain::TileRecordBytes(file.Info())) {}

Expected<std::size_t> LocalTileServer::ServeFrame(std::uint32_t frame,
                                                  const common::CameraPose& pose, double elapsedS,
                                                  bool sync, std::vector<std::byte>& out) {
    scheduler_.SetView(pose, frame, !sync);
    std::size_t allowed = sync ? std::numeric_limits<std::size_t>::max() : budget_.Refill(elapsedS);
    if (allowed == 0) return 0;
    auto produced = scheduler_.Produce(allowed, out);
    if (!produced) return produced.error();
    budget_.Spend(*produced);
    streamBytes_ += static_cast<double>(*produced);
    return *produced;
}

}  // namespace bfv::terrain_server
