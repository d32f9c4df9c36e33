#pragma once

namespace bfv::pipeline {

/// True on the rank that should print messages that every rank would otherwise repeat
/// (rank 0 under Hydra or Slurm, or a process started without a launcher).
bool IsLeadProcess();

/// How many processes the launcher that started this one started (PMI_SIZE under Hydra,
/// OMPI_COMM_WORLD_SIZE under Open MPI, SLURM_NTASKS under srun, read from the launcher whose
/// rank IsLeadProcess reads), without initialising MPI; 1 without a launcher.
int LaunchedProcesses();

}  // namespace bfv::pipeline
