#!/usr/bin/python3
"""Figures of `bfv render --serve` in Debian's headless Chromium: frames delivered to the page per
second, the render's FPS with and without a viewer, Chromium's CPU per frame shown,
key-to-changed-frame latency (median), bytes per frame and the display's JPEG encoding CPU per
frame. Prints one line per figure.

Usage: bench/serve_bench.py [--bfv build/tools/bfv] [--ranks 4] [--size 1280x720]
                            [--seconds 20] [--keys 15] [--terrain assets/jacksboro.bfvp]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tests", "browser"))
import serve_session  # noqa: E402
from soak import children_of, stat_fields  # noqa: E402


def median_fps(out_dir, warmup=10):
    with open(os.path.join(out_dir, "report.json")) as f:
        times = json.load(f)["frameTimesS"][warmup:]
    return 1.0 / statistics.median(times), len(times)


def render_args(args):
    return ["--terrain", args.terrain, "--headless", "--size", args.size, "--png-every", "0"]


def mpiexec(args):
    return ["mpiexec", "-n", str(args.ranks)]


def without_viewer(args, serve):
    out_dir = tempfile.mkdtemp(prefix="bfv-serve-bench-")
    command = mpiexec(args) + [args.bfv, "render", "--out", out_dir,
                               "--frames", str(args.frames)] + render_args(args)
    if serve:
        command += ["--serve", "0"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return median_fps(out_dir)


def cpu_s(pid):
    """CPU seconds (user and system) used so far by process `pid` and every process under it."""
    total = 0
    for process in [pid] + children_of(pid):
        try:
            fields = stat_fields(process)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def key_latencies_ms(browser, n):
    """Presses and releases the right arrow n times: the time from each press (the page's
    keydown) to the first frame shown with a changed heading, ms."""
    latencies = []
    for _ in range(n):
        before = browser.evaluate("window.bfv.meta.headingRad")
        shown = browser.evaluate("window.bfv.frames.length")
        browser.key("ArrowRight", "ArrowRight", 39, up=False)
        serve_session.wait_for("a turned frame", lambda: browser.evaluate(
            f"window.bfv.frames.slice({shown}).some(f => Math.abs(f.headingRad - {before}) > 1e-6)"))
        latencies.append(browser.evaluate(
            f"window.bfv.frames.slice({shown}).find(f => Math.abs(f.headingRad - {before}) > 1e-6)"
            ".tMs - window.bfv.lastKeyMs"))
        browser.key_up("ArrowRight", "ArrowRight", 39)
        time.sleep(0.3)
    return latencies


def with_viewer(args, chromium):
    out_dir = tempfile.mkdtemp(prefix="bfv-serve-bench-")
    run = serve_session.Run(args.bfv, render_args(args) + ["--frames", "0", "--speed", "0"],
                            out_dir, mpiexec(args))
    browser = serve_session.Browser(chromium)
    try:
        browser.open(run.url)
        serve_session.wait_for("frames in the page",
                               lambda: browser.evaluate("window.bfv ? window.bfv.shown : 0") > 30)
        first = browser.evaluate("[window.bfv.shown, performance.now()]")
        first_cpu_s = cpu_s(browser.process.pid)
        time.sleep(args.seconds)
        last = browser.evaluate("[window.bfv.shown, performance.now()]")
        viewer_cpu_s = cpu_s(browser.process.pid) - first_cpu_s
        wall_s = (last[1] - first[1]) / 1e3
        page_fps = (last[0] - first[0]) / wall_s
        viewer = (1e3 * viewer_cpu_s / max(last[0] - first[0], 1), viewer_cpu_s / wall_s)
        latencies = key_latencies_ms(browser, args.keys)
        browser.key("Escape", "Escape", 27)
        code, output = run.wait()
    finally:
        browser.close()
        run.stop()
    served = re.search(r"served (\d+) frames as JPEG: (\d+) bytes per frame, ([\d.]+) ms", output)
    fps, frames = median_fps(out_dir)
    return page_fps, viewer, fps, latencies, served


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bfv", default=os.path.join(root, "build", "tools", "bfv"))
    parser.add_argument("--terrain", default=os.path.join(root, "assets", "jacksboro.bfvp"))
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--keys", type=int, default=15)
    args = parser.parse_args()
    chromium = serve_session.find_chromium()
    if chromium is None:
        sys.exit("serve_bench: chromium is not installed (tools/install-deps.sh installs it)")
    plain_fps, _ = without_viewer(args, serve=False)
    idle_fps, _ = without_viewer(args, serve=True)
    page_fps, viewer, watched_fps, latencies, served = with_viewer(args, chromium)
    print(f"serve_bench: {args.size}, N = {args.ranks}, terrain {os.path.basename(args.terrain)}")
    print(f"  render FPS (median) without --serve      {plain_fps:7.1f}")
    print(f"  render FPS, --serve, no viewer           {idle_fps:7.1f}  ({idle_fps / plain_fps:.2f}x)")
    print(f"  render FPS, --serve, Chromium watching   {watched_fps:7.1f}  "
          f"({watched_fps / plain_fps:.2f}x)")
    print(f"  frames delivered to the page per second  {page_fps:7.1f}")
    print(f"  Chromium's CPU per frame shown           {viewer[0]:7.2f} ms "
          f"({viewer[1]:.2f} cores)")
    print(f"  key to changed frame, median             {statistics.median(latencies):7.1f} ms "
          f"({len(latencies)} presses, max {max(latencies):.1f} ms)")
    if served:
        print(f"  bytes per frame (JPEG q80)               {int(served.group(2)):7d}")
        print(f"  encoding CPU per frame                   {float(served.group(3)):7.2f} ms")


if __name__ == "__main__":
    main()
