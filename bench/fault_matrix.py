#!/usr/bin/python3
"""The fault matrix: every role x signal at N ranks, how each run ended and whom it blamed.

For each N of --ranks, each role of --roles (server: rank 0, tracer: rank 1, display: rank N-1,
mpiexec: the launcher) and each fault of --faults (KILL, STOP, INT, TERM, and INT2: two SIGINTs
at once, a terminal's double Ctrl-C), starts a long headless run, `mpiexec -n N bfv render
--headless --stall-timeout T`, delivers the fault --after-s seconds after frames flow (after the
terrain server's "preloaded the first view" line), and waits for the job to end. A stopped rank
is killed (SIGKILL) once the job has had --grace-s seconds past three stall limits to end without
it (mpiexec waits for every process).

Prints one row per run: the time from the fault to mpiexec's exit, its exit code, bfv's first
message line (else the launcher's), report.json's "end" and the rank and role its endReason
names, and whether that is right: a kill or a stop must be blamed on the rank that was hit,
by every rank's message and by the report (end "lost" or "stalled"); an interrupt must end
"interrupted" with exit 128 + the signal (or mpiexec's 255 after a double SIGINT to it: Hydra's
force abort). The report is read once every rank's process has ended (they may outlive mpiexec
by up to two seconds after a force abort). Exit status 0 when every row is right, 1 otherwise.
Signals only the processes it started (found by parent id, as bench/soak.py does).

Usage: bench/fault_matrix.py [--ranks 4 5] [--roles server tracer display mpiexec]
                             [--faults KILL STOP INT TERM INT2] [--stall-timeout 5]
                             [--after-s 3] [--grace-s 5] [--size 320x180]
                             [--out out/fault-matrix] [--bfv build/tools/bfv]
                             [--mpiexec-args ''] [--markdown]
"""
import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

from soak import ranks_of, root, stat_fields

ROLE_NAMES = {"server": "terrain server", "tracer": "ray tracer", "display": "display"}
SIGNALS = {"KILL": signal.SIGKILL, "STOP": signal.SIGSTOP, "INT": signal.SIGINT,
           "TERM": signal.SIGTERM, "INT2": signal.SIGINT}
ORPHAN_GRACE_S = 2.0  # kOrphanGraceS in pipeline/rank_keeper.h
BLAME = re.compile(r"(terrain server|ray tracer|display) rank (\d+)")


def target_rank(role, n):
    """The rank a fault to `role` hits at N = `n` (None: the launcher)."""
    return {"server": 0, "tracer": 1, "display": n - 1}.get(role)


def deliver(fault, pid):
    """Sends `fault` to `pid` (INT2: SIGINT twice at once)."""
    os.kill(pid, SIGNALS[fault])
    if fault == "INT2":
        os.kill(pid, signal.SIGINT)


def message_line(text, ranks, rank=None):
    """bfv's first line about how the run ended ("[r3 display] bfv render: stalled: ...", or the
    summary's "ended after N frames: interrupted by SIGINT"; not a keeper's line about another
    rank than `rank`, see blamed_lines), else a rank's first message, else what the launcher
    (Hydra) or UCX said, its PID named as a rank from `ranks` ({rank: pid})."""
    lines = [l.strip() for l in text.splitlines()
             if l.strip() and not collateral(l, rank)]
    for line in lines:
        if re.match(r"\[r\d+ \w+\] bfv render: (stalled|lost):", line) or "ended after" in line:
            return line
    for line in lines:
        if re.match(r"\[r\d+ \w+\] bfv", line):
            return line
    said = []
    if m := re.search(r"PID (\d+) RUNNING AT \S+\s*=\s*EXIT CODE: (\d+)", text):
        rank = {pid: r for r, pid in ranks.items()}.get(int(m.group(1)), "?")
        said.append(f"Hydra: BAD TERMINATION, PID {m.group(1)} (rank {rank}), EXIT CODE {m.group(2)}")
    if m := re.search(r"process_vm_readv\(pid=(\d+).*?: (.*)", text):
        rank = {pid: r for r, pid in ranks.items()}.get(int(m.group(1)), "?")
        said.append(f"UCX: process_vm_readv of rank {rank}: {m.group(2)} (backtrace)")
    if m := re.search(r"EXIT STRING: (.*)", text):
        said.append(f"Hydra: {m.group(1).strip()}")
    if said:
        return "; ".join(said)
    return lines[-1] if lines else ""


def collateral(line, rank):
    """Whether `line` is a keeper's about its own rank, another than `rank` ("[r3 display] bfv
    render: lost: display rank 3 ... was ended by SIGABRT": UCX may end a rank that reads the
    lost one's memory)."""
    m = BLAME.search(line.split(":", 1)[-1])
    return ") was ended by SIG" in line and m is not None and int(m.group(2)) != rank


def blamed_lines(text, rank):
    """Every rank's line that blames one ("stalled: ..." or "lost: ..."), as (line, rank named),
    but the collateral ones (see collateral) when `rank` was hit."""
    found = []
    for line in text.splitlines():
        if ("stalled:" in line or "lost:" in line) and (m := BLAME.search(line.split(":", 1)[-1])):
            if collateral(line, rank):
                continue
            found.append((line.strip(), int(m.group(2))))
    return found


def wait_for_ranks(ranks, limit_s=ORPHAN_GRACE_S + 1.0):
    """Waits until every rank's process of `ranks` ({rank: pid}) has ended, at most `limit_s`:
    after Hydra's force abort (a second SIGINT to mpiexec) the ranks outlive mpiexec by up to
    kOrphanGraceS (pipeline/rank_keeper.h) while they end and write the report."""
    def running(pid):
        try:
            return stat_fields(pid)[0] != "Z"
        except OSError:
            return False

    start = time.monotonic()
    while time.monotonic() - start < limit_s and any(running(p) for p in ranks.values()):
        time.sleep(0.02)


def run_one(args, n, role, fault, out):
    """Runs one cell of the matrix; returns its row as a dict."""
    os.makedirs(out, exist_ok=True)
    for stale in ("report.json",):
        if os.path.exists(os.path.join(out, stale)):
            os.remove(os.path.join(out, stale))
    command = (["mpiexec"] + shlex.split(args.mpiexec_args) +
               ["-n", str(n), args.bfv, "render", "--headless", "--terrain", args.terrain,
                "--frames", "10000000", "--png-every", "0", "--size", args.size,
                "--stall-timeout", f"{args.stall_timeout:g}", "--out", out])
    log_path = os.path.join(out, "run.log")
    with open(log_path, "w") as log:
        run = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    start = time.monotonic()
    while time.monotonic() - start < 120 and run.poll() is None:  # frames flow after the preload
        with open(log_path, errors="replace") as f:
            if "preloaded the first view" in f.read():
                break
        time.sleep(0.2)
    time.sleep(args.after_s)
    ranks = ranks_of(run.pid, args.bfv)  # each rank's own process, now under its keeper
    with open(os.path.join(out, "ranks.json"), "w") as f:
        json.dump(ranks, f)
    rank = target_rank(role, n)
    hit = run.pid if rank is None else ranks.get(rank)
    row = {"n": n, "role": role, "fault": fault, "rank": rank}
    if run.poll() is not None or hit is None:
        row.update(seconds=float("nan"), code=run.poll(), message="(no run to fault)", end="-",
                   named="-", right=False)
        return row
    faulted = time.monotonic()
    deliver(fault, hit)
    limit_s = 3 * args.stall_timeout + args.grace_s
    try:
        code = run.wait(timeout=limit_s)
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
        for pid in ranks.values():  # a stopped rank the launcher waits for
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            code = run.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            code = run.wait()
    seconds = time.monotonic() - faulted
    wait_for_ranks(ranks)
    with open(log_path, errors="replace") as f:
        text = f.read()
    report, named = {}, None
    try:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        if m := BLAME.search(report.get("endReason", "")):
            named = (m.group(1), int(m.group(2)))
    except (OSError, ValueError):
        pass
    end = report.get("end", "none")
    if fault in ("KILL", "STOP"):
        blamed = blamed_lines(text, rank)
        right = (code not in (0, None) and not hung and end in ("lost", "stalled") and
                 named == (ROLE_NAMES.get(role), rank) and
                 all(r == rank for _, r in blamed))
        wrong = sorted({r for _, r in blamed if r != rank})
        note = f"; lines blaming rank {wrong}" if wrong else ""
    else:
        # A second SIGINT to mpiexec is Hydra's force abort, after which mpiexec exits 255
        # whatever the ranks did; they write the report all the same (rank_keeper.h).
        expected = {128 + SIGNALS[fault]}
        if (role, fault) == ("mpiexec", "INT2"):
            expected.add(255)
        right = end == "interrupted" and code in expected and not hung
        note = ""
    row.update(seconds=seconds, code=code, message=message_line(text, ranks, rank)[:160] + note,
               end=end + (" (hung: killed)" if hung else ""),
               named=f"{named[0]} {named[1]}" if named else "-", right=right)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[4, 5])
    parser.add_argument("--roles", nargs="+", default=["server", "tracer", "display", "mpiexec"],
                        choices=["server", "tracer", "display", "mpiexec"])
    parser.add_argument("--faults", nargs="+", default=list(SIGNALS), choices=list(SIGNALS))
    parser.add_argument("--stall-timeout", type=float, default=5.0)
    parser.add_argument("--after-s", type=float, default=3.0)
    parser.add_argument("--grace-s", type=float, default=5.0)
    parser.add_argument("--size", default="320x180")
    parser.add_argument("--out", default=os.path.join(root, "out", "fault-matrix"))
    parser.add_argument("--bfv", default=os.path.join(root, "build", "tools", "bfv"))
    parser.add_argument("--terrain", default=os.path.join(root, "assets", "jacksboro.bfvp"))
    parser.add_argument("--mpiexec-args", default="",
                        help="launcher options before -n, e.g. '-disable-auto-cleanup'")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    if min(args.ranks) < 3 or args.stall_timeout < 2 or args.after_s < 0:
        raise SystemExit("fault_matrix: --ranks >= 3, --stall-timeout >= 2, --after-s >= 0")
    rows = []
    header = ["N", "role", "fault", "exit s", "code", "report end", "report names", "right",
              "message"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    for n in args.ranks:
        for role in args.roles:
            for fault in args.faults:
                if role == "mpiexec" and fault in ("KILL", "STOP"):
                    continue  # the launcher's own death is not the renderer's to report
                row = run_one(args, n, role, fault,
                              os.path.join(args.out, f"n{n}-{role}-{fault}"))
                rows.append(row)
                who = role if row["rank"] is None else f"{role} {row['rank']}"
                cells = [str(n), who, fault, f"{row['seconds']:.1f}", str(row["code"]),
                         row["end"], row["named"], "yes" if row["right"] else "NO",
                         row["message"]]
                if args.markdown:
                    print("| " + " | ".join(c.replace("|", "/") for c in cells) + " |", flush=True)
                else:
                    print("  ".join(cells), flush=True)
    wrong = [r for r in rows if not r["right"]]
    print(f"fault_matrix: {len(rows) - len(wrong)} of {len(rows)} runs right")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
