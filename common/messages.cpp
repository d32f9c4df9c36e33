#include "common/messages.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "common/check.h"

namespace bfv::common {

namespace {

Error ColumnsError(const std::string& what) { return Error{"columns message: " + what}; }
Error ChunkError(const std::string& what) { return Error{"terrain chunk: " + what}; }

std::uint32_t Crc32(std::span<const std::byte> bytes) {
    return static_cast<std::uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

template <typename Header>
Header ReadHeader(std::span<const std::byte> message) {
    Header header;
    std::memcpy(&header, message.data(), sizeof(Header));
    return header;
}

}  // namespace

std::size_t ColumnsMessageBytes(int nColumns, int heightPx) {
    return sizeof(ColumnsHeader) + static_cast<std::size_t>(nColumns) * heightPx * sizeof(Pixel);
}

void EncodeColumns(ColumnsHeader header, std::span<const Pixel> pixels, ColumnCodec codec,
                   std::vector<std::byte>& out) {
    out.resize(sizeof(ColumnsHeader));
    header.codec =
        static_cast<std::uint32_t>(Compress(codec, std::as_bytes(pixels), out, sizeof(header)));
    header.payloadBytes = static_cast<std::uint32_t>(out.size() - sizeof(header));
    std::memcpy(out.data(), &header, sizeof(header));
}

Expected<ColumnsHeader> DecodeColumns(std::span<const std::byte> message, int widthPx,
                                      int heightPx) {
    if (message.size() < sizeof(ColumnsHeader)) {
        return ColumnsError("truncated: " + std::to_string(message.size()) +
                            " bytes, shorter than its header");
    }
    auto h = ReadHeader<ColumnsHeader>(message);
    if (h.magic != ColumnsHeader::kMagic) return ColumnsError("bad magic");
    if (h.payloadBytes != message.size() - sizeof(ColumnsHeader)) {
        return ColumnsError("payload is " + std::to_string(message.size() - sizeof(h)) +
                            " bytes, header says " + std::to_string(h.payloadBytes));
    }
    if (h.heightPx != static_cast<std::uint32_t>(heightPx)) {
        return ColumnsError("column height " + std::to_string(h.heightPx) + ", screen has " +
                            std::to_string(heightPx));
    }
    if (h.codec > static_cast<std::uint32_t>(ColumnCodec::Zstd)) {
        return ColumnsError("unknown codec " + std::to_string(h.codec));
    }
    std::uint64_t rawBytes = static_cast<std::uint64_t>(h.nColumns) * h.heightPx * sizeof(Pixel);
    bool raw = h.codec == static_cast<std::uint32_t>(ColumnCodec::None);
    if (h.nColumns == 0 || h.columnStride == 0 || (raw && rawBytes != h.payloadBytes) ||
        (!raw && (h.payloadBytes == 0 || h.payloadBytes >= rawBytes))) {
        return ColumnsError("column count and payload size disagree");
    }
    std::uint64_t last =
        h.firstColumn + static_cast<std::uint64_t>(h.nColumns - 1) * h.columnStride;
    if (last >= static_cast<std::uint64_t>(widthPx)) {
        return ColumnsError("column " + std::to_string(last) + " is off a screen " +
                            std::to_string(widthPx) + " wide");
    }
    return h;
}

Expected<std::span<const std::byte>> ColumnsPayload(std::span<const std::byte> message,
                                                    const ColumnsHeader& header,
                                                    std::vector<std::byte>& scratch) {
    auto payload = message.subspan(sizeof(ColumnsHeader));
    auto codec = static_cast<ColumnCodec>(header.codec);
    if (codec == ColumnCodec::None) return payload;
    scratch.resize(static_cast<std::size_t>(header.nColumns) * header.heightPx * sizeof(Pixel));
    if (auto ok = Decompress(codec, payload, scratch); !ok) return ColumnsError(ok.error().message);
    return std::span<const std::byte>(scratch);
}

void EncodeTerrainChunk(std::span<const std::byte> file, std::uint32_t sequence,
                        std::size_t chunkPayloadBytes, std::vector<std::byte>& out) {
    std::uint64_t offset = static_cast<std::uint64_t>(sequence) * chunkPayloadBytes;
    auto payload =
        file.subspan(offset, std::min<std::size_t>(chunkPayloadBytes, file.size() - offset));
    TerrainChunkHeader header;
    header.sequence = sequence;
    header.offsetBytes = offset;
    header.totalBytes = file.size();
    header.payloadBytes = static_cast<std::uint32_t>(payload.size());
    header.payloadCrc32 = Crc32(payload);
    out.resize(sizeof(header) + payload.size());
    std::memcpy(out.data(), &header, sizeof(header));
    std::memcpy(out.data() + sizeof(header), payload.data(), payload.size());
}

Expected<TerrainChunkHeader> DecodeTerrainChunk(std::span<const std::byte> message,
                                                std::uint32_t expectedSequence,
                                                std::uint64_t expectedOffset,
                                                std::uint64_t totalBytes) {
    if (message.size() < sizeof(TerrainChunkHeader)) return ChunkError("truncated header");
    auto h = ReadHeader<TerrainChunkHeader>(message);
    if (h.magic != TerrainChunkHeader::kMagic) return ChunkError("bad magic");
    if (h.sequence != expectedSequence || h.offsetBytes != expectedOffset) {
        return ChunkError("chunk " + std::to_string(h.sequence) + " arrived, expected " +
                          std::to_string(expectedSequence));
    }
    if (h.totalBytes != totalBytes || h.payloadBytes > message.size() - sizeof(h) ||
        h.offsetBytes + h.payloadBytes > totalBytes) {
        return ChunkError("payload size disagrees with the message or the file size");
    }
    if (Crc32(message.subspan(sizeof(h), h.payloadBytes)) != h.payloadCrc32) {
        return ChunkError("checksum mismatch in chunk " + std::to_string(h.sequence));
    }
    return h;
}

CameraPose FrameCommand::Pose() const {
    return {glm::dvec3(eyeM[0], eyeM[1], eyeM[2]), headingRad, pitchRad, timeS};
}

FrameCommand FrameCommand::Render(std::uint32_t frame, const CameraPose& pose) {
    FrameCommand c;
    c.frame = frame;
    c.eyeM[0] = pose.eyeM.x;
    c.eyeM[1] = pose.eyeM.y;
    c.eyeM[2] = pose.eyeM.z;
    c.headingRad = pose.headingRad;
    c.pitchRad = pose.pitchRad;
    c.timeS = pose.timeS;
    return c;
}

void FrameCommand::SetSplit(std::span<const int> boundariesPx) {
    BFV_CHECK(boundariesPx.size() >= 2 && boundariesPx.size() <= kMaxDynamicTracers + 1);
    nSlices = static_cast<std::uint32_t>(boundariesPx.size() - 1);
    for (std::uint32_t t = 0; t < nSlices; ++t)
        sliceEndPx[t] = static_cast<std::uint32_t>(boundariesPx[t + 1]);
}

Expected<std::vector<int>> FrameCommand::Split(int nTracers, int widthPx) const {
    std::string where = "frame command " + std::to_string(frame) + ": ";
    if (nSlices > kMaxDynamicTracers || nSlices != static_cast<std::uint32_t>(nTracers)) {
        return Error{where + "carries a column split for " + std::to_string(nSlices) +
                     " ray tracers, the job has " + std::to_string(nTracers)};
    }
    std::vector<int> boundariesPx{0};
    for (std::uint32_t t = 0; t < nSlices; ++t) {
        if (sliceEndPx[t] > static_cast<std::uint32_t>(widthPx)) {
            return Error{where + "ray tracer " + std::to_string(t) + "'s slice ends at column " +
                         std::to_string(sliceEndPx[t]) + ", off a screen " +
                         std::to_string(widthPx) + " wide"};
        }
        boundariesPx.push_back(static_cast<int>(sliceEndPx[t]));
    }
    if (auto ok = ValidateBoundaries(boundariesPx, nTracers, widthPx); !ok)
        return Error{where + ok.error().message};
    return boundariesPx;
}

}  // namespace bfv::common
