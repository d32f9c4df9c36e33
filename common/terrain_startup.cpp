#include "common/terrain_startup.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "common/tile_stream.h"

namespace bfv::common {

nlohmann::json PyramidInfoJson(const PyramidInfo& info) {
    return {{"name", info.name},
            {"geo", {info.geo.lonMinDeg, info.geo.lonMaxDeg, info.geo.latMinDeg, info.geo.latMaxDeg}},
            {"dataWidthM", info.dataWidthM},
            {"dataDepthM", info.dataDepthM},
            {"sourceSpacingM", info.sourceSpacingM},
            {"rootSizeM", info.geometry.rootSizeM},
            {"levelCount", info.geometry.levelCount},
            {"storedLevels", info.storedLevels},
            {"heightScaleM", info.coding.scaleM},
            {"heightOffsetM", info.coding.offsetM},
            {"roughnessSigmaM", info.roughness.sigmaM},
            {"roughnessReferenceSpacingM", info.roughness.referenceSpacingM},
            {"roughnessHurst", info.roughness.hurst},
            {"roughnessSeed", info.roughness.seed},
            {"minHeightM", info.minHeightM},
            {"maxHeightM", info.maxHeightM}};
}

namespace {

PyramidInfo PyramidInfoFromJson(const nlohmann::json& j) {
    PyramidInfo info;
    info.name = j.at("name").get<std::string>();
    auto geo = j.at("geo").get<std::vector<double>>();
    if (geo.size() != 4) throw std::runtime_error("geo needs 4 numbers");
    info.geo = {geo[0], geo[1], geo[2], geo[3]};
    info.dataWidthM = j.at("dataWidthM").get<double>();
    info.dataDepthM = j.at("dataDepthM").get<double>();
    info.sourceSpacingM = j.at("sourceSpacingM").get<double>();
    info.geometry = {j.at("rootSizeM").get<double>(), j.at("levelCount").get<int>()};
    info.storedLevels = j.at("storedLevels").get<int>();
    info.coding = {j.at("heightScaleM").get<double>(), j.at("heightOffsetM").get<double>()};
    info.roughness = {j.at("roughnessSigmaM").get<double>(),
                      j.at("roughnessReferenceSpacingM").get<double>(),
                      j.at("roughnessHurst").get<double>(), j.at("roughnessSeed").get<std::uint64_t>()};
    info.minHeightM = j.at("minHeightM").get<float>();
    info.maxHeightM = j.at("maxHeightM").get<float>();
    return info;
}

int PinnedTileCount(const PyramidInfo& info) {
    int pinned = PinnedLevels(info);
    return static_cast<int>(((1LL << (2 * pinned)) - 1) / 3);
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

std::vector<std::byte> EncodeTerrainStartup(const TerrainStartup& startup) {
    std::string json = PyramidInfoJson(startup.info).dump();
    auto length = static_cast<std::uint32_t>(json.size());
    std::vector<std::byte> out(4 + json.size());
    std::memcpy(out.data(), &length, 4);
    std::memcpy(out.data() + 4, json.data(), json.size());
    for (const TilePosts& tile : startup.pinned) AppendTileRecord(tile, out);
    return out;
}

Expected<TerrainStartup> DecodeTerrainStartup(std::span<const std::byte> bytes) {
    std::uint32_t length = 0;
    if (bytes.size() < 4) return Error{"terrain start-up data: truncated"};
    std::memcpy(&length, bytes.data(), 4);
    if (bytes.size() - 4 < length) return Error{"terrain start-up data: truncated header"};
    TerrainStartup startup;
    try {
        startup.info = PyramidInfoFromJson(nlohmann::json::parse(
            std::string(reinterpret_cast<const char*>(bytes.data() + 4), length)));
    } catch (const std::exception& e) {
        return Error{fmt::format("terrain start-up data: bad header: {}", e.what())};
    }
    if (startup.info.geometry.levelCount < 1 || startup.info.geometry.levelCount > kMaxLevels ||
        startup.info.storedLevels < 1 || startup.info.storedLevels > startup.info.geometry.levelCount) {
        return Error{"terrain start-up data: bad level counts"};
    }
    TileStreamReader reader;
    reader.Feed(bytes.subspan(4 + length));
    TileRecord record;
    for (;;) {
        auto next = reader.Next(startup.info.geometry, record);
        if (!next) return next.error();
        if (!*next) break;
        if (record.kind != TileRecord::kTile) return Error{"terrain start-up data: not a tile record"};
        startup.pinned.push_back(std::move(record.tile));
    }
    if (static_cast<int>(startup.pinned.size()) != PinnedTileCount(startup.info)) {
        return Error{fmt::format("terrain start-up data: {} pinned tiles, expected {}",
                                 startup.pinned.size(), PinnedTileCount(startup.info))};
    }
    return startup;
}

}  // namespace bfv::common
