#include "terrain-server/tile_lru.h"

#include "common/check.h"

namespace bfv::terrain_server {

void TileLru::Touch(const terrain::TileKey& key, std::uint32_t frame) {
    auto it = entries_.find(key.Packed());
    if (it == entries_.end()) return;
    it->second->frame = frame;
    order_.splice(order_.begin(), order_, it->second);
}

void TileLru::Insert(const terrain::TileKey& key, std::uint32_t frame) {
    BFV_CHECK(entries_.size() < capacity_ && !Contains(key));
    order_.push_front({key, frame});
    entries_[key.Packed()] = order_.begin();
}

std::optional<terrain::TileKey> TileLru::EvictBefore(std::uint32_t frame) {
    if (order_.empty() || order_.back().frame >= frame) return std::nullopt;
    terrain::TileKey key = order_.back().key;
    entries_.erase(key.Packed());
    order_.pop_back();
    return key;
}

}  // namespace bfv::terrain_server
