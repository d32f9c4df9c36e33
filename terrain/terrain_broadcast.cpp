#include "terrain/terrain_broadcast.h"

#include <cstring>
#include <string>
#include <type_traits>

#include "common/messages.h"
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

void BroadcastStatus(const common::Group& group, TerrainStatus& status) {
    BFV_MPI_CHECK(MPI_Bcast(&status, sizeof(status), MPI_BYTE, group.serverRank(), group.comm));
}

}  // namespace

Expected<void> BroadcastTerrainFile(const common::Group& group,
                                    const Expected<std::vector<std::byte>>& file,
                                    int chunkPayloadBytes, common::Recorder& recorder) {
    common::ScopedActivity timing(recorder, common::Activity::TerrainSend);
    TerrainStatus status;
    if (!file) {
        std::strncpy(status.message, file.error().message.c_str(), sizeof(status.message) - 1);
        BroadcastStatus(group, status);
        return file.error();
    }
    status.totalBytes = static_cast<std::int64_t>(file->size());
    BroadcastStatus(group, status);
    std::vector<std::byte> chunk;
    std::uint32_t n = ChunkCount(file->size(), chunkPayloadBytes);
    for (std::uint32_t seq = 0; seq < n; ++seq) {
        common::EncodeTerrainChunk(*file, seq, chunkPayloadBytes, chunk);
        chunk.resize(sizeof(common::TerrainChunkHeader) +
                     chunkPayloadBytes);  // fixed size for Bcast
        BFV_MPI_CHECK(MPI_Bcast(chunk.data(), static_cast<int>(chunk.size()), MPI_BYTE,
                                group.serverRank(), group.comm));
        recorder.AddTraffic(common::Activity::TerrainSend, static_cast<double>(chunk.size()), 1);
    }
    return {};
}

Expected<std::vector<std::byte>> ReceiveTerrainFile(const common::Group& group,
                                                    int chunkPayloadBytes,
                                                    common::Recorder& recorder) {
    common::ScopedActivity timing(recorder, common::Activity::TerrainReceive);
    TerrainStatus status;
    BroadcastStatus(group, status);
    if (status.totalBytes < 0) {
        status.message[sizeof(status.message) - 1] = '\0';
        return Error{status.message};
    }
    std::vector<std::byte> file(static_cast<std::size_t>(status.totalBytes));
    std::vector<std::byte> chunk(sizeof(common::TerrainChunkHeader) + chunkPayloadBytes);
    std::uint32_t n = ChunkCount(file.size(), chunkPayloadBytes);
    for (std::uint32_t seq = 0; seq < n; ++seq) {
        BFV_MPI_CHECK(MPI_Bcast(chunk.data(), static_cast<int>(chunk.size()), MPI_BYTE,
                                group.serverRank(), group.comm));
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
                                               common::Recorder& recorder) {
    auto bytes = ReceiveTerrainFile(group, chunkPayloadBytes, recorder);
    if (!bytes) return bytes.error();
    auto startup = DecodeTerrainStartup(*bytes);
    if (!startup) common::AbortJob(group, startup.error());
    return startup;
}

}  // namespace bfv::terrain
