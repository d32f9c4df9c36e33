#!/usr/bin/env bash
# The terrain stream in the source paper's case: 300 m above ground, 30 deg down, 26.8 m/s
# (60 mph) for 60 s of flight (1800 frames of 1/30 s), headless on N ranks with the live
# stream (default budget). Prints the terrain bytes per second and per frame, tiles per
# second, evictions and queue depth, and the resolution deficit over time, next to the paper's
# 0.25 MB per update cycle, one cycle every 5 frames. The run stays in out/bench/stream/.
# Usage: bench/terrain_stream.sh [ranks (default 4)] [extra bfv render options...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv="$root/build/tools/bfv"
[ -x "$bfv" ] || { echo "terrain_stream: build first (tools/build.sh)" >&2; exit 1; }
ranks=${1:-4}
shift || true
out="$root/out/bench/stream"
rm -rf "$out"
echo "terrain_stream: 60 s of the paper's flight on $ranks ranks, 640x360 ..." >&2
mpiexec -n "$ranks" "$bfv" render --headless --frames 1800 --frame-dt 0.0333333333 \
    --size 640x360 --png-every 600 --out "$out" "$@" >/dev/null
/usr/bin/python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
server = r["ranks"][0]
s = server["terrainStream"]
frames = len(r["frameTimesS"])
wall = sum(r["frameTimesS"])
deficit = r["resolutionDeficit"]
print(f"bfv terrain stream, paper's case, N={r['nRanks']}, {frames} frames in {wall:.1f} s "
      f"({frames / wall:.1f} FPS), budget {r['options']['terrain']['terrainBudgetBytesPerS'] / 1e6:.1f} MB/s per tracer")
print(f"  stream     {s['bytesSent'] / 1e6:.2f} MB, {s['bytesPerS'] / 1e6:.3f} MB/s, "
      f"{s['bytesSent'] / frames / 1e3:.1f} kB/frame ({5 * s['bytesSent'] / frames / 1e6:.3f} MB per 5 frames)")
print(f"  tiles      {s['tilesSent']:.0f} sent ({s['tilesPerS']:.1f}/s), {s['tilesEvicted']:.0f} evicted, "
      f"{s['tilesRead']:.0f} read, {s['tilesRefined']:.0f} refined; queue depth mean "
      f"{s['queueDepthMean']:.1f}, max {s['queueDepthMax']:.0f}")
print(f"  paper      0.25 MB per update cycle, one cycle every 5 frames (0.05 MB/frame)")
print("  resolution deficit over the flight (share of terrain pixels coarser than asked):")
t = 0.0
step = max(1, frames // 12)
for k in range(0, frames, step):
    t = sum(r["frameTimesS"][:k])
    window = deficit[k:k + step]
    print(f"    frames {k:5d}-{k + len(window) - 1:5d} (t={t:5.1f} s wall)  {100 * sum(window) / len(window):5.1f}%")
for rank in r["ranks"][1:-1]:
    print(f"  tracer r{rank['rank']}: {rank.get('residentTileMiB', 0):.1f} MiB of tiles resident, peak RSS {rank['peakRssMiB']:.0f} MiB")
PY
