#include "terrain/terrain_broadcast.h"

#include <fmt/format.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "common/messages.h"
#include "common/mpi_wait.h"
#include "common/peer_loss.h"
#include "common/rank_protocol.h"
#include "terrain/terrain_startup.h"

namespace bfv::terrain {

namespace {

// First message of the broadcast: the file's size, or -1 and the error.
struct TerrainStatus {
    std::int64_t totalBytes = -1;
    char message[1016] = {};
};
static_assert(std::is_trivially_copyable_v<TerrainStatus>);  // broadcast as bytes

std::uint32_t ChunkCount(std::uint64_t totalBytes, int chunkPayloadBytes) {
    return static_cast<std::uint32_t>((totalBytes + chunkPayloadBytes - 1) / chunkPayloadBytes);
}

// MPI_Bcast from the server, ending the job when it has not completed within twice
// `stallTimeoutS` (> 0): a collective cannot say which rank stopped answering; one the launcher
// reported lost is named (LostError).
void Broadcast(const common::Group& group, void* data, int bytes, double stallTimeoutS) {
    MPI_Request request;
    BFV_MPI_CHECK(MPI_Ibcast(data, bytes, MPI_BYTE, group.serverRank(), group.comm, &request));
    double limitS = 2.0 * stallTimeoutS;
    if (common::WaitYielding(request, limitS)) return;
    if (common::PeerLossReported())  // the wait ended early: name the lost rank
        common::AbortJob(group, common::LostError(group, common::FindLostRanks(group)));
    common::AbortJob(group, Error{fmt::format("stalled: the start-up terrain broadcast did not "
                                              "complete in {:.1f} s (--stall-timeout {:g}): a "
                                              "rank stopped answering",
                                              limitS, stallTimeoutS)});
}

void BroadcastStatus(const common::Group& group, TerrainStatus& status, double stallTimeoutS) {
    Broadcast(group, &status, sizeof(status), stallTimeoutS);
}

}  // namespace

Expected<void> BroadcastTerrainFile(const common::Group& group,
                                    const Expected<std::vector<std::byte>>& file,
                                    int chunkPayloadBytes, common::Recorder& recorder,
                                    double stallTimeoutS) {
    common::ScopedActivity timing(recorder, common::Activity::TerrainSend);
    TerrainStatus status;
    if (!file) {
        std::strncpy(status.message, file.error().message.c_str(), sizeof(status.message) - 1);
        BroadcastStatus(group, status, stallTimeoutS);
        return file.error();
    }
    status.totalBytes = static_cast<std::int64_t>(file->size());
    BroadcastStatus(group, status, stallTimeoutS);
    std::vector<std::byte> chunk;
    std::uint32_t n = ChunkCount(file->size(), chunkPayloadBytes);
    for (std::uint32_t seq = 0; seq < n; ++seq) {
        common::EncodeTerrainChunk(*file, seq, chunkPayloadBytes, chunk);
        chunk.resize(sizeof(common::TerrainChunkHeader) +
                     chunkPayloadBytes);  // fixed size for Bcast
        Broadcast(group, chunk.data(), static_cast<int>(chunk.size()), stallTimeoutS);
        recorder.AddTraffic(common::Activity::TerrainSend, static_cast<double>(chunk.size()), 1);
    }
    return {};
}

Expected<std::vector<std::byte>> ReceiveTerrainFile(const common::Group& group,
                                                    int chunkPayloadBytes,
                                                    common::Recorder& recorder,
                                                    double stallTimeoutS) {
    common::ScopedActivity timing(recorder, common::Activity::TerrainReceive);
    TerrainStatus status;
    BroadcastStatus(group, status, stallTimeoutS);
    if (status.totalBytes < 0) {
        status.message[sizeof(status.message) - 1] = '\0';
        return Error{status.message};
    }
    std::vector<std::byte> file(static_cast<std::size_t>(status.totalBytes));
    std::vector<std::byte> chunk(sizeof(common::TerrainChunkHeader) + chunkPayloadBytes);
    std::uint32_t n = ChunkCount(file.size(), chunkPayloadBytes);
    for (std::uint32_t seq = 0; seq < n; ++seq) {
        Broadcast(group, chunk.data(), static_cast<int>(chunk.size()), stallTimeoutS);
        recorder.AddTraffic(common::Activity::TerrainReceive, static_cast<double>(chunk.size()), 1);
        std::uint64_t offset = static_cast<std::uint64_t>(seq) * chunkPayloadBytes;
        auto header = common::DecodeTerrainChunk(chunk, seq, offset, file.size());
        if (!header) AbortJob(group, header.error());
        std::memcpy(file.data() + offset, chunk.data() + sizeof(common::TerrainChunkHeader),
                    header->payloadBytes);
    }
    return file;
}

Expected<TerrainStartup> ReceiveTerrainStartup(const common::Group& group, int chunkPayloadBytes,
                                               common::Recorder& recorder, double stallTimeoutS) {
    auto bytes = ReceiveTerrainFile(group, chunkPayloadBytes, recorder, stallTimeoutS);
    if (!bytes) return bytes.error();
    auto startup = DecodeTerrainStartup(*bytes);
    if (!startup) common::AbortJob(group, startup.error());
    return startup;
}

}  // namespace bfv::terrain
