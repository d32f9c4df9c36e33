#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/sky.h"
#include "raytracer/drainage.h"
#include "raytracer/materials.h"
#include "raytracer/relief.h"
#include "raytracer/shadows.h"
#include "terrain/terrain_startup.h"
#include "terrain/tile_pyramid.h"
#include "terrain/tile_stream.h"
#include "terrain/water.h"

namespace bfv::raytracer {

/// Sun and ambient light for the per-post Lambert shade.
struct Lighting {
    double sunAzimuthRad = 5.4978;    // = 315 deg // from north, clockwise (north-west sun)
    double sunElevationRad = 0.7854;  // = 45 deg
    double ambient = 0.22;            // share of light that is not from the sun
};

/// What the land's colours follow besides the material ramp (LandColour).
struct LandModel {
    double snowLineM = kNoSnowLineM;  // height of the snow line (HeightZoneOf), metres
};

/// Levels between a fractal tile and the tile whose shade gives its relief
/// (TileCache::SoftenDetail).
inline constexpr int kStructureLevels = 2;
/// Share of a fractal tile's shade that is its own (TileCache::SoftenDetail).
inline constexpr float kDetailShadeShare = 0.35f;

/// Fixed-point codes of the per-post shade: 16 bits instead of a float, which keeps a resident
/// tile 19 KiB smaller than floats would (with the material codes, see kMaterialCodesPerUnit). The
/// step (1.5e-5 of shade) is far below what an 8-bit intensity shows.
inline constexpr float kShadeCodesPerUnit = 65535.0f;  // shade 0..1

/// Shade codes per step of the shade byte ResidentTile::colours carries (bits 24-31): the byte
/// is the shade code rounded to 8 bits, shade = byte x kShadeCodesPerShadeByte / kShadeCodesPerUnit
/// (255 x 257 = 65535: byte 255 is shade 1).
inline constexpr float kShadeCodesPerShadeByte = 257.0f;

/// The colour's bits of a post's packed word (ResidentTile::colours), without its shade byte.
inline constexpr std::uint32_t kColourBits = 0xFFFFFFu;

/// `colour` packed as ResidentTile::colours holds it: red in bits 0-7, green 8-15, blue 16-23
/// (the shade byte 24-31 left 0).
inline std::uint32_t PackColour(common::Rgb colour) {
    return colour.r | static_cast<std::uint32_t>(colour.g) << 8 |
           static_cast<std::uint32_t>(colour.b) << 16;
}

/// The colour of a draped dataset's post whose texture code (terrain::TilePosts::materials) is
/// `code`: the imagery's colour there, entry `code` of its palette (`info.landColours`; the
/// reader refuses a code beyond it).
common::Rgb DrapedColour(const terrain::PyramidInfo& info, std::uint8_t code);

/// A tile as the ray caster reads it: heights in metres, and per post the Lambert shade (0..1)
/// and the land material coordinate (LandMaterialCoordinate, or the draped imagery's place on
/// its ramp, terrain::TilePosts::materials; on tiles finer than the source DEM, the DEM's
/// there, see TileCache::Insert) as codes (value x k*CodesPerUnit), and the colour the caster
/// shades, kTilePosts x kTilePosts each, laid out like terrain::TilePosts. While a tile blends in,
/// heights and shade move from what the coarser level showed there to the tile's own over a few
/// frames.
struct ResidentTile {
    terrain::TileKey key;
    std::vector<float> heightsM;
    std::vector<std::uint16_t> shadeCodes;
    std::vector<std::uint16_t> materialCodes;
    /// Per post the colour the caster shades (PackColour): the land ramp's at the material
    /// coordinate, or the draped imagery's; and in bits 24-31 the post's shade code rounded to
    /// 8 bits (kShadeCodesPerShadeByte), kept in step with shadeCodes by the cache, so that the
    /// secant march reads a hit's four corner posts with four gathers.
    std::vector<std::uint32_t> colours;
    float maxHeightM = 0.0f;  // highest post (of both ends of a blend), metres
    double originXM = 0.0;    // world position of local post (0, 0), metres
    double originYM = 0.0;
    double spacingM = 0.0;   // post spacing, metres
    double postsPerM = 0.0;  // 1 / spacingM
    bool pinned = false;     // part of the always-resident coarse levels
    bool draped = false;     // its materials are draped imagery's (terrain::TilePosts::materials)

    /// Height of local post (i, j), metres.
    float HeightM(int i, int j) const { return heightsM[j * terrain::kTilePosts + i]; }
};

/// A ray tracer's terrain: the pyramid's tiles that have arrived, found in O(1) by key.
/// The coarse levels are pinned (the low-resolution fallback, never evicted); the terrain server
/// decides which finer tiles come and go (it runs the LRU, see terrain_server::TileLru), so every
/// tracer holds the same tiles. Not thread-safe for writes: change it between frames, and read it
/// from any number of threads during one.
class TileCache {
  public:
    /// An empty cache for the pyramid `info` describes.
    /// Tiles' posts below `waterLevelM` (terrain::WaterLevelM) are raised to it: a flat water
    /// surface, which the caster draws as water (WaterLevelM()).
    /// Land posts take their colours from the ramp and `land`'s height zones (LandColour).
    explicit TileCache(const terrain::PyramidInfo& info, const Lighting& lighting = {},
                       double waterLevelM = terrain::kNoWaterM, const LandModel& land = {});
    ~TileCache();
    TileCache(TileCache&&) noexcept;
    TileCache(const TileCache&) = delete;
    TileCache& operator=(const TileCache&) = delete;

    const terrain::PyramidInfo& Info() const { return info_; }
    /// The water level the tiles are raised to, metres (terrain::kNoWaterM: none).
    double WaterLevelM() const { return waterLevelM_; }
    /// The shade of level ground in this cache's light (0..1): ambient + (1 - ambient) times the
    /// sine of the sun's elevation (at least 0), as Shade gives a level post without relief.
    double LevelGroundShade() const;
    /// The daylight sky of this cache's sun (common::Sky: its colours, and the haze's).
    const common::Sky& DaySky() const { return *sky_; }
    /// The colour of this cache's light on the terrain, a multiplier per channel (red, green,
    /// blue), 1 under a sun 45 degrees up: the chromaticity of the sunlight (its share of the
    /// shade, 1 - ambient) and of the skylight (ambient), half strength, so that a low sun lights
    /// the ground warmer without the Lambert shade's dimming counted twice.
    const std::array<float, 3>& LightTint() const { return lightTint_; }

    /// Decodes and shades `tile` and makes it resident (replacing a resident tile of that key).
    /// A tile finer than the source DEM takes its material from the finest stored level
    /// resident (TakeSourceMaterials).
    /// With `blendFrames` > 0 it blends in from the finest coarser tile present over that many
    /// frames (see AdvanceFrame); 0 shows it at once.
    void Insert(const terrain::TilePosts& tile, bool pinned, int blendFrames);
    /// The part of Insert that needs no other tile: `tile` decoded and shaded (and shadowed,
    /// after CastShadows), and coloured unless it is finer than the source DEM and not draped
    /// (Insert colours those from the source's materials). Safe to call from several threads at
    /// once (it only reads the cache's settings and shadow field).
    std::unique_ptr<ResidentTile> Shade(const terrain::TilePosts& tile) const;
    /// Insert of a tile Shade made.
    void Insert(std::unique_ptr<ResidentTile> tile, bool pinned, int blendFrames);
    /// Drops the tile `key` if it is resident and not pinned.
    void Evict(const terrain::TileKey& key);
    /// Moves every blending tile one frame further.
    void AdvanceFrame();
    /// Casts the terrain's shadows from now on: builds the shadow field of `level` (resident
    /// everywhere: a pinned level) and darkens the sunlit part of every resident tile's shade
    /// where terrain shadows it; tiles shaded later are shadowed as they arrive (Shade). A
    /// tile's shadows are its own posts' (a sweep toward the sun over the tile) and, arriving at
    /// its sun-side edges, the field's: so shadows reach across tiles and from far away. Call
    /// once, before any other thread shades tiles.
    void CastShadows(int level);
    /// Maps the land from the terrain's own heights from now on: builds the sky-view factor
    /// (SkyViewField) and the drainage (DrainageField, the sea at the water level draining it)
    /// of `level` (resident everywhere: a pinned level), then shades and colours every resident
    /// tile again: a post's ambient light is the sky it sees, and a post on a stream is water
    /// by the share of its footprint the channel covers (not on draped imagery, which shows its
    /// own rivers). Call once, before CastShadows and before any other thread shades tiles.
    /// Errors: the fields' (terrain with a non-finite height).
    Expected<void> MapLand(int level);

    /// The resident tile `key`, or nullptr.
    const ResidentTile* Find(const terrain::TileKey& key) const;
    /// The finest resident tile at `level` or coarser that contains world point (xM, yM)
    /// (clamped into the pyramid). Never null once level 0 is resident.
    const ResidentTile* FinestAt(int level, double xM, double yM) const;
    /// Bilinear height at (xM, yM) on the finest resident tile at `level` or coarser, metres.
    double HeightAtM(int level, double xM, double yM) const;

    int TileCount() const { return static_cast<int>(tiles_.size()); }
    int BlendingCount() const { return static_cast<int>(blends_.size()); }
    /// Tiles resident, pinned or not, times kResidentTileBytes.
    std::size_t ResidentBytes() const { return tiles_.size() * terrain::kResidentTileBytes; }

  private:
    struct Blend;
    /// A tile finer than the source DEM (fractal detail) that brought no draped imagery: its
    /// material codes become those of the finest level the file holds (the finest stored
    /// level, or draped one: PyramidInfo::FileLevels) interpolated at its posts, plus the land
    /// cover's finer patches (LandCoverDetail), so that the materials follow the DEM's valleys,
    /// ridges and steep ground rather than speckling wherever the detail happens to be steep;
    /// its colours follow. On a DEM draped with imagery, whose colours are the truth, it takes
    /// the colours of that level interpolated at its posts instead. Without any coarser tile
    /// resident the tile stays field (material 0).
    void TakeSourceMaterials(ResidentTile& tile) const;
    /// A tile finer than the source DEM: its shade becomes kDetailShadeShare of its own and the
    /// rest the shade of the tile kStructureLevels coarser (at most level 0; or the finest
    /// coarser resident)
    /// interpolated at its posts. The fractal detail's slopes grow toward its finest posts, so
    /// its own shade alone is noise from post to post, about a pixel on screen; this keeps the
    /// relief a few pixels across (and the coarser levels' shadows and hollows) and softens
    /// the post-to-post noise. Without any coarser tile resident the tile keeps its own shade.
    void SoftenDetail(ResidentTile& tile) const;
    /// Darkens the sun's part of `tile`'s shade where terrain shadows it (see CastShadows).
    void ShadowTile(ResidentTile& tile) const;
    ResidentTile*& Slot(const terrain::TileKey& key);
    ResidentTile* const* SlotIfAny(const terrain::TileKey& key) const;

    terrain::PyramidInfo info_;
    Lighting lighting_;
    std::unique_ptr<common::Sky> sky_;
    std::array<float, 3> lightTint_{1.0f, 1.0f, 1.0f};
    LandModel land_;
    double waterLevelM_;
    float lowestM_;     // the lowest land: normalised height 0 (LandMaterialCoordinate)
    float perReliefM_;  // 1 / (highest post - lowestM_)
    std::unordered_map<std::uint64_t, std::unique_ptr<ResidentTile>> tiles_;
    // Per level up to kDenseLevels: 4^level slots, for O(1) lookup in the caster's loop.
    std::vector<std::vector<ResidentTile*>> dense_;
    std::unordered_map<std::uint64_t, std::unique_ptr<Blend>> blends_;
    std::unique_ptr<ShadowField> shadows_;   // null until CastShadows
    std::unique_ptr<SkyViewField> skyView_;  // null until MapLand
    std::unique_ptr<DrainageField> rivers_;  // null until MapLand
    int shadowLevel_ = 0;                    // the field's level
    Sun sun_;                                // the sun's direction, set by CastShadows
};

/// A cache holding the start-up terrain's pinned tiles, lit by `lighting`, casting shadows from
/// the finest of them unless `shadows` is false (TileCache::CastShadows), its land mapped from
/// the finest of them too (TileCache::MapLand: relief shading and rivers): the ray tracer's terrain
/// before the stream's first tile (the tracer rank, --sequential and the benchmarks start from it).
/// Its land posts are coloured under `land`.
TileCache PinnedCache(const terrain::TerrainStartup& startup,
                      double waterLevelM = terrain::kNoWaterM, const Lighting& lighting = {},
                      bool shadows = true, const LandModel& land = {});

/// What applying the tile stream got to.
struct StreamProgress {
    long long lastFrameReady = -1;  // the last frame-ready record's frame, or -1
    bool endOfStream = false;       // the server sent its last record
};

/// Applies every complete record `reader` holds to `cache`: tiles arrive (blending in over
/// `blendFrames` frames), evictions go; frame-ready and end-of-stream records are reported in
/// `progress`. Stops after an end-of-stream or frame-ready record so the caller can act on it.
/// Errors: a corrupt stream (see TileStreamReader::Next), or a tile naming a colour beyond the
/// dataset's palette.
Expected<void> ApplyTileStream(terrain::TileStreamReader& reader, TileCache& cache, int blendFrames,
                               StreamProgress& progress);

/// Applies `bytes`, whole tile-stream records from an in-process terrain server
/// (terrain_server::LocalTileServer, which sends no frame-ready or end records), to `cache`:
/// tiles are decoded and shaded on `threads` threads, then made resident in stream order,
/// blending in over `blendFrames` frames; evictions go; then every blend moves one frame on.
/// Errors: a corrupt stream (nothing is applied then).
Expected<void> ApplyLocalStream(std::span<const std::byte> bytes, TileCache& cache, int blendFrames,
                                int threads = 1);

}  // namespace bfv::raytracer
