#!/usr/bin/python3
"""Soak and chaos: a long headless flight over a random pilot's path, sampled every minute, with
random stops of random ranks shorter than the stall limit during its first minutes.

Generates a random waypoint flight (a looped path over the terrain's data area, at a random
height and pitch), starts `mpiexec -n RANKS bfv render --headless` on it, and every --sample-s
seconds prints each rank's resident memory (VmRSS) and open file descriptors. During the first
--chaos-minutes after frames flow it stops a random rank (SIGSTOP) for a random time under half
the stall limit, then continues it (SIGCONT), one stop after another. At --minutes it ends the
run with SIGINT (bfv writes its complete "interrupted" report) and prints, per sample period, the
FPS from the report's frame times beside the memory and descriptors; the stops and the longest
frames.

Exit status 0 when the run ended cleanly with its report (end "interrupted", by this script) and
no rank's descriptors grew from the first sample to the last; 1 otherwise, with the reason. It
signals only the processes it started (mpiexec and the ranks under it, found by parent id).

Usage: bench/soak.py [--minutes 60] [--chaos-minutes 10] [--sample-s 60] [--ranks 4]
                     [--size 1280x720] [--stall-timeout 10] [--seed 1] [--out out/soak]
                     [--bfv build/tools/bfv] [--terrain assets/jacksboro.bfvp]
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def terrain_extent_m(bfv, terrain):
    """The data area's east-west and south-north extent, metres, from `bfv info`."""
    info = subprocess.run([bfv, "info", terrain], capture_output=True, text=True, check=True)
    for line in info.stdout.splitlines():
        if line.strip().startswith("extent"):
            parts = line.split()
            return float(parts[1]) * 1000.0, float(parts[3]) * 1000.0
    raise SystemExit(f"soak: no extent in `bfv info {terrain}`")


def random_flight(rng, widthM, depthM, path):
    """A looped flight of 12 random waypoints at least 2 km inside the data area."""
    margin = 2000.0
    points = [[round(rng.uniform(margin, widthM - margin)), round(rng.uniform(margin, depthM - margin))]
              for _ in range(12)]
    flight = {"waypoints": points, "loop": True, "aglM": round(rng.uniform(150, 1500)),
              "pitchDeg": round(rng.uniform(-45, -8)), "speedMPerS": round(rng.uniform(20, 120))}
    with open(path, "w") as f:
        json.dump(flight, f)
    return flight


def stat_fields(pid):
    """The fields of /proc/PID/stat after the process's name: [state, ppid, ...]; OSError when
    the process is gone."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    return stat[stat.rfind(")") + 2:].split()


def children_of(pid):
    """Every process under `pid` (by parent id, from /proc)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents.setdefault(int(stat_fields(entry)[1]), []).append(int(entry))
            except OSError:
                pass
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def ranks_of(mpiexec_pid, bfv):
    """The bfv ranks under mpiexec as {rank: pid}, from each process's PMI_RANK (not their
    keepers, see pipeline/rank_keeper.h)."""
    ranks = {}
    for pid in children_of(mpiexec_pid):
        try:
            if os.path.realpath(f"/proc/{pid}/exe") != os.path.realpath(bfv):
                continue
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() == "bfv keeper":  # the rank's parent (rank_keeper.h)
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)
            ranks[int(env[b"PMI_RANK"])] = pid
        except (OSError, KeyError, ValueError):
            pass
    return ranks


def sample(ranks):
    """{rank: (VmRSS MiB, open descriptors)} of the live ranks."""
    out = {}
    for rank, pid in ranks.items():
        try:
            with open(f"/proc/{pid}/status") as f:
                rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024.0
            out[rank] = (rss, len(os.listdir(f"/proc/{pid}/fd")))
        except (OSError, StopIteration):
            pass
    return out


def role(rank, n):
    return "server" if rank == 0 else "display" if rank == n - 1 else "tracer"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--chaos-minutes", type=float, default=10.0)
    parser.add_argument("--sample-s", type=float, default=60.0)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--stall-timeout", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=os.path.join(root, "out", "soak"))
    parser.add_argument("--bfv", default=os.path.join(root, "build", "tools", "bfv"))
    parser.add_argument("--terrain", default=os.path.join(root, "assets", "jacksboro.bfvp"))
    args = parser.parse_args()
    if args.minutes <= 0 or args.sample_s <= 0 or args.ranks < 3 or args.stall_timeout < 2:
        raise SystemExit("soak: --minutes and --sample-s must be > 0, --ranks >= 3, "
                         "--stall-timeout >= 2")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    flight_path = os.path.join(args.out, "flight.json")
    flight = random_flight(rng, *terrain_extent_m(args.bfv, args.terrain), flight_path)
    print(f"soak: {args.minutes:g} min, N = {args.ranks}, {args.size}, flight {flight_path} "
          f"(agl {flight['aglM']} m, pitch {flight['pitchDeg']} deg, {flight['speedMPerS']} m/s), "
          f"stops during the first {args.chaos_minutes:g} min", flush=True)
    log_path = os.path.join(args.out, "render.log")
    with open(log_path, "w") as log:
        run = subprocess.Popen(
            ["mpiexec", "-n", str(args.ranks), args.bfv, "render", "--headless", "--terrain",
             args.terrain, "--flight", flight_path, "--size", args.size, "--frames", "10000000",
             "--png-every", "0", "--stall-timeout", f"{args.stall_timeout:g}", "--out", args.out],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    start = time.monotonic()
    ranks = {}
    while len(ranks) < args.ranks and time.monotonic() - start < 60 and run.poll() is None:
        time.sleep(0.2)
        ranks = ranks_of(run.pid, args.bfv)
    # Stops begin once frames flow (after the terrain server's preload of the first view): a stop
    # during start-up would show in no frame's time.
    while time.monotonic() - start < 120 and run.poll() is None:
        with open(log_path, errors="replace") as f:
            if "preloaded the first view" in f.read():
                break
        time.sleep(0.2)
    ranks = ranks_of(run.pid, args.bfv)  # each rank's own process, now under its keeper
    samples, stops = [], []
    next_sample = start + args.sample_s
    end = start + args.minutes * 60.0
    chaos_end = time.monotonic() + args.chaos_minutes * 60.0
    try:
        while run.poll() is None and time.monotonic() < end:
            now = time.monotonic()
            if now < chaos_end and ranks:
                rank = rng.choice(sorted(ranks))
                held = rng.uniform(0.1, 0.45) * args.stall_timeout
                os.kill(ranks[rank], signal.SIGSTOP)
                time.sleep(min(held, max(end - time.monotonic(), 0.0)))
                os.kill(ranks[rank], signal.SIGCONT)
                stops.append((rank, held))
                time.sleep(rng.uniform(1.0, 5.0))
            else:
                time.sleep(min(0.5, max(end - now, 0.0)))
            if time.monotonic() >= next_sample:
                now = sample(ranks)
                samples.append((time.monotonic() - start, now))
                cells = "  ".join(f"{role(r, args.ranks)}{r} {rss:.1f} MiB {fds} fds"
                                  for r, (rss, fds) in sorted(now.items()))
                print(f"soak: {samples[-1][0] / 60:6.2f} min  {cells}", flush=True)
                next_sample += args.sample_s
    finally:
        for rank, pid in ranks.items():
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        if run.poll() is None:
            os.kill(run.pid, signal.SIGINT)
        try:
            code = run.wait(timeout=args.stall_timeout * 3 + 30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            code = run.wait()
    failures = []
    report_path = os.path.join(args.out, "report.json")
    if not os.path.exists(report_path):
        raise SystemExit(f"soak: FAILED: no report.json (mpiexec exit {code}; see {log_path})")
    with open(report_path) as f:
        report = json.load(f)
    if report["end"] != "interrupted" or code not in (0, 130):
        failures.append(f"the run ended '{report['end']}' ({report.get('endReason', '')}), "
                        f"mpiexec exit {code}, not interrupted at the end by this script")
    times = report["frameTimesS"]
    print(f"soak: {len(times)} frames in {sum(times):.1f} s; per period (FPS from the report's "
          f"frame times):")
    elapsed, k = 0.0, 0
    for t, now in samples:
        count, spent = 0, 0.0
        while k < len(times) and elapsed + times[k] <= t:
            elapsed += times[k]
            spent += times[k]
            count += 1
            k += 1
        rss = " ".join(f"{rss:.1f}" for _, (rss, _) in sorted(now.items()))
        fds = " ".join(str(fd) for _, (_, fd) in sorted(now.items()))
        fps = count / spent if spent > 0 else 0.0
        print(f"  {t / 60:6.2f} min  FPS {fps:6.1f}  RSS MiB by rank {rss}  fds {fds}")
    if len(samples) >= 2:
        first, last = samples[0][1], samples[-1][1]
        for rank in sorted(first):
            if rank in last and last[rank][1] > first[rank][1]:
                failures.append(f"rank {rank}'s descriptors grew {first[rank][1]} -> {last[rank][1]}")
        print("soak: RSS MiB first -> last sample: " + ", ".join(
            f"{role(r, args.ranks)}{r} {first[r][0]:.1f} -> {last[r][0]:.1f}"
            for r in sorted(first) if r in last))
    if stops:
        longest_frame = max(times)
        held_by_frames = [h for r, h in stops if role(r, args.ranks) != "server"]
        print(f"soak: {len(stops)} stops, {sum(h for _, h in stops):.1f} s in all (longest "
              f"{max(h for _, h in stops):.2f} s); frames longer than 0.5 s: "
              f"{sum(1 for t in times if t > 0.5)}, the longest {longest_frame:.2f} s")
        if held_by_frames and longest_frame < 0.8 * max(held_by_frames):
            failures.append(f"the longest frame ({longest_frame:.2f} s) does not show the longest "
                            f"stop of a tracer or the display ({max(held_by_frames):.2f} s)")
    for failure in failures:
        print(f"soak: FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
