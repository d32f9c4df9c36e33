#!/usr/bin/env bash
# End-to-end headless frame rate of the default flight: --sequential and N = 3, 4, 6 MPI
# ranks, at 640x360 and 1280x720, and N = 4 at 1920x1080; prints FPS (mean, median, p5, p95
# without warm-up) and the peak resident memory of every rank. Results of each run stay in
# out/bench/fps/.
# Usage: bench/fps_sweep.sh [frames (default 200)] [extra bfv render options...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
[ -x "$bfv" ] || { echo "fps_sweep: build first (tools/build.sh)" >&2; exit 1; }
frames=${1:-200}
shift || true
out="$root/out/bench/fps"
mkdir -p "$out"

run() {  # run LABEL SIZE RANKS (0 = --sequential)
    local label=$1 size=$2 ranks=$3
    local dir="$out/$label-$size"
    local command=(mpiexec -n "$ranks" "$bfv" render)
    [ "$ranks" -eq 0 ] && command=("$bfv" render --sequential)
    local summary
    summary=$("${command[@]}" --headless --frames "$frames" --size "$size" --png-every 0 \
        --out "$dir" "${extra[@]}")
    local fps peak
    fps=$(awk '/FPS mean/ {print $3, $5, $7, $9}' <<<"$summary")
    peak=$(awk '/^ +[0-9]+ (server|tracer|display|sequential)/ {printf "%s:%.0f ", $2, $NF}' <<<"$summary")
    printf "%-12s %-10s %8s %8s %8s %8s   %s\n" "$label" "$size" $fps "$peak"
}

extra=("$@")
echo "bfv headless FPS, $frames frames of the default flight ($(nproc) cores)"
printf "%-12s %-10s %8s %8s %8s %8s   %s\n" config size mean median p5 p95 "peak MiB per rank"
for size in 640x360 1280x720; do
    run sequential "$size" 0
    for n in 3 4 6; do
        run "mpi-N$n" "$size" "$n"
    done
done
run mpi-N4 1920x1080 4
