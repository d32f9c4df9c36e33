#pragma once

#include "common/mpi_group.h"
#include "common/render_options.h"

namespace bfv::terrain_server {

/// The terrain server rank's life in `bfv render` (calculation 0 of the source paper): reads
/// and checks the terrain file, broadcasts it to every rank in messages of
/// options.terrainMessageBytes, then follows the display's frame commands until the run ends.
/// A missing or corrupt file is reported here, once, and ends every rank with exit code 1.
/// Returns the process exit code.
int RunTerrainServer(const common::Group& group, const common::RenderOptions& options);

}  // namespace bfv::terrain_server
