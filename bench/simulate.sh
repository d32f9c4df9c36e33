#!/usr/bin/env bash
# The analytic predictor against the schedule simulator (bfv predict --simulate) far beyond this
# machine: described clusters of 1024 one-core nodes on 1 Gbit/s Ethernet, 10 Gbit/s Ethernet
# and 100 Gbit/s InfiniBand (bench/machines/cluster-*.json), N = 16..1024, from this machine's
# sequential profile (measured once into out/bench/simulate/ unless already there). Then the
# same 10 GbE cluster behind an oversubscribed switch whose backplane gives all remote transfers
# 4 Gbit/s together.
# Usage: bench/simulate.sh [WIDTHxHEIGHT (default 1280x720)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
[ -x "$bfv" ] || { echo "simulate.sh: build first (tools/build.sh)" >&2; exit 1; }
size=${1:-1280x720}
out="$root/out/bench/simulate"
mkdir -p "$out"
profile="$out/profile-$size.json"
if [ ! -f "$profile" ]; then
    echo "measuring the sequential profile at $size (200 frames)"
    "$bfv" render --sequential --headless --frames 200 --size "$size" --png-every 0 \
        --out "$out/sequential-$size" --profile "$profile" >/dev/null
fi
ns=16,32,64,128,256,512,1024
for cluster in gige 10gige ib100; do
    echo
    echo "== $(jq -r .name "$root/bench/machines/cluster-$cluster.json")"
    "$bfv" predict --profile "$profile" --machine "$root/bench/machines/cluster-$cluster.json" \
        --n "$ns" --size "$size" --simulate --json "$out/cluster-$cluster-$size.json" |
        sed -n '/^verdict/p;/^simulated/,$p'
done
# The 10 GbE cluster behind a backplane that all remote transfers share (4 Gbit/s).
jq '.name += ", a 4 Gbit/s shared switch backplane" | .switchBytesPerS = 5e8 |
    .links |= map_values("'"$root"'/bench/machines/" + .)' \
    "$root/bench/machines/cluster-10gige.json" > "$out/cluster-10gige-switch.json"
echo
echo "== $(jq -r .name "$out/cluster-10gige-switch.json")"
"$bfv" predict --profile "$profile" --machine "$out/cluster-10gige-switch.json" --n "$ns" \
    --size "$size" --simulate --json "$out/cluster-10gige-switch-$size.json" |
    sed -n '/^verdict/p;/^simulated/,$p'
