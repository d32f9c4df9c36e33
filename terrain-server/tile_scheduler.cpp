#include "terrain-server/tile_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "common/fan.h"
#include "terrain/tile_stream.h"

namespace bfv::terrain_server {

namespace {

using terrain::TileKey;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The horizontal field of view as a wedge from the eye: its centre direction and edges,
// widened by a pixel; or every direction, when the view looks steeply down or up.
struct Wedge {
    double ex, ey;
    bool allAround;
    double cx, cy;                        // unit centre direction
    double leftX, leftY, rightX, rightY;  // unit edge directions
};

Wedge MakeWedge(const common::CameraPose& pose, const common::ScreenSpec& screen) {
    // Widen each edge by a pixel's angle so tiles the edge columns graze are kept.
    common::ScreenAzimuths range =
        common::ScreenAzimuthRange(pose, screen, common::PixelAngle(screen));
    double lx = range.left.dirX, ly = range.left.dirY, rx = range.right.dirX, ry = range.right.dirY;
    double cx = lx + rx, cy = ly + ry, norm = std::hypot(cx, cy);
    if (range.allAround || norm < 1e-9) return {pose.eyeM.x, pose.eyeM.y, true, 0, 0, 0, 0, 0, 0};
    return {pose.eyeM.x, pose.eyeM.y, false, cx / norm, cy / norm, lx, ly, rx, ry};
}

// Whether point (x, y) lies inside the wedge (between its edges, in front).
bool InWedge(const Wedge& w, double x, double y) {
    double px = x - w.ex, py = y - w.ey;
    // Left of the right edge and right of the left edge (cross products).
    return w.rightX * py - w.rightY * px >= 0.0 && w.leftX * py - w.leftY * px <= 0.0 &&
           px * w.cx + py * w.cy >= 0.0;
}

// Whether the ray from the eye along (dx, dy) crosses the square [x0, x1] x [y0, y1].
bool RayHitsSquare(const Wedge& w, double dx, double dy, double x0, double x1, double y0,
                   double y1) {
    double s0 = 0.0, s1 = kInf;
    return common::ClipTrackToRect({w.ex, w.ey, dx, dy}, x0, x1, y0, y1, s0, s1);
}

bool SquareMeetsWedge(const Wedge& w, double x0, double x1, double y0, double y1) {
    if (w.allAround) return true;
    if (w.ex >= x0 && w.ex <= x1 && w.ey >= y0 && w.ey <= y1) return true;
    if (InWedge(w, x0, y0) || InWedge(w, x1, y0) || InWedge(w, x0, y1) || InWedge(w, x1, y1)) {
        return true;
    }
    return RayHitsSquare(w, w.leftX, w.leftY, x0, x1, y0, y1) ||
           RayHitsSquare(w, w.rightX, w.rightY, x0, x1, y0, y1);
}

// What decides a tile's level: the pixel footprint per metre of distance, and what bounds its
// stretch along the ground track from below.
struct Footprint {
    double perM;           // lodBias times the pixel angle
    double dropM;          // eye height above the lowest height a post can have: no ray that
                           // reaches terrain dips more than dropM over its distance
    double maxAnisotropy;  // the ray caster's cap on the stretch
};

// The footprint's longer axis at horizontal distance dM: the ray caster stretches each row's
// footprint by 1 / sin(depression) of its ray (common::AlongTrackStretch), and a ray that
// reaches terrain at dM or beyond dips at most dropM / dM, so this length is never more than
// what the caster asks for there: the tiles sent are at least as fine as the ones it reads.
double LongerAxisM(const Footprint& f, double dM) {
    double k = f.dropM > 0.0 ? -f.dropM / std::max(dM, 1e-3) : 0.0;
    return dM * f.perM * common::AlongTrackStretch(k, f.maxAnisotropy);
}

void Visit(const terrain::PyramidInfo& info, const Wedge& wedge, const Footprint& footprint,
           const TileKey& key, std::vector<WantedTile>& out) {
    const terrain::PyramidGeometry& g = info.geometry;
    double size = g.TileSizeM(key.level);
    double x0 = key.tx * size, y0 = key.ty * size, x1 = x0 + size, y1 = y0 + size;
    if (x0 >= info.dataWidthM || y0 >= info.dataDepthM) return;
    if (!SquareMeetsWedge(wedge, x0, x1, y0, y1)) return;
    double dx = std::max({x0 - wedge.ex, 0.0, wedge.ex - x1});
    double dy = std::max({y0 - wedge.ey, 0.0, wedge.ey - y1});
    double nearestM = std::hypot(dx, dy);
    double footprintM = LongerAxisM(footprint, nearestM);
    if (key.level > 0 && footprintM >= 2.0 * g.SpacingM(key.level)) return;
    double errorPx = key.level == 0
                         ? kInf
                         : g.SpacingM(key.level - 1) / std::max(footprintM, 1e-3 * footprint.perM);
    out.push_back({key, errorPx});
    if (key.level + 1 >= g.levelCount) return;
    for (int b = 0; b < 2; ++b) {
        for (int a = 0; a < 2; ++a) {
            Visit(info, wedge, footprint, {key.level + 1, 2 * key.tx + a, 2 * key.ty + b}, out);
        }
    }
}

}  // namespace

std::vector<WantedTile> TilesForView(const terrain::PyramidInfo& info,
                                     const common::CameraPose& pose,
                                     const common::ScreenSpec& screen, double lodBias,
                                     double maxAnisotropy) {
    std::vector<WantedTile> tiles;
    // The lowest code's height: below the stored levels' lowest post by the room the coding
    // keeps for the fractal levels, so no post of any level lies lower.
    double lowestM = info.coding.Decode(-32767);
    Footprint footprint{common::PixelAngle(screen) * lodBias, pose.eyeM.z - lowestM, maxAnisotropy};
    Visit(info, MakeWedge(pose, screen), footprint, {0, 0, 0}, tiles);
    return tiles;
}

TileSource::TileSource(const terrain::PyramidInfo& info, StoredReader readStored,
                       std::size_t memoTiles)
    : info_(info), readStored_(std::move(readStored)), memoOrder_(memoTiles) {}

const terrain::TilePosts* TileSource::Memo(const TileKey& key) {
    auto it = memo_.find(key.Packed());
    if (it == memo_.end()) return nullptr;
    memoOrder_.Touch(key, ++uses_);
    return &it->second;
}

const terrain::TilePosts& TileSource::Remember(terrain::TilePosts tile) {
    if (memoOrder_.Size() >= memoOrder_.Capacity()) {
        if (auto old = memoOrder_.EvictBefore(uses_ + 1)) memo_.erase(old->Packed());
    }
    TileKey key = tile.key;
    memoOrder_.Insert(key, ++uses_);
    return memo_[key.Packed()] = std::move(tile);
}

Expected<terrain::TilePosts> TileSource::Get(const TileKey& key) {
    if (const terrain::TilePosts* known = Memo(key)) return *known;
    if (key.level < info_.storedLevels) {
        auto tile = readStored_(key);
        if (!tile) return tile.error();
        ++tilesRead_;
        return Remember(std::move(*tile));
    }
    auto parent = Get(key.Parent());
    if (!parent) return parent.error();
    ++tilesRefined_;
    terrain::TilePosts refined = terrain::RefineTile(info_, *parent, key);
    if (key.level < info_.FileLevels()) {  // a draped fractal level: the imagery's materials
        auto draped = readStored_(key);
        if (!draped) return draped.error();
        refined.materials = std::move(draped->materials);
    }
    return Remember(std::move(refined));
}

std::size_t StreamBudget::Refill(double elapsedS) {
    constexpr double kBurstS = 0.1;  // = 100 ms
    tokens_ =
        std::min(std::max(bytesPerS_ * kBurstS, recordBytes_), tokens_ + bytesPerS_ * elapsedS);
    return tokens_ < recordBytes_ ? 0 : static_cast<std::size_t>(tokens_);
}

SchedulerOptions SchedulerOptionsFrom(const common::RenderOptions& options) {
    SchedulerOptions s;
    s.cacheTiles = static_cast<std::size_t>(options.terrain.cacheMiB) * (1 << 20) /
                   terrain::kResidentTileBytes;
    s.screen = options.view.screen;
    s.lodBias = options.shading.lodBias;
    s.maxAnisotropy = options.shading.maxAnisotropy;
    return s;
}

TileScheduler::TileScheduler(const terrain::PyramidInfo& info, TileSource& source,
                             const SchedulerOptions& options)
    : info_(info),
      source_(source),
      options_(options),
      pinnedLevels_(terrain::PinnedLevels(info)),
      lru_(options.cacheTiles) {}

void TileScheduler::SetView(const common::CameraPose& pose, std::uint32_t frame, bool prefetch) {
    std::unordered_map<std::uint64_t, double> errors;
    auto add = [&](const common::CameraPose& view, double weight) {
        for (const WantedTile& t :
             TilesForView(info_, view, options_.screen, options_.lodBias, options_.maxAnisotropy)) {
            if (t.key.level < pinnedLevels_) continue;
            double& e = errors[t.key.Packed()];
            e = std::max(e, t.screenErrorPx * weight);
        }
    };
    add(pose, 1.0);
    double dtS = pose.timeS - lastPose_.timeS;
    if (prefetch && haveView_ && dtS > 0.0) {
        common::CameraPose ahead = pose;
        ahead.eyeM += (pose.eyeM - lastPose_.eyeM) * (options_.prefetchS / dtS);
        ahead.headingRad += (pose.headingRad - lastPose_.headingRad) * (options_.prefetchS / dtS);
        add(ahead, 0.5);
    }
    wanted_.clear();
    for (auto [packed, error] : errors) wanted_.push_back({TileKey::Unpack(packed), error});
    // Most important first; ties by key, so every run plans alike.
    std::sort(wanted_.begin(), wanted_.end(), [](const WantedTile& a, const WantedTile& b) {
        if (a.screenErrorPx != b.screenErrorPx) return a.screenErrorPx > b.screenErrorPx;
        return a.key.Packed() < b.key.Packed();
    });
    for (const WantedTile& t : wanted_) lru_.Touch(t.key, frame);
    cursor_ = 0;
    frame_ = frame;
    lastPose_ = pose;
    haveView_ = true;
}

Expected<std::size_t> TileScheduler::Produce(std::size_t maxBytes, std::vector<std::byte>& out) {
    std::size_t start = out.size();
    while (cursor_ < wanted_.size()) {
        const TileKey& key = wanted_[cursor_].key;
        if (lru_.Contains(key)) {
            ++cursor_;
            continue;
        }
        std::size_t used = out.size() - start;
        if (used > 0 &&
            used + terrain::TileRecordBytes(info_) + terrain::kTileRecordHeaderBytes > maxBytes)
            break;
        if (lru_.Size() >= lru_.Capacity()) {
            auto victim = lru_.EvictBefore(frame_);
            if (!victim) break;  // full of tiles this frame wants
            terrain::AppendEvictRecord(*victim, out);
            ++tilesEvicted_;
        }
        auto tile = source_.Get(key);
        if (!tile) return tile.error();
        terrain::AppendTileRecord(*tile, out);
        lru_.Insert(key, frame_);
        ++tilesSent_;
        ++cursor_;
    }
    return out.size() - start;
}

std::size_t TileScheduler::QueueDepth() const {
    std::size_t depth = 0;
    for (std::size_t k = cursor_; k < wanted_.size(); ++k) depth += !lru_.Contains(wanted_[k].key);
    return depth;
}

}  // namespace bfv::terrain_server
