#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>

#include "terrain/tile_pyramid.h"

namespace bfv::terrain_server {

/// The least-recently-used bookkeeping of the ray tracers' cache of fine tiles, kept by the
/// terrain server (which then tells every tracer what to evict, so all hold the same tiles).
/// Recency is the frame a tile was last wanted in; at most `capacityTiles` tiles.
class TileLru {
  public:
    explicit TileLru(std::size_t capacityTiles) : capacity_(capacityTiles) {}

    bool Contains(const terrain::TileKey& key) const { return entries_.count(key.Packed()) > 0; }
    std::size_t Size() const { return entries_.size(); }
    std::size_t Capacity() const { return capacity_; }

    /// Marks a resident `key` as wanted in frame `frame` (most recent). No-op if not resident.
    void Touch(const terrain::TileKey& key, std::uint32_t frame);
    /// Makes `key` resident as wanted in `frame`. Requires room (Size() < Capacity()).
    void Insert(const terrain::TileKey& key, std::uint32_t frame);
    /// The least recently wanted tile, if it was last wanted before `frame` (tiles the current
    /// frame wants are never evicted); it is removed from the LRU.
    std::optional<terrain::TileKey> EvictBefore(std::uint32_t frame);

  private:
    struct Entry {
        terrain::TileKey key;
        std::uint32_t frame;
    };
    std::size_t capacity_;
    std::list<Entry> order_;  // most recent first
    std::unordered_map<std::uint64_t, std::list<Entry>::iterator> entries_;
};

}  // namespace bfv::terrain_server
