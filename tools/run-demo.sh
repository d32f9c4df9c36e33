#!/usr/bin/env bash
# The demo: installs what is missing, builds, and flies the default flight over the shipped
# terrain headless on 4 MPI ranks (terrain server, 2 ray tracers, display), 300 frames at
# 1280x720. Results go to out/demo: report.json, checksums.txt and PNG frames.
# To watch it in a window instead: mpiexec -n 4 build/tools/bfv render
#
# Ctrl-C ends the run cleanly with its report, pressed once or several times: mpiexec runs in
# a session of its own, out of the terminal's reach, and this script passes it the first
# SIGINT only (MPICH's mpiexec takes a second one as "force abort": the ranks still write the
# report, but mpiexec exits 255 before they have). A Ctrl-C more than 2 s after the first is
# passed on too: the force abort of a run that does not stop.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cd "$root"
setsid mpiexec -n "${BFV_RANKS:-4}" build/tools/bfv render --headless --frames 300 \
    --out out/demo "$@" </dev/null &
job=$!
firstInterruptNs=0
passInterrupt() {
    local nowNs
    nowNs=$(date +%s%N)
    if ((firstInterruptNs == 0 || nowNs - firstInterruptNs > 2000000000)); then
        ((firstInterruptNs == 0)) && firstInterruptNs=$nowNs
        kill -INT "$job" 2>/dev/null || true
    fi
}
trap passInterrupt INT
trap 'kill -TERM "$job" 2>/dev/null || true' TERM
status=0
while true; do
    wait "$job" && status=0 || status=$?
    kill -0 "$job" 2>/dev/null || break  # else wait was cut short by a trapped signal
done
((status == 0)) && echo "Frames and report are in out/demo. Open a window with: mpiexec -n 4 build/tools/bfv render"
exit "$status"
