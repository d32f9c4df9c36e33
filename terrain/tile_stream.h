#pragma once

// The tile stream: what the terrain server tells the ray tracers' terrain caches, as a byte
// stream of records cut into messages of any size (a record may span messages; MPI keeps one
// sender's messages in order). Every record starts with a 16-byte header:
//
//   u32 kind   1 tile, 2 evict, 3 frame ready, 4 end of stream, 5 tile with materials
//   u32 frame  frame ready: the frame whose tiles are all sent; else 0
//   u64 key    TileKey::Packed() (tile, evict); else 0
//
// A tile record carries kTilePostCount int16 codes after its header (terrain::TilePosts); a
// tile with materials (a stored tile of a pyramid draped with imagery) then kTilePostCount u8
// material codes (TilePosts::materials).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/expected.h"
#include "terrain/tile_pyramid.h"

namespace bfv::terrain {

/// What one record of the tile stream says.
struct TileRecord {
    /// Kinds as read; a tile with materials on the wire reads as kTile with tile.materials.
    enum Kind : std::uint32_t { kTile = 1, kEvict = 2, kFrameReady = 3, kEndOfStream = 4 };
    Kind kind = kTile;
    std::uint32_t frame = 0;  // kFrameReady: every tile frame `frame` needs has been sent
    TilePosts tile;           // kTile: the tile; kEvict: only tile.key
};

inline constexpr std::size_t kTileRecordHeaderBytes = 16;
/// Bytes of a tile record on the wire without materials.
inline constexpr std::size_t kTileRecordBytes = kTileRecordHeaderBytes + 2 * kTilePostCount;
/// Bytes of the largest record: a tile with materials.
inline constexpr std::size_t kMaxTileRecordBytes = kTileRecordBytes + kTilePostCount;

/// Bytes of the largest tile record a stream of the pyramid `info` carries.
inline std::size_t TileRecordBytes(const PyramidInfo& info) {
    return info.Textured() ? kMaxTileRecordBytes : kTileRecordBytes;
}

/// Appends a tile record (requires tile.codes.size() == kTilePostCount, and tile.materials
/// empty or of kTilePostCount codes: then the record carries them).
void AppendTileRecord(const TilePosts& tile, std::vector<std::byte>& out);
/// Appends an evict record: drop `key` from the cache.
void AppendEvictRecord(const TileKey& key, std::vector<std::byte>& out);
/// Appends a frame-ready record (--terrain-sync): everything frame `frame` needs came before.
void AppendFrameReadyRecord(std::uint32_t frame, std::vector<std::byte>& out);
/// Appends the end-of-stream record: the server sends nothing after it.
void AppendEndOfStreamRecord(std::vector<std::byte>& out);

/// Reassembles records from the stream's messages.
class TileStreamReader {
  public:
    /// Adds a message's bytes to the stream.
    void Feed(std::span<const std::byte> bytes);
    /// The next complete record, if one has arrived; false when more bytes are needed. Errors:
    /// an unknown kind or a key outside the pyramid (a corrupt stream).
    Expected<bool> Next(const PyramidGeometry& geometry, TileRecord& record);

  private:
    std::vector<std::byte> buffer_;
    std::size_t read_ = 0;  // bytes of buffer_ already parsed
};

}  // namespace bfv::terrain
