#include "terrain-server/server_rank.h"

#include <cstdio>

#include "common/file_io.h"
#include "common/rank_protocol.h"
#include "common/terrain_broadcast.h"
#include "common/terrain_file.h"

namespace bfv::terrain_server {

namespace {

// The file's bytes once it is known to decode; otherwise the error naming what is wrong.
Expected<std::vector<std::byte>> LoadCheckedFile(const std::string& path,
                                                 common::Recorder& recorder) {
    common::ScopedActivity timing(recorder, common::Activity::TerrainRead);
    auto bytes = common::ReadFileBytes(path);
    if (!bytes) return Error{"terrain file: " + bytes.error().message};
    if (auto terrain = common::DecodeTerrain(*bytes, path); !terrain) return terrain.error();
    return bytes;
}

}  // namespace

int RunTerrainServer(const common::Group& group, const common::RenderOptions& options) {
    common::Recorder recorder;
    auto file = LoadCheckedFile(options.terrainPath, recorder);
    if (!common::BroadcastTerrainFile(group, file, options.terrainMessageBytes, recorder)) {
        std::fprintf(stderr, "bfv render: %s\n", file.error().message.c_str());
        return 1;
    }
    double startS = common::WallClockS();
    common::FrameCommand command;
    // The whole dataset went out at start-up: there is nothing to stream per frame yet, so a
    // late wake-up costs nothing and the server's polling stays off the tracers' cores.
    while ((command = common::ReceiveFrameCommand(group, recorder, common::kIdlePollSleepUs))
               .kind == common::FrameCommand::kRender) {
    }
    if (command.kind == common::FrameCommand::kAbort) return 1;
    common::GatherSummary(group, recorder, common::WallClockS() - startS);
    return 0;
}

}  // namespace bfv::terrain_server
