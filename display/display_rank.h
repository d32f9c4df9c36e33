#pragma once

#include <optional>

#include "common/flight.h"
#include "common/mpi_group.h"
#include "common/render_options.h"
#include "common/report.h"
#include "terrain/pinned_ground.h"

namespace bfv::display {

/// The ground the default flight and the pilot follow: the pinned terrain's heights smoothed
/// over a few hundred metres so that the eye does not bob over every post. `ground` must
/// outlive the function.
common::GroundFn FlightGround(const terrain::PinnedGround& ground);

/// The flight the view options ask for (the default circuit over the data area in their flight
/// style, or their flight file) over the pinned terrain. `ground` must outlive the flight.
/// Errors: LoadFlightFile's, and a file's waypoint or pose off the terrain's data area or a pose
/// below the ground (Flight::CheckOverTerrain), after "flight file 'PATH': ".
Expected<common::Flight> MakeFlight(const common::ViewOptions& view,
                                    const terrain::PinnedGround& ground);

/// The display rank's life in `bfv render`: receives the terrain (it follows the ground),
/// owns the viewpoint and tells every rank each frame's camera one frame ahead (so tracers
/// render frame f+1 while it assembles frame f), receives the columns on K threads, presents
/// the frames, and writes the run report, with `prediction` (--machine) beside the measured
/// frame rate when given. Returns the process exit code.
int RunDisplay(const common::Group& group, const common::RenderOptions& options,
               const std::optional<common::RunPrediction>& prediction = std::nullopt);

}  // namespace bfv::display
