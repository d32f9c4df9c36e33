#include "terrain/terrain_startup.h"

#include <fmt/format.h>

#include "common/check.h"
#include "terrain/tile_stream.h"

namespace bfv::terrain {

namespace {

int PinnedTileCount(const PyramidInfo& info) {
    return static_cast<int>(TilesBelowLevel(PinnedLevels(info)));
}

}  // namespace

Expected<TerrainStartup> ReadTerrainStartup(const PyramidFile& file) {
    TerrainStartup startup{file.Info(), {}};
    for (int level = 0; level < PinnedLevels(file.Info()); ++level) {
        int n = file.Info().geometry.TilesPerSide(level);
        for (int ty = 0; ty < n; ++ty) {
            for (int tx = 0; tx < n; ++tx) {
                auto tile = file.ReadTile({level, tx, ty});
                if (!tile) return tile.error();
                startup.pinned.push_back(std::move(*tile));
            }
        }
    }
    return startup;
}

void Exaggerate(TerrainStartup& startup, double factor) {
    BFV_CHECK(factor > 0.0);
    PyramidInfo& info = startup.info;
    info.coding.scaleM *= factor;
    info.coding.offsetM *= factor;
    info.minHeightM = static_cast<float>(info.minHeightM * factor);
    info.maxHeightM = static_cast<float>(info.maxHeightM * factor);
}

std::vector<std::byte> EncodeTerrainStartup(const TerrainStartup& startup) {
    std::vector<std::byte> out = EncodePyramidHeader(startup.info);
    for (const TilePosts& tile : startup.pinned) AppendTileRecord(tile, out);
    return out;
}

Expected<TerrainStartup> DecodeTerrainStartup(std::span<const std::byte> bytes) {
    auto header = DecodePyramidHeader(bytes);
    if (!header) return Error{"terrain start-up data: " + header.error().message};
    TerrainStartup startup{std::move(header->info), {}};
    TileStreamReader reader;
    reader.Feed(bytes.subspan(header->headerBytes));
    TileRecord record;
    for (;;) {
        auto next = reader.Next(startup.info.geometry, record);
        if (!next) return next.error();
        if (!*next) break;
        if (record.kind != TileRecord::kTile)
            return Error{"terrain start-up data: not a tile record"};
        startup.pinned.push_back(std::move(record.tile));
    }
    if (static_cast<int>(startup.pinned.size()) != PinnedTileCount(startup.info)) {
        return Error{fmt::format("terrain start-up data: {} pinned tiles, expected {}",
                                 startup.pinned.size(), PinnedTileCount(startup.info))};
    }
    return startup;
}

}  // namespace bfv::terrain
