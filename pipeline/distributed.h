#pragma once

#include "common/render_options.h"

namespace bfv::pipeline {

/// `mpiexec -n N bfv render`: initialises MPI (MPI_THREAD_MULTIPLE), checks the options
/// against N and runs this rank's role. Returns the exit code.
int RunDistributed(const common::RenderOptions& options);

}  // namespace bfv::pipeline
