#!/usr/bin/env bash
# The predictor on this machine and on a described 16-node cluster with 1 Gbit/s links:
# measures what it needs (the sequential resource profile; the shared-memory link with
# bfv commbench) unless already in out/bench/predict/, then prints FPS(N) for N = 3..16.
# Usage: bench/predict.sh [WIDTHxHEIGHT (default 640x360)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
[ -x "$bfv" ] || { echo "predict.sh: build first (tools/build.sh)" >&2; exit 1; }
size=${1:-640x360}
out="$root/out/bench/predict"
mkdir -p "$out"

profile="$out/profile-$size.json"
fps() {  # fps THREADS [extra options]: mean FPS of a sequential run
    local threads=$1; shift
    "$bfv" render --sequential --headless --frames 200 --size "$size" --png-every 0 \
        --threads "$threads" --out "$out/sequential-$size-t$threads" "$@" |
        awk '/FPS mean/ {print $3}'
}
if [ ! -f "$profile" ] || [ ! -f "$out/capacity-$size" ]; then
    one=$(fps 1 --profile "$profile")
    all=$(fps "$(nproc)")
    # The host's capacity in single-core units: all cores' throughput over one core's.
    awk -v a="$all" -v o="$one" -v n="$(nproc)" 'BEGIN {c = a / o; if (c > n) c = n; printf "%.3f\n", c}' \
        > "$out/capacity-$size"
fi
capacity=$(cat "$out/capacity-$size")
echo "this machine: $(nproc) cores doing the work of $capacity (sequential --threads $(nproc) over --threads 1)"
if [ ! -f "$out/shm/link_profile.json" ]; then
    mpiexec -n 2 "$bfv" commbench --name shm --out "$out/shm" >/dev/null
fi
cp "$root/bench/machines/gige-1gbit.json" "$out/gige.json"

cat > "$out/this-machine.json" <<JSON
{"name": "this machine ($(nproc) cores)",
 "hosts": [{"name": "$(hostname)", "cores": $(nproc), "capacityCores": $capacity, "cpuSpeed": 1.0}],
 "intraHostLink": "shm", "links": {"shm": "shm/link_profile.json"}}
JSON
cat > "$out/cluster16.json" <<JSON
{"name": "16 one-core nodes, 1 Gbit/s Ethernet",
 "hosts": [{"name": "node", "count": 16, "cores": 1, "cpuSpeed": 1.0, "nics": ["gige"]}],
 "intraHostLink": "shm", "links": {"shm": "shm/link_profile.json", "gige": "gige.json"}}
JSON

for machine in this-machine cluster16; do
    echo
    "$bfv" predict --profile "$profile" --machine "$out/$machine.json" --n 3-16 \
        --single-machine-speed 2 --target-fps 60 --json "$out/$machine-$size.json"
done
