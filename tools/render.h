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

/// How many processes the launcher that started this one started (PMI_SIZE under Hydra,
/// OMPI_COMM_WORLD_SIZE under Open MPI, SLURM_NTASKS under srun, read from the launcher whose
/// rank IsLeadProcess reads), without initialising MPI; 1 without a launcher.
int LaunchedProcesses();

}  // namespace bfv::tools
