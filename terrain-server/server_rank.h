#pragma once

#include "common/mpi_group.h"
#include "common/render_options.h"

namespace bfv::terrain_server {

/// The terrain server rank's life in `bfv render` (calculation 0 of the source paper): opens
/// and checks the pyramid file (memory-mapped), broadcasts the start-up terrain (header and
/// pinned coarse levels) to every rank in messages of options.terrain.terrainMessageBytes, then
/// streams tiles to the ray tracers on its own clock: it follows the display's frame commands (the
/// eye's pose), ranks the tiles that view and the view ahead want by screen-space error, and
/// sends them without blocking within options.terrain.terrainBudgetBytesPerS, in messages of
/// terrainMessageBytes, ordering evictions to keep each tracer within options.terrain.cacheMiB.
/// With options.terrain.terrainSync it sends, for each frame, every tile that frame wants and then
/// a frame-ready record. A missing or corrupt file is reported here, once, and ends every rank with
/// exit code 1; a tile found corrupt mid-run ends the job with a message naming it. Returns the
/// process exit code.
int RunTerrainServer(const common::Group& group, const common::RenderOptions& options);

}  // namespace bfv::terrain_server
