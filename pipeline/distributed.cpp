#include "pipeline/distributed.h"

#include <mpi.h>

#include <cstdio>
#include <optional>

#include "common/interrupt.h"
#include "common/mpi_group.h"
#include "common/peer_loss.h"
#include "display/display_rank.h"
#include "pipeline/rank_keeper.h"
#include "predict/predict_report.h"
#include "raytracer/tracer_rank.h"
#include "terrain-server/server_rank.h"

namespace bfv::pipeline {

namespace {

int RunRole(const common::Group& group, const common::RenderOptions& options,
            const std::optional<common::RunPrediction>& prediction) {
    switch (group.role()) {
        case common::Role::TerrainServer:
            return terrain_server::RunTerrainServer(group, options);
        case common::Role::RayTracer:
            return raytracer::RunRayTracer(group, options);
        case common::Role::Display:
            return display::RunDisplay(group, options, prediction);
    }
    return 1;
}

// With --machine: the predictor's frame rate for this run (every rank computes it, so that a
// bad file stops every rank before the first frame).
Expected<std::optional<common::RunPrediction>> PredictThisRun(const common::RenderOptions& options,
                                                              int nRanks) {
    if (options.prediction.machinePath.empty()) return std::optional<common::RunPrediction>();
    auto request =
        predict::LoadPredictRequest(options.prediction.profilePath, options.prediction.machinePath);
    if (!request) return request.error();
    auto prediction = predict::PredictRender(*request, options, nRanks);
    if (!prediction) return prediction.error();
    prediction->profilePath = options.prediction.profilePath;
    return std::optional<common::RunPrediction>(*prediction);
}

// True on every rank when the display rank, which writes the run's files (report, checksums,
// PNGs, --record, --trace) on its host, can make them (common::ValidateOutputFiles); else the
// display says why and every rank is told, before the first frame: a collective, so every rank
// must call it.
bool DisplayCanWriteOutputs(const common::Group& group, const common::RenderOptions& options) {
    int failed = 0;
    if (group.rank == group.displayRank()) {
        if (auto ok = common::ValidateOutputFiles(options); !ok) {
            std::fprintf(stderr, "bfv render: %s\n", ok.error().message.c_str());
            failed = 1;
        }
    }
    BFV_MPI_CHECK(MPI_Bcast(&failed, 1, MPI_INT, group.displayRank(), group.comm));
    return failed == 0;
}

}  // namespace

int RunDistributed(const common::RenderOptions& options) {
    KeepRankProcess(options.liveness.stallTimeoutS);
    common::MpiSession mpi;
    const common::Group& group = mpi.World();
    auto ok = common::ValidateRenderOptions(options, group.size);
    if (ok && options.pipeline.receiveThreads > 1) {
        ok = mpi.RequireThreadLevel(MPI_THREAD_MULTIPLE, "for --receive-threads > 1");
    }
    if (ok && options.liveness.stallTimeoutS > 0.0) {
        ok = mpi.RequireThreadLevel(MPI_THREAD_MULTIPLE,
                                    "for --stall-timeout (the display's heartbeats while its "
                                    "threads receive columns); give --stall-timeout 0 to run "
                                    "without");
    }
    auto prediction = ok ? PredictThisRun(options, group.size)
                         : Expected<std::optional<common::RunPrediction>>(ok.error());
    if (!prediction) {
        if (group.rank == group.serverRank())
            std::fprintf(stderr, "bfv render: %s\n", prediction.error().message.c_str());
        return mpi.Finish(1);
    }
    if (!DisplayCanWriteOutputs(group, options)) return mpi.Finish(1);
    common::InstallInterruptHandlers();
    common::WatchForLostRanks(group, options.liveness.stallTimeoutS);
    TellKeeperRanksWatch();
    return mpi.Finish(RunRole(group, options, *prediction));
}

}  // namespace bfv::pipeline
