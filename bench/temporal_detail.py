#!/usr/bin/python3
"""Temporal figure of issue 28: is the fine detail fixed to the ground or to the screen?

Renders the default flight headless and sequential (--terrain-sync, a PNG every frame), takes
the high-pass detail of frames K and K + GAP (grey level minus its 5 x 5 box blur) over a patch
at the screen centre, and correlates the patch of frame K with frame K + GAP shifted by every
(dx, dy) within +-MAX_SHIFT pixels. Detail fixed to the ground correlates best where the ground
itself went (the best shift of the low-pass image, the 5 x 5 box blur, printed beside it), and
clearly less at zero shift; detail fixed to the screen correlates best at zero shift.

    bench/temporal_detail.py                       # build/tools/bfv
    bench/temporal_detail.py --bfv OTHER_BFV --frames 10 --patch 128

Prints, for the high-pass and the low-pass image: the correlation at zero shift, the best shift
(dx right, dy down, pixels from frame K to frame K + GAP) and the correlation there; and the
share of frame K's pixels more than 12 grey levels from their 5 x 5 neighbourhood mean.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

BOX_SIDE = 5  # the blur that splits detail (high-pass) from the ground's shading (low-pass)
SPECKLE_LEVELS = 12  # grey levels from the neighbourhood mean that count a pixel as speckle


def render(bfv, frames, out_dir, extra):
    """Flies the default flight for `frames` frames, one PNG each, into out_dir."""
    command = [bfv, "render", "--sequential", "--headless", "--terrain-sync",
               "--frames", str(frames), "--png-every", "1", "--out", out_dir] + extra
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def grey(path):
    """The frame's grey level (mean of R, G and B), float, rows top first."""
    return np.asarray(Image.open(path).convert("RGB"), dtype=np.float64).mean(axis=2)


def box_blur(image):
    """The BOX_SIDE x BOX_SIDE box mean of every pixel (edges replicated)."""
    r = BOX_SIDE // 2
    padded = np.pad(image, r, mode="edge")
    sums = np.cumsum(np.cumsum(padded, axis=0), axis=1)
    sums = np.pad(sums, ((1, 0), (1, 0)))
    h, w = image.shape
    s = BOX_SIDE
    return (sums[s:s + h, s:s + w] - sums[:h, s:s + w] - sums[s:s + h, :w] + sums[:h, :w]) / s**2


def correlation(a, b):
    """Pearson correlation of two equal-sized patches (0 when either is flat)."""
    a = a - a.mean()
    b = b - b.mean()
    norm = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / norm) if norm > 0 else 0.0


def shift_correlations(first, second, patch, max_shift):
    """Correlation of first's central patch with second's patch moved by (dx, dy), for every
    shift within +-max_shift: a dict (dx, dy) -> correlation."""
    h, w = first.shape
    top, left = (h - patch) // 2, (w - patch) // 2
    reference = first[top:top + patch, left:left + patch]
    return {(dx, dy): correlation(reference,
                                  second[top + dy:top + dy + patch, left + dx:left + dx + patch])
            for dy in range(-max_shift, max_shift + 1) for dx in range(-max_shift, max_shift + 1)}


def report(name, correlations):
    """Prints zero-shift and best-shift correlations; returns the best shift."""
    best = max(correlations, key=correlations.get)
    zero = correlations[(0, 0)]
    print(f"{name:10s} zero shift {zero:.3f}   best shift dx={best[0]:+d} dy={best[1]:+d} "
          f"{correlations[best]:.3f}   best - zero {correlations[best] - zero:.3f}")
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bfv", default="build/tools/bfv", help="the bfv binary")
    parser.add_argument("--frames", type=int, default=10, help="frames rendered")
    parser.add_argument("--first", type=int, default=0, help="K: the first frame compared")
    parser.add_argument("--gap", type=int, default=5, help="GAP: frames between the two")
    parser.add_argument("--patch", type=int, default=128, help="side of the central patch, px")
    parser.add_argument("--max-shift", type=int, default=12, help="shifts tried either way, px")
    parser.add_argument("--out", help="keep the frames here (default: a temporary directory)")
    parser.add_argument("render_args", nargs="*", help="more `bfv render` options, after --")
    a = parser.parse_args()
    if a.first + a.gap >= a.frames:
        sys.exit("temporal_detail: --first + --gap must be below --frames")
    with tempfile.TemporaryDirectory() as scratch:
        out_dir = a.out or scratch
        render(a.bfv, a.frames, out_dir, a.render_args)
        first, second = (grey(os.path.join(out_dir, f"frame_{k:05d}.png"))
                         for k in (a.first, a.first + a.gap))
    print(f"frames {a.first} and {a.first + a.gap}, central {a.patch} x {a.patch} px patch, "
          f"shifts within +-{a.max_shift} px")
    low_first, low_second = box_blur(first), box_blur(second)
    report("low-pass", shift_correlations(low_first, low_second, a.patch, a.max_shift))
    report("high-pass", shift_correlations(first - low_first, second - low_second, a.patch,
                                           a.max_shift))
    speckle = np.abs(first - low_first) > SPECKLE_LEVELS
    print(f"frame {a.first}: {100 * speckle.mean():.1f}% of pixels differ by more than "
          f"{SPECKLE_LEVELS} grey levels from their {BOX_SIDE} x {BOX_SIDE} neighbourhood mean")


if __name__ == "__main__":
    main()
