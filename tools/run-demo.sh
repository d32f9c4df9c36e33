#!/usr/bin/env bash
# The demo: installs what is missing, builds, and flies the default flight over the shipped
# terrain headless on 4 MPI ranks (terrain server, 2 ray tracers, display), 300 frames at
# 1280x720. Results go to out/demo: report.json, checksums.txt and PNG frames.
# To watch it in a window instead: mpiexec -n 4 build/tools/bfv render
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cd "$root"
mpiexec -n "${BFV_RANKS:-4}" build/tools/bfv render --headless --frames 300 --out out/demo "$@"
echo "Frames and report are in out/demo. Open a window with: mpiexec -n 4 build/tools/bfv render"
