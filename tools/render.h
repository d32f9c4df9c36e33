#pragma once

#include "common/render_options.h"

namespace bfv::tools {

/// `bfv render --sequential`: the three calculations in one process (the single-machine
/// program): read the terrain, ray-cast every column on options.threads threads, present.
/// Produces the same frames, bit for bit, as the distributed run. Returns the exit code.
int RunSequential(const common::RenderOptions& options);

/// `mpiexec -n N bfv render`: initialises MPI (MPI_THREAD_MULTIPLE), checks the options
/// against N and runs this rank's role. Returns the exit code.
int RunDistributed(const common::RenderOptions& options);

/// True on the rank that should print messages that every rank would otherwise repeat
/// (rank 0 under Hydra or Slurm, or a process started without a launcher).
bool IsLeadProcess();

}  // namespace bfv::tools
