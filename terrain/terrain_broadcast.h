#pragma once

#include <cstddef>
#include <vector>

#include "common/expected.h"
#include "common/instrument.h"
#include "common/mpi_group.h"
#include "terrain/terrain_startup.h"

namespace bfv::terrain {

// The terrain file's trip from the terrain server (rank 0) to every other rank: first a
// status (the file's size, or the error loading it gave), then the file in chunks of at most
// `chunkPayloadBytes`, each a common::TerrainChunkHeader plus payload, by MPI_Ibcast. All ranks
// of `group` must call one of the two functions with the same chunkPayloadBytes. A broadcast
// that has not completed within twice `stallTimeoutS` (> 0; 0 waits forever) ends the job
// with a message saying that a rank stopped answering (--stall-timeout).

/// Rank 0's side: broadcasts `file` (or the Error that loading it gave, which then becomes
/// every rank's result). Traffic and time go to `recorder` as common::Activity::TerrainSend.
Expected<void> BroadcastTerrainFile(const common::Group& group,
                                    const Expected<std::vector<std::byte>>& file,
                                    int chunkPayloadBytes, common::Recorder& recorder,
                                    double stallTimeoutS = 0.0);

/// Every other rank's side: the file's bytes, each chunk validated (order, size, checksum),
/// or the server's error. A damaged chunk ends the whole job (MPI_Abort) with a message: only
/// this rank would know, and returning alone would leave the others waiting. Time goes to
/// `recorder` as common::Activity::TerrainReceive.
Expected<std::vector<std::byte>> ReceiveTerrainFile(const common::Group& group,
                                                    int chunkPayloadBytes,
                                                    common::Recorder& recorder,
                                                    double stallTimeoutS = 0.0);

/// A ray tracer's or the display's start of `bfv render`: receives the start-up terrain
/// (ReceiveTerrainFile) and decodes it (DecodeTerrainStartup). Returns the server's error when
/// it could not load the file (the server reports it; the caller exits 1). A start-up that
/// arrives damaged ends the whole job with a message naming the damage.
Expected<TerrainStartup> ReceiveTerrainStartup(const common::Group& group, int chunkPayloadBytes,
                                               common::Recorder& recorder,
                                               double stallTimeoutS = 0.0);

}  // namespace bfv::terrain
