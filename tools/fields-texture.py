#!/usr/bin/env python3
"""Writes a synthetic patchwork of fields and woods as a binary PPM image, to try
`bfv import --texture` without imagery of your own:

    tools/fields-texture.py /tmp/fields.ppm
    build/tools/bfv import --texture /tmp/fields.ppm \\
        /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz /tmp/fields.bfvp

The image is a Voronoi patchwork of SIDE x SIDE pixels: about CELLS x CELLS parcels, each a
crop or wood colour with a little per-pixel grain. Deterministic for a given seed; standard
library only (about 15 s for the default 2048 x 2048, 15 m pixels over the shipped terrain)."""

import argparse
import random

CROPS = [
    (196, 178, 110),  # ripe wheat
    (120, 150, 70),  # pasture
    (60, 95, 45),  # woodland
    (140, 110, 80),  # ploughed
    (160, 170, 90),  # young crop
    (40, 70, 38),  # dense wood
    (170, 160, 120),  # stubble
]


def patchwork(side, cells, seed):
    """The image's bytes, RGB, row 0 first: each pixel the colour of its nearest parcel seed."""
    rng = random.Random(seed)
    step = side / cells
    seeds = {}
    for i in range(cells):
        for j in range(cells):
            point = ((i + rng.random()) * step, (j + rng.random()) * step, rng.choice(CROPS))
            seeds[(i, j)] = point
    pixels = bytearray()
    for y in range(side):
        for x in range(side):
            gx, gy = int(x / step), int(y / step)
            nearest, colour = None, None
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    point = seeds.get((gx + dx, gy + dy))
                    if point is None:
                        continue
                    d2 = (point[0] - x) ** 2 + (point[1] - y) ** 2
                    if nearest is None or d2 < nearest:
                        nearest, colour = d2, point[2]
            grain = rng.randint(-8, 8)
            pixels += bytes(max(0, min(255, v + grain)) for v in colour)
    return bytes(pixels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="PPM file to write")
    parser.add_argument("--side", type=int, default=2048, help="pixels per side (2048)")
    parser.add_argument("--cells", type=int, default=24, help="parcels per side (24)")
    parser.add_argument("--seed", type=int, default=7, help="random seed (7)")
    args = parser.parse_args()
    if args.side < 1 or args.cells < 1 or args.cells > args.side:
        parser.error("need 1 <= --cells <= --side")
    image = patchwork(args.side, args.cells, args.seed)
    with open(args.output, "wb") as out:
        out.write(b"P6\n%d %d\n255\n" % (args.side, args.side) + image)


if __name__ == "__main__":
    main()
