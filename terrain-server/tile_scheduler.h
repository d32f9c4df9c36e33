#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "common/camera.h"
#include "common/expected.h"
#include "common/render_options.h"
#include "terrain-server/tile_lru.h"
#include "terrain/tile_pyramid.h"

namespace bfv::terrain_server {

/// A tile a view wants, and how much the picture loses without it: the screen-space error of
/// showing its parent instead, in pixels (the parent's post spacing over the pixel footprint at
/// the tile's nearest point).
struct WantedTile {
    terrain::TileKey key;
    double screenErrorPx = 0.0;
};

/// The tiles a camera at `pose` reads, by the ray caster's own rule (a level is wanted where a
/// pixel's footprint, `lodBias` times the pixel angle times the horizontal distance, is under
/// twice its post spacing): every tile of every level that overlaps the data area and the
/// horizontal field of view within that distance, coarse levels included. Unordered. The
/// footprint is stretched along the track as the caster stretches it (up to `maxAnisotropy`
/// times), by the least stretch a ray reaching the tile can have: that of the steepest ray,
/// from the eye down to the lowest height any post can have (the height coding's lowest code)
/// at the tile's nearest distance. The screen error takes the same stretched footprint.
std::vector<WantedTile> TilesForView(const terrain::PyramidInfo& info,
                                     const common::CameraPose& pose,
                                     const common::ScreenSpec& screen, double lodBias,
                                     double maxAnisotropy);

/// Where tiles come from: stored tiles are read (through `readStored`, e.g. the memory-mapped
/// pyramid file, which checks each tile's checksum), finer ones refined from their parent, which
/// is fetched the same way, and on a draped fractal level (PyramidInfo::drapedLevels) given
/// the materials `readStored` reads for them. Keeps the last `memoTiles` tiles it made or read.
class TileSource {
  public:
    using StoredReader = std::function<Expected<terrain::TilePosts>(const terrain::TileKey&)>;

    TileSource(const terrain::PyramidInfo& info, StoredReader readStored,
               std::size_t memoTiles = 4096);

    /// The tile `key`, or the read error (a corrupt tile names itself).
    Expected<terrain::TilePosts> Get(const terrain::TileKey& key);

    long long TilesRead() const { return tilesRead_; }
    long long TilesRefined() const { return tilesRefined_; }

  private:
    const terrain::TilePosts* Memo(const terrain::TileKey& key);
    const terrain::TilePosts& Remember(terrain::TilePosts tile);

    const terrain::PyramidInfo& info_;
    StoredReader readStored_;
    terrain_server::TileLru memoOrder_;
    std::unordered_map<std::uint64_t, terrain::TilePosts> memo_;
    std::uint32_t uses_ = 0;
    long long tilesRead_ = 0;
    long long tilesRefined_ = 0;
};

/// Options of the TileScheduler.
struct SchedulerOptions {
    std::size_t cacheTiles = 0;  // fine tiles each tracer may hold (--cache-mib)
    common::ScreenSpec screen;
    double lodBias = 1.0;
    double prefetchS = 2.0;      // = 2 s // also wants the view this far ahead on the flight
    double maxAnisotropy = 4.0;  // = 4 // the ray caster's cap on the footprint's stretch
};

/// The tile stream's bandwidth budget (--terrain-budget): a token bucket that fills at
/// bytesPerS and holds at most 100 ms of budget, or one tile record if that is more, so an
/// idle spell does not turn into a burst.
class StreamBudget {
  public:
    /// A budget of `bytesPerS` for a stream whose tile records take up to `recordBytes`.
    StreamBudget(double bytesPerS, std::size_t recordBytes)
        : bytesPerS_(bytesPerS), recordBytes_(static_cast<double>(recordBytes)) {}
    /// Adds `elapsedS` seconds of budget. Returns the bytes that may go now: 0 while less than
    /// one tile record is due.
    std::size_t Refill(double elapsedS);
    /// Takes `bytes` sent out of the budget.
    void Spend(std::size_t bytes) { tokens_ -= static_cast<double>(bytes); }

  private:
    double bytesPerS_;
    double recordBytes_;
    double tokens_ = 0.0;
};

/// The scheduler options `bfv render`'s options ask for: --cache-mib in tiles, the screen, the
/// level-of-detail bias.
SchedulerOptions SchedulerOptionsFrom(const common::RenderOptions& options);

/// The terrain server's plan (calculation 0 of the source paper): ranks the tiles the current
/// view wants (and, for prefetch, the view prefetchS ahead along the eye's velocity) by
/// screen-space error, and emits tile-stream records (terrain/tile_stream.h) for the most
/// important ones the tracers lack, evicting the least recently wanted fine tiles to stay within
/// cacheTiles. Pinned (always resident) levels are never streamed or evicted.
class TileScheduler {
  public:
    TileScheduler(const terrain::PyramidInfo& info, TileSource& source,
                  const SchedulerOptions& options);

    /// Re-plans for the view of frame `frame` (its flight time is pose.timeS). With `prefetch`,
    /// adds the view ahead (at half the screen-space error).
    void SetView(const common::CameraPose& pose, std::uint32_t frame, bool prefetch);
    /// Appends evict and tile records for the most important wanted tiles not yet sent, until
    /// about `maxBytes` are used (at least one tile when any is due), nothing is due, or the
    /// cache is full of tiles the current frame wants. Returns the bytes appended, or the error
    /// reading a tile gave.
    Expected<std::size_t> Produce(std::size_t maxBytes, std::vector<std::byte>& out);

    /// The pyramid the tiles come from.
    const terrain::PyramidInfo& Info() const { return info_; }
    /// Wanted tiles not yet sent.
    std::size_t QueueDepth() const;
    long long TilesSent() const { return tilesSent_; }
    long long TilesEvicted() const { return tilesEvicted_; }

  private:
    const terrain::PyramidInfo& info_;
    TileSource& source_;
    SchedulerOptions options_;
    int pinnedLevels_;
    terrain_server::TileLru lru_;
    std::vector<WantedTile> wanted_;  // most important first
    std::size_t cursor_ = 0;          // wanted_[0, cursor_) are resident
    std::uint32_t frame_ = 0;
    bool haveView_ = false;
    common::CameraPose lastPose_;
    long long tilesSent_ = 0;
    long long tilesEvicted_ = 0;
};

}  // namespace bfv::terrain_server
