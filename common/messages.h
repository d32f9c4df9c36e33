#pragma once

// Wire formats of bfv's messages. Every message starts with a fixed header that the receiver
// validates before it touches the payload: a corrupt or truncated message is rejected with an
// Error, never read past its end. Integers are little-endian (all supported hosts are).

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "common/camera.h"
#include "common/column_codec.h"
#include "common/decomposition.h"
#include "common/expected.h"
#include "common/pixel.h"

namespace bfv::common {

/// Header of a message of screen columns from a ray tracer to the display. The payload is
/// nColumns columns of heightPx Pixels each, column after column, top row first, compressed
/// with `codec` (payloadBytes is its size on the wire); column k of the message is screen
/// column firstColumn + k * columnStride. Every message of a frame carries the tracer's trace
/// time of that frame (all its columns), the display's measure of load balance (the report's
/// imbalance), and its time taking in that frame's tiles: together what --decomposition
/// dynamic balances.
struct ColumnsHeader {
    std::uint32_t magic = kMagic;
    std::uint32_t frame = 0;
    std::uint32_t firstColumn = 0;
    std::uint32_t columnStride = 1;
    std::uint32_t nColumns = 0;
    std::uint32_t heightPx = 0;
    std::uint32_t payloadBytes = 0;
    std::uint32_t coarserSamples = 0;  // terrain pixels rendered coarser than their footprint asked
    std::uint32_t codec = 0;           // a ColumnCodec: how the payload is compressed
    std::uint32_t traceUs = 0;         // the trace's CPU over its SustainedShare, us
    std::uint32_t terrainSamples = 0;  // pixels that show terrain (the resolution deficit's base)
    std::uint32_t tileReceiveUs = 0;   // the tiles' CPU taken in, over the same share, us

    static constexpr std::uint32_t kMagic = 0x43564642;  // "BFVC"
};
static_assert(sizeof(ColumnsHeader) == 48 && std::is_trivially_copyable_v<ColumnsHeader>);

/// A frame's (or part of a frame's) samples as the resolution deficit counts them: the pixels
/// that show terrain, and those of them rendered coarser than their footprint asked for.
struct SampleCounts {
    std::uint64_t terrain = 0;
    std::uint64_t coarser = 0;

    SampleCounts& operator+=(const SampleCounts& other) {
        terrain += other.terrain;
        coarser += other.coarser;
        return *this;
    }
};

/// Bytes of a raw columns message carrying `nColumns` columns of `heightPx` rows: the most a
/// columns message can take, compressed or not.
std::size_t ColumnsMessageBytes(int nColumns, int heightPx);

/// Writes `header` (payloadBytes and codec filled in) and `pixels`, compressed with `codec`
/// (or raw where that is not smaller), into `out`, at most ColumnsMessageBytes(
/// header.nColumns, header.heightPx) bytes. `pixels` holds nColumns*heightPx.
void EncodeColumns(ColumnsHeader header, std::span<const Pixel> pixels, ColumnCodec codec,
                   std::vector<std::byte>& out);

/// Validates a received columns message against the screen: size, magic, codec, payload size,
/// the column range. Returns the header; the payload starts sizeof(ColumnsHeader) bytes in.
Expected<ColumnsHeader> DecodeColumns(std::span<const std::byte> message, int widthPx,
                                      int heightPx);

/// The raw pixels (as bytes, column after column) of a message DecodeColumns accepted: the
/// message's own payload when it travelled raw, else decompressed into `scratch`, which the
/// result then views. Errors: a corrupt compressed payload.
Expected<std::span<const std::byte>> ColumnsPayload(std::span<const std::byte> message,
                                                    const ColumnsHeader& header,
                                                    std::vector<std::byte>& scratch);

/// Header of one chunk of the terrain file as the terrain server broadcasts it.
struct TerrainChunkHeader {
    std::uint32_t magic = kMagic;
    std::uint32_t sequence = 0;      // chunk number, from 0
    std::uint64_t offsetBytes = 0;   // where the payload goes in the file
    std::uint64_t totalBytes = 0;    // size of the whole file
    std::uint32_t payloadBytes = 0;  // bytes of file in this chunk
    std::uint32_t payloadCrc32 = 0;  // zlib crc32 of the payload

    static constexpr std::uint32_t kMagic = 0x54564642;  // "BFVT"
};
static_assert(sizeof(TerrainChunkHeader) == 32 && std::is_trivially_copyable_v<TerrainChunkHeader>);

/// Builds chunk `sequence` of `file` (at most chunkPayloadBytes of it) into `out`.
void EncodeTerrainChunk(std::span<const std::byte> file, std::uint32_t sequence,
                        std::size_t chunkPayloadBytes, std::vector<std::byte>& out);

/// Validates a chunk: size, magic, that it is chunk `expectedSequence` at the expected offset
/// of a file of `totalBytes`, and its payload checksum. Returns its header.
Expected<TerrainChunkHeader> DecodeTerrainChunk(std::span<const std::byte> message,
                                                std::uint32_t expectedSequence,
                                                std::uint64_t expectedOffset,
                                                std::uint64_t totalBytes);

/// What the display tells every rank before each frame: the camera, or that the run ends.
/// With --decomposition dynamic a render command also carries the frame's split of the
/// screen among the ray tracers (decomposition.h), which the display chose and will expect
/// the columns by: one fixed-size message, so that the split cannot arrive apart from its
/// frame.
struct FrameCommand {
    // kHeartbeat: nothing to do, the display is alive (a paused window, or one waiting for a
    // tracer's columns); wait for the next.
    enum Kind : std::uint32_t { kRender = 0, kQuit = 1, kAbort = 2, kHeartbeat = 3 };

    std::uint32_t kind = kRender;
    std::uint32_t frame = 0;
    double eyeM[3] = {0, 0, 0};
    double headingRad = 0.0;
    double pitchRad = 0.0;
    double timeS = 0.0;
    std::uint32_t nSlices = 0;  // = 0 // slices of the split (one per ray tracer); 0 = none
    std::uint32_t sliceEndPx[kMaxDynamicTracers] = {};  // slice t is columns [end of slice
                                                        //  t - 1 (0 for t = 0), sliceEndPx[t])

    CameraPose Pose() const;
    static FrameCommand Render(std::uint32_t frame, const CameraPose& pose);

    /// Carries the split `boundariesPx` (decomposition.h: T + 1 boundaries, T at most
    /// kMaxDynamicTracers).
    void SetSplit(std::span<const int> boundariesPx);
    /// The split this command carries as boundaries, checked against the job: errors when it
    /// carries none, or not one of nTracers slices of at least one column covering a screen
    /// widthPx wide (the display and this rank disagree, or the message is damaged).
    Expected<std::vector<int>> Split(int nTracers, int widthPx) const;
};
// Sent and received as bytes (rank_protocol.h), between ranks of one build.
static_assert(std::is_trivially_copyable_v<FrameCommand>);

}  // namespace bfv::common
