#!/usr/bin/env bash
# bfv import of a large DEM in bounded memory: makes a synthetic POSTS x POSTS GeoTIFF
# (default 20000 x 20000, 25 m posts, UTM; 1.6 GB, made once and kept in OUT), imports it
# under /usr/bin/time -v and prints the peak resident memory and the wall time, against the
# target of 1 GiB peak RSS. The .bfvp (3.3 GB at the default size) is removed afterwards.
# "voids" makes a DEM with nodata discs (SRTM's -32768), which the import fills on disk;
# "texture" also makes imagery of the same size (8-bit RGB, 3 bytes a pixel, kept in OUT) and
# drapes it over the DEM (`bfv import --texture`).
# Usage: bench/large_import.sh [POSTS (20000)] [OUT (/tmp/bfv-large-import)] [voids|texture]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
make_dem="$root/build/bench/bfv_make_dem"
for tool in "$bfv" "$make_dem"; do
    [ -x "$tool" ] || { echo "large_import: build first (tools/build.sh): no $tool" >&2; exit 1; }
done
posts=${1:-20000}
out=${2:-/tmp/bfv-large-import}
mode=${3:-}
case "$mode" in
    "" | voids | texture) ;;
    *) echo "large_import: the third argument is 'voids' or 'texture'" >&2; exit 2 ;;
esac
voids=$([ "$mode" = voids ] && echo voids || true)
mkdir -p "$out"
name="synthetic-$posts${voids:+-voids}"
dem="$out/$name.tif"
pyramid="$out/$name.bfvp"
trap 'rm -f "$pyramid"' EXIT
if [ ! -f "$dem" ]; then
    echo "large_import: making $dem ..." >&2
    "$make_dem" "$dem.part" "$posts" 25 $voids
    mv "$dem.part" "$dem"
fi
texture=()
if [ "$mode" = texture ]; then
    image="$out/$name-rgb.tif"
    if [ ! -f "$image" ]; then
        echo "large_import: making $image ..." >&2
        "$make_dem" "$image.part" "$posts" 25 rgb
        mv "$image.part" "$image"
    fi
    texture=(--texture "$image")
    pyramid="$out/$name-draped.bfvp"
    trap 'rm -f "$pyramid"' EXIT
fi
echo "large_import: bfv import $dem ($(du -h "$dem" | cut -f1)) ${texture[*]} ..." >&2
/usr/bin/time -v -o "$out/time.txt" "$bfv" import --force "${texture[@]}" "$dem" "$pyramid"
awk -F': ' -v target=1024 '
    /Maximum resident set size/ { rss = $2 / 1024 }
    /Elapsed \(wall clock\) time/ { wall = $2 }
    END {
        printf "peak RSS %.0f MiB (target <= %d MiB: %s), wall time %s\n", rss, target,
               rss <= target ? "met" : "MISSED", wall
        exit rss <= target ? 0 : 1
    }' "$out/time.txt"
