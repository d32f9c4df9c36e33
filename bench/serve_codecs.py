#!/usr/bin/python3
"""Which codec `bfv render --serve` should stream frames in: JPEG (libjpeg-turbo) against WebP
(libwebp), both through python3-pil, on a frame bfv wrote. Prints, per codec and setting, the
bytes per frame, the encoding CPU time (median of 15) and the PSNR against the frame.

Usage: bench/serve_codecs.py FRAME.png   (e.g. out/frame_00299.png of a headless 1280x720 run)
"""
import io
import math
import sys
import time

import numpy
from PIL import Image

SETTINGS = [
    ("JPEG q80 4:2:0 (served)", dict(format="JPEG", quality=80, subsampling=2)),
    ("JPEG q90 4:2:0", dict(format="JPEG", quality=90, subsampling=2)),
    ("WebP q80, fastest", dict(format="WEBP", quality=80, method=0)),
    ("WebP q90, fastest", dict(format="WEBP", quality=90, method=0)),
    ("WebP q80, default", dict(format="WEBP", quality=80, method=4)),
]


def psnr_db(a, b):
    error = numpy.asarray(a, dtype=float) - numpy.asarray(b, dtype=float)
    return 10.0 * math.log10(255.0 ** 2 / (error ** 2).mean())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    frame = Image.open(sys.argv[1]).convert("RGB")
    print(f"serve_codecs: {sys.argv[1]} ({frame.width}x{frame.height})")
    for name, options in SETTINGS:
        cpu_s = []
        for _ in range(15):
            out = io.BytesIO()
            start = time.process_time()
            frame.save(out, **options)
            cpu_s.append(time.process_time() - start)
        data = out.getvalue()
        decoded = Image.open(io.BytesIO(data)).convert("RGB")
        print(f"  {name:26s} {len(data):8d} bytes  {1e3 * sorted(cpu_s)[7]:6.2f} ms CPU  "
              f"PSNR {psnr_db(frame, decoded):5.2f} dB")


if __name__ == "__main__":
    main()
