#!/usr/bin/env bash
# The ground's appearance figures of issue 29 (bfv_appearance_bench): writes each view's flight
# file, renders it with this build's `bfv render` (checked against the bench's own frame) and,
# when given, with an older bfv (the "before"), then prints relief against GDAL's hillshade and
# the sky's banding for both.
# Usage: bench/appearance.sh [OLD_BFV [OLD_TERRAIN]]
#   OLD_BFV      an older build's bfv binary, e.g. of the release before RGB pixels
#   OLD_TERRAIN  the --terrain it is given (default: this checkout's assets/jacksboro.bfvp)
# Needs a build with -DBFV_BUILD_BENCH=ON (build/bench/bfv_appearance_bench).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
bench="$root/build/bench/bfv_appearance_bench"
terrain="$root/assets/jacksboro.bfvp"
[ -x "$bfv" ] && [ -x "$bench" ] ||
    { echo "appearance.sh: build first (tools/build.sh -DBFV_BUILD_BENCH=ON)" >&2; exit 1; }
old=${1:-}
old_terrain=${2:-$terrain}
out="$root/out/bench/appearance"
views="relief-h0 relief-h180 sky-p-10 sky-p0"
"$bench" --terrain "$terrain" --write-flights "$out/flights" > /dev/null
args=()
for v in $views; do
    render=(render --sequential --headless --frames 1 --flight "$out/flights/$v.json")
    "$bfv" "${render[@]}" --terrain "$terrain" --out "$out/after/$v" > /dev/null
    args+=(--image-check "$v=$out/after/$v/frame_00000.png")
    if [ -n "$old" ]; then
        "$old" "${render[@]}" --terrain "$old_terrain" --out "$out/before/$v" > /dev/null
        args+=(--image-before "$v=$out/before/$v/frame_00000.png")
    fi
done
"$bench" --terrain "$terrain" "${args[@]}"
