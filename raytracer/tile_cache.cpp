#include "raytracer/tile_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include "common/check.h"

namespace bfv::raytracer {

namespace {

using terrain::kTileBorder;
using terrain::kTileCells;
using terrain::kTilePostCount;
using terrain::kTilePosts;

static_assert(sizeof(ResidentTile) + 64 <=
                  terrain::kResidentTileBytes -
                      (sizeof(float) + 2 * sizeof(std::uint16_t) + sizeof(std::uint32_t)) *
                          kTilePostCount,
              "kResidentTileBytes must cover a tile's bookkeeping and its allocations' overhead");

constexpr int kDenseLevels = 10;  // levels 0..9 are looked up in arrays (2.8 MB of slots)

// The 16-bit code of `value` (in units of which one is `codesPerUnit` codes), clamped.
// Rounds half away from zero like std::lround, which is a library call: a tile's shade and
// slope are coded per post on arrival and again every frame of a blend. Exact for [0, 65535]:
// the truncation and the fraction x - whole are exact there.
std::uint16_t Code(double value, float codesPerUnit) {
    double x = std::clamp(value * codesPerUnit, 0.0, 65535.0);
    auto whole = static_cast<std::uint16_t>(x);
    return static_cast<std::uint16_t>(whole + (x - whole >= 0.5 ? 1 : 0));
}

// The shade byte of post k of `tile` (ResidentTile::colours' bits 24-31) from its shade code,
// rounded to the nearest of kShadeCodesPerShadeByte's steps.
void PackShadeByte(ResidentTile& tile, int k) {
    constexpr auto kStep = static_cast<std::uint32_t>(kShadeCodesPerShadeByte);
    const std::uint32_t shadeByte = (tile.shadeCodes[k] + kStep / 2) / kStep;
    tile.colours[k] = (tile.colours[k] & kColourBits) | shadeByte << 24;
}

// PackShadeByte of every post of `tile`.
void PackShadeBytes(ResidentTile& tile) {
    for (int k = 0; k < kTilePostCount; ++k) PackShadeByte(tile, k);
}

// Lambert shade of every post of `tile` from its heights (gradients by central differences,
// one-sided on the border). On a tile of the DEM's levels (`dem`) also each post's relief
// position, against the mean of the eight posts two posts away (clamped into the tile), which
// darkens hollows and, unless `draped` (the DEM's imagery gives them), with the slope, the
// height normalised as (h - lowestM) * perReliefM and the land cover, gives the land material
// codes (LandMaterialCoordinate); a fractal tile takes both from coarser tiles instead
// (TakeSourceMaterials, SoftenDetail). The ambient light is the share of the sky a post sees,
// from `skyView` where mapped (TileCache::MapLand), else all of it.
void ShadePosts(ResidentTile& tile, const Lighting& lighting, bool dem, bool draped, float lowestM,
                float perReliefM, const SkyViewField* skyView) {
    double sunX = std::sin(lighting.sunAzimuthRad) * std::cos(lighting.sunElevationRad);
    double sunY = std::cos(lighting.sunAzimuthRad) * std::cos(lighting.sunElevationRad);
    double sunZ = std::sin(lighting.sunElevationRad);
    const double spacingM = tile.spacingM;
    tile.shadeCodes.resize(kTilePostCount);
    tile.materialCodes.resize(kTilePostCount);
    auto h = [&](int i, int j) { return tile.heightsM[j * kTilePosts + i]; };
    auto clamped = [&](int i, int j) {
        return h(std::clamp(i, 0, kTilePosts - 1), std::clamp(j, 0, kTilePosts - 1));
    };
    const bool landRamp = dem && !draped;
    std::vector<float> cover;
    if (landRamp) cover = LandCoverAt(tile.originXM, tile.originYM, spacingM, kTilePosts);
    constexpr int kReach = 2;  // posts to the surroundings of the relief position
    const float perReachM = static_cast<float>(1.0 / (kReach * spacingM));
    for (int j = 0; j < kTilePosts; ++j) {
        int jl = std::max(j - 1, 0), jh = std::min(j + 1, kTilePosts - 1);
        for (int i = 0; i < kTilePosts; ++i) {
            int il = std::max(i - 1, 0), ih = std::min(i + 1, kTilePosts - 1);
            double gx = (h(ih, j) - h(il, j)) / ((ih - il) * spacingM);
            double gy = (h(i, jh) - h(i, jl)) / ((jh - jl) * spacingM);
            double gradient2 = gx * gx + gy * gy;
            double lambert = (-gx * sunX - gy * sunY + sunZ) / std::sqrt(gradient2 + 1);
            double sunShare = std::max(lambert, 0.0);
            float reliefPosition = 0.0f;
            if (dem) {
                float surroundingsM = 0.0f;
                for (int dj = -kReach; dj <= kReach; dj += kReach) {
                    for (int di = -kReach; di <= kReach; di += kReach) {
                        if (di != 0 || dj != 0) surroundingsM += clamped(i + di, j + dj);
                    }
                }
                reliefPosition = (h(i, j) - surroundingsM / 8.0f) * perReachM;
                // Hollows (valleys, gullies) see less of the sky and the sun: their sunlit
                // share shrinks with depth, down to 0.6 (the shade stays >= ambient, which
                // ShadowTile relies on).
                sunShare *= std::clamp(1.0 + 1.5 * reliefPosition, 0.6, 1.0);
            }
            if (landRamp) {
                float coordinate = LandMaterialCoordinate(
                    (h(i, j) - lowestM) * perReliefM, static_cast<float>(std::sqrt(gradient2)),
                    reliefPosition, cover[j * kTilePosts + i]);
                tile.materialCodes[j * kTilePosts + i] = Code(coordinate, kMaterialCodesPerUnit);
            }
            double sky =
                skyView ? skyView->AtM(tile.originXM + i * spacingM, tile.originYM + j * spacingM)
                        : 1.0;
            tile.shadeCodes[j * kTilePosts + i] = Code(
                lighting.ambient * sky + (1.0 - lighting.ambient) * sunShare, kShadeCodesPerUnit);
        }
    }
}

// The land's colour of every post of `tile` (LandColour) from its material codes, and its
// height and slope (central differences, one-sided on the border) under `land`, with the
// ground's detail where its posts are fine enough (GroundDetail, lit by `sun`), and water
// where `rivers` (if mapped) has a stream, by the share of the post's footprint it covers.
void ColourFromMaterials(ResidentTile& tile, const LandModel& land, const Sun& sun,
                         const DrainageField* rivers) {
    tile.colours.resize(kTilePostCount);
    auto h = [&](int i, int j) { return tile.heightsM[j * kTilePosts + i]; };
    // Height zones only where a post reaches the tree line (most tiles lie wholly below it).
    const bool zones = land.snowLineM != kNoSnowLineM &&
                       *std::max_element(tile.heightsM.begin(), tile.heightsM.end()) >
                           land.snowLineM - kTreeLineBelowSnowLineM;
    const double extentM = (kTilePosts - 1) * tile.spacingM;
    const GroundDetail detail(tile.originXM, tile.originYM, tile.originXM + extentM,
                              tile.originYM + extentM, tile.spacingM, sun.towardX, sun.towardY,
                              sun.tanElevation);
    for (int j = 0; j < kTilePosts; ++j) {
        int jl = std::max(j - 1, 0), jh = std::min(j + 1, kTilePosts - 1);
        for (int i = 0; i < kTilePosts; ++i) {
            int il = std::max(i - 1, 0), ih = std::min(i + 1, kTilePosts - 1);
            int k = j * kTilePosts + i;
            HeightZone zone;
            if (zones) {
                double gx = (h(ih, j) - h(il, j)) / ((ih - il) * tile.spacingM);
                double gy = (h(i, jh) - h(i, jl)) / ((jh - jl) * tile.spacingM);
                zone = HeightZoneOf(h(i, j), static_cast<float>(std::sqrt(gx * gx + gy * gy)),
                                    land.snowLineM);
            }
            float coordinate = tile.materialCodes[k] / kMaterialCodesPerUnit;
            common::Rgb colour = LandColour(coordinate, zone);
            if (tile.spacingM <= kParcelSpacingM) {
                colour = detail.Colour(tile.originXM + i * tile.spacingM,
                                       tile.originYM + j * tile.spacingM, coordinate, colour);
            }
            if (rivers) {
                float water =
                    rivers->WaterShareAtM(tile.originXM + i * tile.spacingM,
                                          tile.originYM + j * tile.spacingM, tile.spacingM);
                if (water > 0.0f) colour = common::MixColour(colour, common::kWaterColour, water);
            }
            tile.colours[k] = PackColour(colour);
        }
    }
}

// The sun of `lighting`.
Sun SunOf(const Lighting& lighting) {
    return SunAt(lighting.sunAzimuthRad, lighting.sunElevationRad);
}

// Bilinear interpolation of a per-post field of `tile` at world point (xM, yM), in the field's
// own units (metres, or codes).
template <typename T>
float Interpolate(const ResidentTile& tile, const std::vector<T>& field, double xM, double yM) {
    terrain::PostCell c = terrain::CellAt(tile.originXM, tile.originYM, tile.postsPerM, xM, yM);
    return terrain::BilinearInCell(&field[c.j * kTilePosts + c.i], c.fx, c.fy);
}

// Where each column and each row of `tile`'s posts falls in `source`, a tile that covers it:
// CellAt is separable, so one cell and fraction per column and per row serve every post.
struct PostGrid {
    std::array<terrain::PostCell, kTilePosts> columns, rows;

    PostGrid(const ResidentTile& source, const ResidentTile& tile) {
        for (int n = 0; n < kTilePosts; ++n) {
            double alongM = n * tile.spacingM;
            columns[n] = terrain::CellAt(source.originXM, source.originYM, source.postsPerM,
                                         tile.originXM + alongM, source.originYM);
            rows[n] = terrain::CellAt(source.originXM, source.originYM, source.postsPerM,
                                      source.originXM, tile.originYM + alongM);
        }
    }

    // `field` of the source tile, bilinear at post (i, j) of the tile: Interpolate there.
    template <typename T>
    float At(const std::vector<T>& field, int i, int j) const {
        return terrain::BilinearInCell(&field[rows[j].j * kTilePosts + columns[i].i], columns[i].fx,
                                       rows[j].fy);
    }
};

// The tile of level `level` or coarser over the centre of `tile`; it covers the whole tile,
// border included (a coarser tile's border is at least as wide in metres).
const ResidentTile* CoverOf(const TileCache& cache, const ResidentTile& tile, int level) {
    double half = 0.5 * kTileCells * tile.spacingM;
    return cache.FinestAt(level, tile.originXM + kTileBorder * tile.spacingM + half,
                          tile.originYM + kTileBorder * tile.spacingM + half);
}

}  // namespace

common::Rgb DrapedColour(const terrain::PyramidInfo& info, std::uint8_t code) {
    BFV_CHECK(code < info.landColours.size());  // the pyramid file's reader checks codes
    return info.landColours[code];
}

struct TileCache::Blend {
    std::vector<float> fromHeightsM, toHeightsM, fromShadeCodes, toShadeCodes;
    int frame = 0;
    int frames = 1;
};

TileCache::TileCache(const terrain::PyramidInfo& info, const Lighting& lighting, double waterLevelM,
                     const LandModel& land)
    : info_(info),
      lighting_(lighting),
      land_(land),
      waterLevelM_(waterLevelM),
      // Heights are normalised over the land: from the water level where there is water.
      lowestM_(std::max(info.minHeightM, static_cast<float>(waterLevelM))),
      perReliefM_(1.0f / std::max(info.maxHeightM - lowestM_, 1.0f)),
      dense_(std::min(info.geometry.levelCount, kDenseLevels)) {
    auto sky = common::Sky::Make(lighting.sunAzimuthRad, lighting.sunElevationRad);
    BFV_CHECK(sky.ok());  // the sun's place is checked with the options
    sky_ = std::make_unique<common::Sky>(std::move(*sky));
    auto chroma = [](const common::SkyColour& c) {
        float luma = std::max(0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b, 1e-6f);
        return std::array<float, 3>{c.r / luma, c.g / luma, c.b / luma};
    };
    const std::array<float, 3> sun = chroma(sky_->SunlightColour()),
                               skylight = chroma(sky_->SkylightColour());
    const float ambient = static_cast<float>(lighting.ambient);
    for (int c = 0; c < 3; ++c) {
        float tint = (1.0f - ambient) * sun[c] + ambient * skylight[c];
        lightTint_[c] = std::clamp(1.0f + 0.5f * (tint - 1.0f), 0.3f, 1.7f);
    }
}

TileCache::~TileCache() = default;
TileCache::TileCache(TileCache&&) noexcept = default;

ResidentTile*& TileCache::Slot(const terrain::TileKey& key) {
    std::vector<ResidentTile*>& level = dense_[key.level];
    int n = info_.geometry.TilesPerSide(key.level);
    if (level.empty()) level.assign(static_cast<std::size_t>(n) * n, nullptr);
    return level[static_cast<std::size_t>(key.ty) * n + key.tx];
}

ResidentTile* const* TileCache::SlotIfAny(const terrain::TileKey& key) const {
    const std::vector<ResidentTile*>& level = dense_[key.level];
    if (level.empty()) return nullptr;
    return &level[static_cast<std::size_t>(key.ty) * info_.geometry.TilesPerSide(key.level) +
                  key.tx];
}

void TileCache::Insert(const terrain::TilePosts& posts, bool pinned, int blendFrames) {
    Insert(Shade(posts), pinned, blendFrames);
}

std::unique_ptr<ResidentTile> TileCache::Shade(const terrain::TilePosts& posts) const {
    const terrain::TileKey& key = posts.key;
    BFV_CHECK(key.level >= 0 && key.level < info_.geometry.levelCount);
    BFV_CHECK(posts.codes.size() == static_cast<std::size_t>(kTilePostCount));
    auto tile = std::make_unique<ResidentTile>();
    tile->key = key;
    tile->spacingM = info_.geometry.SpacingM(key.level);
    tile->postsPerM = 1.0 / tile->spacingM;
    tile->originXM = terrain::TileOriginM(key.tx, tile->spacingM);
    tile->originYM = terrain::TileOriginM(key.ty, tile->spacingM);
    tile->heightsM.resize(kTilePostCount);
    for (int k = 0; k < kTilePostCount; ++k)
        tile->heightsM[k] =
            std::max(info_.coding.Decode(posts.codes[k]), static_cast<float>(waterLevelM_));
    tile->draped = !posts.materials.empty();
    ShadePosts(*tile, lighting_, key.level < info_.storedLevels, tile->draped, lowestM_,
               perReliefM_, skyView_.get());
    if (tile->draped) {
        tile->colours.resize(kTilePostCount);
        for (int k = 0; k < kTilePostCount; ++k) {
            tile->colours[k] = PackColour(DrapedColour(info_, posts.materials[k]));
        }
    } else if (key.level < info_.storedLevels) {
        // A tile finer than the source DEM is coloured when it is made resident, from the
        // source's materials (Insert: TakeSourceMaterials), which replace its own.
        ColourFromMaterials(*tile, land_, SunOf(lighting_), rivers_.get());
    }
    if (shadows_) ShadowTile(*tile);
    tile->maxHeightM = *std::max_element(tile->heightsM.begin(), tile->heightsM.end());
    return tile;
}

void TileCache::Insert(std::unique_ptr<ResidentTile> tile, bool pinned, int blendFrames) {
    const terrain::TileKey key = tile->key;
    tile->pinned = pinned;
    blends_.erase(key.Packed());
    if (key.level >= info_.storedLevels) {
        if (!tile->draped) TakeSourceMaterials(*tile);
        SoftenDetail(*tile);
    }
    if (blendFrames > 0 && key.level > 0) {
        auto blend = std::make_unique<Blend>();
        blend->frames = blendFrames;
        blend->toHeightsM = tile->heightsM;
        blend->toShadeCodes.assign(tile->shadeCodes.begin(), tile->shadeCodes.end());
        blend->fromHeightsM.resize(kTilePostCount);
        blend->fromShadeCodes.resize(kTilePostCount);
        const ResidentTile* coarser = CoverOf(*this, *tile, key.level - 1);
        PostGrid grid(*coarser, *tile);
        for (int j = 0; j < kTilePosts; ++j) {
            for (int i = 0; i < kTilePosts; ++i) {
                blend->fromHeightsM[j * kTilePosts + i] = grid.At(coarser->heightsM, i, j);
                blend->fromShadeCodes[j * kTilePosts + i] = grid.At(coarser->shadeCodes, i, j);
            }
        }
        tile->heightsM = blend->fromHeightsM;
        for (int k = 0; k < kTilePostCount; ++k) {
            tile->shadeCodes[k] = Code(blend->fromShadeCodes[k], 1.0f);
        }
        tile->maxHeightM = std::max(
            tile->maxHeightM, *std::max_element(tile->heightsM.begin(), tile->heightsM.end()));
        blends_[key.Packed()] = std::move(blend);
    }
    PackShadeBytes(*tile);
    if (key.level < kDenseLevels) Slot(key) = tile.get();
    tiles_[key.Packed()] = std::move(tile);
}

void TileCache::TakeSourceMaterials(ResidentTile& tile) const {
    const ResidentTile* source = CoverOf(*this, tile, info_.FileLevels() - 1);
    if (source == nullptr) {  // no terrain resident yet: the tile stays field (code 0)
        ColourFromMaterials(tile, land_, SunOf(lighting_), rivers_.get());
        return;
    }
    PostGrid grid(*source, tile);
    if (info_.Textured()) {
        // The imagery's colours, bilinear between the source's posts, a channel at a time.
        tile.colours.assign(kTilePostCount, 0);
        for (int shift = 0; shift < 24; shift += 8) {
            std::vector<float> channel(kTilePostCount);
            for (int k = 0; k < kTilePostCount; ++k) {
                channel[k] = static_cast<float>(source->colours[k] >> shift & 0xFFu);
            }
            for (int j = 0; j < kTilePosts; ++j) {
                for (int i = 0; i < kTilePosts; ++i) {
                    tile.colours[j * kTilePosts + i] |=
                        static_cast<std::uint32_t>(common::ToChannel(grid.At(channel, i, j)))
                        << shift;
                }
            }
        }
        return;
    }
    std::vector<float> detail =
        LandCoverDetailAt(tile.originXM, tile.originYM, tile.spacingM, kTilePosts);
    for (int j = 0; j < kTilePosts; ++j) {
        for (int i = 0; i < kTilePosts; ++i) {
            int k = j * kTilePosts + i;
            tile.materialCodes[k] = Code(
                grid.At(source->materialCodes, i, j) + detail[k] * kMaterialCodesPerUnit, 1.0f);
        }
    }
    ColourFromMaterials(tile, land_, SunOf(lighting_), rivers_.get());
}

void TileCache::SoftenDetail(ResidentTile& tile) const {
    const ResidentTile* structure =
        CoverOf(*this, tile, std::max(tile.key.level - kStructureLevels, 0));
    if (structure == nullptr) return;  // no terrain resident yet: the tile keeps its own shade
    PostGrid grid(*structure, tile);
    for (int j = 0; j < kTilePosts; ++j) {
        for (int i = 0; i < kTilePosts; ++i) {
            int k = j * kTilePosts + i;
            tile.shadeCodes[k] =
                Code(kDetailShadeShare * tile.shadeCodes[k] +
                         (1.0f - kDetailShadeShare) * grid.At(structure->shadeCodes, i, j),
                     1.0f);
        }
    }
}

void TileCache::CastShadows(int level) {
    BFV_CHECK(!shadows_);
    shadowLevel_ = level;
    sun_ = SunOf(lighting_);
    shadows_ = std::make_unique<ShadowField>(
        info_.dataWidthM, info_.dataDepthM, info_.geometry.SpacingM(level), sun_,
        [&](double xM, double yM) { return HeightAtM(level, xM, yM); });
    for (auto& [key, tile] : tiles_) {
        ShadowTile(*tile);
        PackShadeBytes(*tile);
    }
}

Expected<void> TileCache::MapLand(int level) {
    BFV_CHECK(!skyView_ && !shadows_);
    auto heightAtM = [&](double xM, double yM) { return HeightAtM(level, xM, yM); };
    const double spacingM = info_.geometry.SpacingM(level);
    auto skyView = SkyViewField::Build(info_.dataWidthM, info_.dataDepthM, spacingM, heightAtM);
    if (!skyView) return skyView.error();
    DrainageOptions drainage;
    drainage.outletBelowM = waterLevelM_;
    auto rivers =
        DrainageField::Build(info_.dataWidthM, info_.dataDepthM, spacingM, heightAtM, drainage);
    if (!rivers) return rivers.error();
    skyView_ = std::make_unique<SkyViewField>(std::move(*skyView));
    rivers_ = std::make_unique<DrainageField>(std::move(*rivers));
    for (auto& [key, tile] : tiles_) {
        ShadePosts(*tile, lighting_, tile->key.level < info_.storedLevels, tile->draped, lowestM_,
                   perReliefM_, skyView_.get());
        if (!tile->draped) ColourFromMaterials(*tile, land_, SunOf(lighting_), rivers_.get());
        PackShadeBytes(*tile);
    }
    return {};
}

void TileCache::ShadowTile(ResidentTile& tile) const {
    const Sun& sun = sun_;
    // Finer tiles than the field's lie up to their detail below its coarser surface: the field's
    // shadow must clear them by a margin, or that surface would shadow their own slopes.
    float marginM = tile.key.level > shadowLevel_
                        ? static_cast<float>(0.25 * shadows_->SpacingM() * sun.tanElevation)
                        : 0.0f;
    std::vector<float> shadowM = ShadowHeightsM(
        tile.heightsM, kTilePosts, kTilePosts, tile.spacingM, sun, [&](int i, int j) {
            return shadows_->AtM(tile.originXM + i * tile.spacingM,
                                 tile.originYM + j * tile.spacingM) -
                   marginM;
        });
    float softM = static_cast<float>(tile.spacingM * sun.tanElevation);
    for (int k = 0; k < kTilePostCount; ++k) {
        float lit = LitShare(tile.heightsM[k], shadowM[k], softM);
        if (lit < 1.0f) {
            // The shade's ambient part (ShadePosts): the sky the post sees.
            float sky = skyView_ ? skyView_->AtM(tile.originXM + (k % kTilePosts) * tile.spacingM,
                                                 tile.originYM + (k / kTilePosts) * tile.spacingM)
                                 : 1.0f;
            float ambient = static_cast<float>(lighting_.ambient) * sky;
            float shade = tile.shadeCodes[k] / kShadeCodesPerUnit;
            tile.shadeCodes[k] = Code(ambient + (shade - ambient) * lit, kShadeCodesPerUnit);
        }
    }
}

void TileCache::Evict(const terrain::TileKey& key) {
    auto it = tiles_.find(key.Packed());
    if (it == tiles_.end() || it->second->pinned) return;
    if (key.level < kDenseLevels) Slot(key) = nullptr;
    blends_.erase(key.Packed());
    tiles_.erase(it);
}

void TileCache::AdvanceFrame() {
    for (auto it = blends_.begin(); it != blends_.end();) {
        Blend& blend = *it->second;
        ResidentTile& tile = *tiles_.at(it->first);
        ++blend.frame;
        float w =
            std::min(1.0f, static_cast<float>(blend.frame) / static_cast<float>(blend.frames));
        for (int k = 0; k < kTilePostCount; ++k) {
            tile.heightsM[k] =
                blend.fromHeightsM[k] + w * (blend.toHeightsM[k] - blend.fromHeightsM[k]);
            tile.shadeCodes[k] = Code(
                blend.fromShadeCodes[k] + w * (blend.toShadeCodes[k] - blend.fromShadeCodes[k]),
                1.0f);
            PackShadeByte(tile, k);
        }
        it = blend.frame >= blend.frames ? blends_.erase(it) : std::next(it);
    }
}

const ResidentTile* TileCache::Find(const terrain::TileKey& key) const {
    if (key.level < kDenseLevels) {
        ResidentTile* const* slot = SlotIfAny(key);
        return slot ? *slot : nullptr;
    }
    auto it = tiles_.find(key.Packed());
    return it == tiles_.end() ? nullptr : it->second.get();
}

const ResidentTile* TileCache::FinestAt(int level, double xM, double yM) const {
    terrain::TileKey key =
        info_.geometry.TileAt(std::min(level, info_.geometry.levelCount - 1), xM, yM);
    for (;;) {
        if (const ResidentTile* tile = Find(key)) return tile;
        if (key.level == 0) return nullptr;
        key = key.Parent();
    }
}

double TileCache::LevelGroundShade() const {
    return lighting_.ambient +
           (1.0 - lighting_.ambient) * std::max(std::sin(lighting_.sunElevationRad), 0.0);
}

double TileCache::HeightAtM(int level, double xM, double yM) const {
    const ResidentTile* tile = FinestAt(level, xM, yM);
    BFV_CHECK(tile != nullptr);
    return Interpolate(*tile, tile->heightsM, xM, yM);
}

TileCache PinnedCache(const terrain::TerrainStartup& startup, double waterLevelM,
                      const Lighting& lighting, bool shadows, const LandModel& land) {
    TileCache cache(startup.info, lighting, waterLevelM, land);
    for (const terrain::TilePosts& tile : startup.pinned) cache.Insert(tile, true, 0);
    const int finestPinned = terrain::PinnedLevels(startup.info) - 1;
    // Decoded heights are always finite: the fields cannot fail on them.
    BFV_CHECK(cache.MapLand(finestPinned).ok());
    if (shadows) cache.CastShadows(finestPinned);
    return cache;
}

namespace {

// A tile that arrived in the stream names only colours of the dataset's palette: a corrupt record
// may not (the pyramid file's reader checks its own tiles).
Expected<void> CheckColours(const TileCache& cache, const terrain::TilePosts& tile) {
    const std::size_t paletteColours = cache.Info().landColours.size();
    for (std::uint8_t code : tile.materials) {
        if (code >= paletteColours) {
            return Error{fmt::format(
                "tile stream: tile {}/{}/{}: colour index {} beyond the palette's {} colours",
                tile.key.level, tile.key.tx, tile.key.ty, code, paletteColours)};
        }
    }
    return {};
}

}  // namespace

Expected<void> ApplyTileStream(terrain::TileStreamReader& reader, TileCache& cache, int blendFrames,
                               StreamProgress& progress) {
    terrain::TileRecord record;
    for (;;) {
        auto next = reader.Next(cache.Info().geometry, record);
        if (!next) return next.error();
        if (!*next) return {};
        switch (record.kind) {
            case terrain::TileRecord::kTile:
                if (auto ok = CheckColours(cache, record.tile); !ok) return ok;
                cache.Insert(record.tile, false, blendFrames);
                break;
            case terrain::TileRecord::kEvict:
                cache.Evict(record.tile.key);
                break;
            case terrain::TileRecord::kFrameReady:
                progress.lastFrameReady = record.frame;
                return {};
            case terrain::TileRecord::kEndOfStream:
                progress.endOfStream = true;
                return {};
        }
    }
}

Expected<void> ApplyLocalStream(std::span<const std::byte> bytes, TileCache& cache, int blendFrames,
                                int threads) {
    terrain::TileStreamReader reader;
    reader.Feed(bytes);
    std::vector<terrain::TileRecord> records;
    for (terrain::TileRecord record;;) {
        auto next = reader.Next(cache.Info().geometry, record);
        if (!next) return next.error();
        if (!*next) break;
        if (record.kind == terrain::TileRecord::kTile) {
            if (auto ok = CheckColours(cache, record.tile); !ok) return ok;
        }
        records.push_back(std::move(record));
    }
    // Decoding and shading need no other tile: spread them over the threads, then make the
    // tiles resident (and set their blends up) in stream order.
    std::vector<std::unique_ptr<ResidentTile>> shaded(records.size());
    auto shade = [&](int t) {
        for (std::size_t k = t; k < records.size(); k += threads) {
            if (records[k].kind == terrain::TileRecord::kTile)
                shaded[k] = cache.Shade(records[k].tile);
        }
    };
    {
        std::vector<std::jthread> workers;
        for (int t = 1; t < threads; ++t) workers.emplace_back(shade, t);
        shade(0);
    }
    for (std::size_t k = 0; k < records.size(); ++k) {
        if (records[k].kind == terrain::TileRecord::kTile) {
            cache.Insert(std::move(shaded[k]), false, blendFrames);
        } else if (records[k].kind == terrain::TileRecord::kEvict) {
            cache.Evict(records[k].tile.key);
        }
    }
    cache.AdvanceFrame();
    return {};
}

}  // namespace bfv::raytracer
