#!/usr/bin/env bash
# The test suite: installs what is missing, builds (with tests, without benchmarks) and runs
# every test with ctest: unit tests, the importer on the real Debian DEM, MPI runs of
# N = 3, 4, 6 compared frame by frame with --sequential, window mode under xvfb-run, and
# bad input.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" -DBFV_BUILD_TESTS=ON -DBFV_WERROR=ON
cd "$root/build"
ctest --output-on-failure -j2 --timeout 300 "$@"
