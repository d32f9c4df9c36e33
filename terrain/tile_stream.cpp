#include "terrain/tile_stream.h"

#include <fmt/format.h>

#include <cstring>

#include "common/check.h"

namespace bfv::terrain {

namespace {

constexpr std::uint32_t kTileWithMaterials = 5;  // the wire kind of a tile with materials

void AppendHeader(std::uint32_t kind, std::uint32_t frame, std::uint64_t key,
                  std::vector<std::byte>& out) {
    std::size_t at = out.size();
    out.resize(at + kTileRecordHeaderBytes);
    std::memcpy(&out[at], &kind, 4);
    std::memcpy(&out[at + 4], &frame, 4);
    std::memcpy(&out[at + 8], &key, 8);
}

}  // namespace

void AppendTileRecord(const TilePosts& tile, std::vector<std::byte>& out) {
    BFV_CHECK(tile.codes.size() == static_cast<std::size_t>(kTilePostCount));
    bool withMaterials = !tile.materials.empty();
    BFV_CHECK(!withMaterials || tile.materials.size() == static_cast<std::size_t>(kTilePostCount));
    AppendHeader(withMaterials ? kTileWithMaterials : TileRecord::kTile, 0, tile.key.Packed(), out);
    std::size_t at = out.size();
    out.resize(at + 2 * kTilePostCount + tile.materials.size());
    std::memcpy(&out[at], tile.codes.data(), 2 * kTilePostCount);
    if (withMaterials)
        std::memcpy(&out[at + 2 * kTilePostCount], tile.materials.data(), kTilePostCount);
}

void AppendEvictRecord(const TileKey& key, std::vector<std::byte>& out) {
    AppendHeader(TileRecord::kEvict, 0, key.Packed(), out);
}

void AppendFrameReadyRecord(std::uint32_t frame, std::vector<std::byte>& out) {
    AppendHeader(TileRecord::kFrameReady, frame, 0, out);
}

void AppendEndOfStreamRecord(std::vector<std::byte>& out) {
    AppendHeader(TileRecord::kEndOfStream, 0, 0, out);
}

void TileStreamReader::Feed(std::span<const std::byte> bytes) {
    if (read_ > 0 && read_ == buffer_.size()) {
        buffer_.clear();
        read_ = 0;
    }
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

Expected<bool> TileStreamReader::Next(const PyramidGeometry& geometry, TileRecord& record) {
    std::size_t available = buffer_.size() - read_;
    if (available < kTileRecordHeaderBytes) return false;
    std::uint32_t kind, frame;
    std::uint64_t packed;
    std::memcpy(&kind, &buffer_[read_], 4);
    std::memcpy(&frame, &buffer_[read_ + 4], 4);
    std::memcpy(&packed, &buffer_[read_ + 8], 8);
    if (kind < TileRecord::kTile || kind > kTileWithMaterials) {
        return Error{fmt::format("tile stream: unknown record kind {}", kind)};
    }
    bool withMaterials = kind == kTileWithMaterials;
    if (withMaterials) kind = TileRecord::kTile;
    TileKey key = TileKey::Unpack(packed);
    if (kind == TileRecord::kTile || kind == TileRecord::kEvict) {
        if (key.level >= geometry.levelCount || key.tx >= geometry.TilesPerSide(key.level) ||
            key.ty >= geometry.TilesPerSide(key.level)) {
            return Error{
                fmt::format("tile stream: tile {} is outside the pyramid", key.ToString())};
        }
    }
    std::size_t bytes = kind != TileRecord::kTile ? kTileRecordHeaderBytes
                        : withMaterials           ? kMaxTileRecordBytes
                                                  : kTileRecordBytes;
    if (available < bytes) return false;
    record.kind = static_cast<TileRecord::Kind>(kind);
    record.frame = frame;
    record.tile.key = key;
    record.tile.materials.clear();
    if (kind == TileRecord::kTile) {
        const std::byte* payload = &buffer_[read_ + kTileRecordHeaderBytes];
        record.tile.codes.resize(kTilePostCount);
        std::memcpy(record.tile.codes.data(), payload, 2 * kTilePostCount);
        if (withMaterials) {
            record.tile.materials.resize(kTilePostCount);
            std::memcpy(record.tile.materials.data(), payload + 2 * kTilePostCount, kTilePostCount);
        }
    }
    read_ += bytes;
    return true;
}

}  // namespace bfv::terrain
