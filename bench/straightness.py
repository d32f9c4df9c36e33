#!/usr/bin/python3
"""Straightness figure of issue 28: how much does a straight draped line bow on screen?

Builds a flat DEM (an ESRI ASCII grid, SIDE_POSTS posts SPACING_M apart at HEIGHT_M) draped
with a red and white checkerboard of SQUARE_M squares, imports it with `bfv import --texture`,
renders one frame from a fixed pose looking due north (along a grid axis) with `bfv render
--sequential --headless --terrain-sync`, and follows the east-west checker edges across the
frame. A pinhole camera draws each of them as a straight (here horizontal) line; the column
camera of the release before bends them.

    bench/straightness.py                                  # build/tools/bfv, pitch -20
    bench/straightness.py --bfv OTHER_BFV --pitch -30 --out /tmp/straight
    bench/straightness.py --pitch -90 --edge-px 20         # straight down: blurrier edges
    bench/straightness.py --frame FRAME.png                # measure a frame already rendered

For every east-west edge crossing the centre column (from the bottom of the frame up to where
the squares are under MIN_SQUARE_PX tall) prints its row at the centre column, the columns it
was followed over, its rows at the frame's left and right ends, and its bow in pixels: the spread
(largest minus smallest) of its distances from the least-squares straight line through it, as
medians of BIN_COLUMNS columns (the bend, not the dithered edge's noise). Columns where the edge
meets a north-south edge are skipped (the edge's two sides are not one red and one white there).
An edge followed over only part of the frame (where it cannot be told from a neighbour) is
listed with the columns it was followed over. numpy and PIL (Debian's python3-numpy,
python3-pil).
"""

import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
from PIL import Image

SIDE_POSTS = 257  # DEM posts a side
SPACING_M = 32.0  # DEM post spacing
HEIGHT_M = 100.0  # the flat ground's height
SQUARE_M = 100.0  # checker square side on the ground
TEXTURE_PX = 4096  # checkerboard image side (2 m pixels: draped down to the 4 m posts)
RED, WHITE = (200, 30, 30), (240, 240, 240)
SMOOTH_PX = 5  # vertical box over which a column's redness is averaged before thresholding
SIDE_PX = 6  # rows either side of an edge that must be one red and one white (--edge-px)
MIN_SQUARE_PX = 2 * SIDE_PX  # edges are followed up the frame while squares are this tall
SEARCH_PX = 2  # a column's edge is looked for within this many rows of where it is expected
BIN_COLUMNS = 32  # the bow is taken over medians of this many columns (not the pixels' noise)
SLOPE_COLUMNS = 24  # the last columns found, whose line says where the next column's edge is


def write_scene(directory):
    """Writes flat.asc (the DEM) and checker.ppm (its drape) into directory; returns both paths."""
    dem = os.path.join(directory, "flat.asc")
    with open(dem, "w") as f:
        f.write(f"ncols {SIDE_POSTS}\nnrows {SIDE_POSTS}\nxllcorner 0\nyllcorner 0\n"
                f"cellsize {SPACING_M}\n")
        f.write((" ".join([f"{HEIGHT_M:g}"] * SIDE_POSTS) + "\n") * SIDE_POSTS)
    extent_m = SIDE_POSTS * SPACING_M
    square = ((np.arange(TEXTURE_PX) + 0.5) * extent_m / TEXTURE_PX // SQUARE_M).astype(int)
    red = (square[:, None] + square[None, :]) % 2 == 1
    image = np.where(red[..., None], np.array(RED, np.uint8), np.array(WHITE, np.uint8))
    texture = os.path.join(directory, "checker.ppm")
    Image.fromarray(image.astype(np.uint8)).save(texture)
    return dem, texture


def render(bfv, directory, pitch_deg, height_m, size, extra):
    """Imports the scene and renders one frame from above its south half, looking due north;
    returns the frame's path."""
    dem, texture = write_scene(directory)
    terrain = os.path.join(directory, "checker.bfvp")
    subprocess.run([bfv, "import", "--texture", texture, dem, terrain], check=True,
                   stdout=subprocess.DEVNULL)
    pose = {"xM": SIDE_POSTS * SPACING_M / 2 + SQUARE_M / 2, "yM": 1000,
            "zM": HEIGHT_M + height_m, "headingDeg": 0, "pitchDeg": pitch_deg}
    flight = os.path.join(directory, "flight.json")
    with open(flight, "w") as f:
        json.dump({"poses": [dict(pose, timeS=0), dict(pose, timeS=10)]}, f)
    out = os.path.join(directory, "frames")
    subprocess.run([bfv, "render", "--sequential", "--headless", "--terrain-sync", "--frames",
                    "1", "--png-every", "1", "--size", size, "--terrain", terrain, "--flight",
                    flight, "--out", out] + extra, check=True, stdout=subprocess.DEVNULL)
    return os.path.join(out, "frame_00000.png")


def redness(path):
    """Per pixel, 1 for the checker's red and 0 for its white (from R - G, which the shading
    and the haze scale alike on both), averaged over SMOOTH_PX rows; rows top first."""
    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    value = np.clip((rgb[..., 0] - rgb[..., 1]) / (RED[0] - RED[1]), 0, 1)
    kernel = np.ones(SMOOTH_PX) / SMOOTH_PX
    return np.apply_along_axis(lambda c: np.convolve(c, kernel, mode="same"), 0, value)


def crossing(column, y0, y1):
    """The sub-pixel row within [y0, y1] where the column's redness crosses halfway between its
    red and its white side, SIDE_PX rows either way (at least 0.6 apart), nearest the middle of
    the range; None if there is none."""
    best = None
    for y in range(max(y0, SIDE_PX), min(y1, len(column) - SIDE_PX - 2) + 1):
        above, below = column[y - SIDE_PX], column[y + 1 + SIDE_PX]
        half = (above + below) / 2
        a, b = column[y], column[y + 1]
        if abs(above - below) < 0.6 or (a - half) * (b - half) > 0 or a == b:
            continue
        row = y + 0.5 + (half - a) / (b - a)
        if best is None or abs(row - (y0 + y1) / 2) < abs(best - (y0 + y1) / 2):
            best = row
    return best


def follow(red, row):
    """The edge through (centre column, row) followed left and right, each column's row looked
    for within SEARCH_PX of the line through the last SLOPE_COLUMNS found: {column: row}."""
    width = red.shape[1]
    centre = width // 2
    rows = {centre: row}
    for step in (-1, 1):
        found = [(centre, row)]
        for x in range(centre + step, width if step > 0 else -1, step):
            recent = np.array(found[-SLOPE_COLUMNS:])
            slope = np.polyfit(recent[:, 0], recent[:, 1], 1)[0] if len(recent) > 4 else 0.0
            guess = found[-1][1] + slope * (x - found[-1][0])
            y = crossing(red[:, x], int(guess) - SEARCH_PX, int(guess) + SEARCH_PX)
            if y is not None:
                rows[x] = y
                found.append((x, y))
    return rows


def edges_at_centre(red):
    """Rows where east-west edges cross the centre column, bottom up, while the squares are
    at least MIN_SQUARE_PX tall."""
    column = red[:, red.shape[1] // 2]
    found, y = [], len(column) - SIDE_PX - 2
    while y > SIDE_PX:
        row = crossing(column, y - MIN_SQUARE_PX, y)
        if row is None:
            y -= MIN_SQUARE_PX
            continue
        if found and found[-1] - row < MIN_SQUARE_PX:
            break
        found.append(row)
        y = int(row) - 2
    return found


def bow_px(rows):
    """The bow of an edge {column: row}: the spread (largest minus smallest) of the
    BIN_COLUMNS-column medians of its distances from the least-squares straight line."""
    xs = np.array(sorted(rows))
    ys = np.array([rows[x] for x in xs])
    residual = ys - np.polyval(np.polyfit(xs, ys, 1), xs)
    bins = xs // BIN_COLUMNS
    medians = [np.median(residual[bins == b]) for b in np.unique(bins)]
    return float(max(medians) - min(medians))


def measure(path):
    """Prints each edge's rows and bow; returns a list of (centre row, bow px)."""
    red = redness(path)
    print(f"{path}: {red.shape[1]} x {red.shape[0]} px")
    print("centre row  columns followed  left row  right row  bow (px, from a straight line)")
    results = []
    for row in edges_at_centre(red):
        rows = follow(red, row)
        xs = sorted(rows)
        bow = bow_px(rows)
        print(f"{row:10.1f}  {xs[0]:5d}-{xs[-1]:<5d} {len(xs):5d}  {rows[xs[0]]:8.1f}  "
              f"{rows[xs[-1]]:9.1f}  {bow:6.1f}")
        results.append((row, bow))
    return results


def main():
    """Renders (or reads) the frame and measures it; --edge-px sets SIDE_PX and MIN_SQUARE_PX."""
    global SIDE_PX, MIN_SQUARE_PX
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bfv", default="build/tools/bfv", help="the bfv binary")
    parser.add_argument("--pitch", type=float, default=-20, help="view pitch, degrees")
    parser.add_argument("--agl", type=float, default=300, help="eye height above the ground, m")
    parser.add_argument("--size", default="1280x720", help="frame size WxH")
    parser.add_argument("--frame", help="measure this PNG instead of rendering one")
    parser.add_argument("--edge-px", type=int, default=SIDE_PX,
                        help="rows either side of an edge that must be one red and one white: "
                        "more than half the edge's blur (20 looking straight down)")
    parser.add_argument("--out", help="keep the scene and frame here (default: temporary)")
    parser.add_argument("render_args", nargs="*", help="more `bfv render` options, after --")
    a = parser.parse_args()
    SIDE_PX, MIN_SQUARE_PX = a.edge_px, 2 * a.edge_px
    if a.frame:
        measure(a.frame)
        return
    with tempfile.TemporaryDirectory() as scratch:
        directory = a.out or scratch
        os.makedirs(directory, exist_ok=True)
        measure(render(a.bfv, directory, a.pitch, a.agl, a.size, a.render_args))


if __name__ == "__main__":
    main()
