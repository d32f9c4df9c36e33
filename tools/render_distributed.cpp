#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/interrupt.h"
#include "common/mpi_group.h"
#include "display/display_rank.h"
#include "raytracer/tracer_rank.h"
#include "terrain-server/server_rank.h"
#include "tools/render.h"

namespace bfv::tools {

namespace {

int RunRole(const common::Group& group, const common::RenderOptions& options) {
    switch (group.role()) {
        case common::Role::TerrainServer:
            return terrain_server::RunTerrainServer(group, options);
        case common::Role::RayTracer:
            return raytracer::RunRayTracer(group, options);
        case common::Role::Display:
            return display::RunDisplay(group, options);
    }
    return 1;
}

}  // namespace

bool IsLeadProcess() {
    for (const char* name : {"PMI_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}) {
        const char* value = std::getenv(name);
        if (value) return std::string(value) == "0";
    }
    return true;
}

int RunDistributed(const common::RenderOptions& options) {
    common::MpiSession mpi;
    const common::Group& group = mpi.World();
    auto ok = common::ValidateRenderOptions(options, group.size);
    if (ok && options.receiveThreads > 1) {
        ok = mpi.RequireThreadLevel(MPI_THREAD_MULTIPLE, "for --receive-threads > 1");
    }
    if (!ok) {
        if (group.rank == group.serverRank())
            std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
        return 1;
    }
    common::InstallInterruptHandlers();
    return RunRole(group, options);
}

}  // namespace bfv::tools
