#pragma once

// The MPI test binary (tests/mpi): every rank runs every test and plays its role of
// `bfv render` in it: rank 0 the terrain server, the last rank the display, the ranks between
// ray tracers. ctest runs it under mpiexec with 3 and 4 ranks.

#include "common/mpi_group.h"

namespace bfv::test_support {

/// MPI_COMM_WORLD of the test run, set up by the binary's main before any test.
const common::Group& World();

}  // namespace bfv::test_support
