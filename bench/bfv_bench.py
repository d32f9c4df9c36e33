#!/usr/bin/python3
"""bfv bench: measured frame rate against the predictor, for every N.

Sweeps N (and optionally screen size, columns per message, display receive threads, screen
decomposition and column codec) for deployments:
  sequential  one process, one thread        threaded  one process, --threads T
  mpi         mpiexec on this host           cluster   mpiexec -f HOSTFILE (give --machine)
  emulated    the emulated cluster of tools/emulated-cluster (give --emulated DESCRIPTION)
Each configuration flies the same headless flight with --terrain-sync (every frame has all the
tiles it wants, so every deployment does the same work); warm-up frames are excluded; R repetitions
run interleaved (every configuration once, then again: Parker's CLUE method), keeping the best
and the median FPS. The emulated cluster's links are calibrated once (bfv commbench link
profiles); the hosts are calibrated again at the start of every round (the sequential resource
profile, the host's measured capacity, the shared-memory link with the CPU of waiting, and on
the emulated cluster each host's CPU quota), so a machine whose speed drifts is calibrated when
it is measured; --profile/--machine skip these. `bfv predict` predicts
every N from each round's calibration. The best FPS is compared with the best round's
prediction, the median with the median. Writes OUT/results.csv, OUT/results.json and plots
(fps_vs_n.png, scaling.png), and keeps the calibration (profiles, link profiles, machine
descriptions) in OUT/calibration/; prints a table per N and the mean and worst error, and
beside them the noise they stand against: the spread of each configuration's rounds, and every
run against its own round's prediction (mean: the model's bias; standard deviation: its scatter).

Results are rewritten whole (temp file, then rename) after every finished round, so an
interrupted sweep keeps what it finished. Ctrl-C or SIGTERM stops the running command and all it
started (each runs in a process group of its own) and tears the emulated clusters down.
"""

import argparse
import csv
import io
import itertools
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BFV = os.path.join(ROOT, "build", "tools", "bfv")
EMULATED = os.path.join(ROOT, "tools", "emulated-cluster")
RUN_TIMEOUT_S = 600
EMULATED_QUOTA_PERIOD_S = 0.01  # the CFS period tools/emulated-cluster gives every host
QUOTA_MEASURE_S = 0.5  # unthrottled seconds of frames a quota measurement spans at least (50 periods)


def fail(message):
    print(f"bfv bench: {message}", file=sys.stderr)
    sys.exit(1)


def int_list(text, what):
    """'3-8' or '3,4,8' -> [3, ..]."""
    try:
        if "-" in text:
            lo, hi = (int(v) for v in text.split("-", 1))
            values = list(range(lo, hi + 1))
        else:
            values = [int(v) for v in text.split(",")]
    except ValueError:
        fail(f"{what}: expected a range like 3-8 or a list like 3,4,8, got '{text}'")
    if not values:
        fail(f"{what}: '{text}' is empty")
    return values


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench/bfv_bench.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  bench/bfv_bench.py --deployment mpi --n 3-6 --size 640x360\n"
               "  bench/bfv_bench.py --deployment sequential --deployment threaded --deployment mpi\n"
               "  bench/bfv_bench.py --deployment emulated --emulated bench/machines/emu8.json --n 3-8\n"
               "  bench/bfv_bench.py --deployment emulated --emulated bench/machines/emu8-2nic.json"
               " --n 3-8 -K 2\n"
               "  bench/bfv_bench.py --deployment sequential --deployment threaded --deployment mpi"
               " \\\n      --deployment emulated --emulated bench/machines/emu8.json --n 3-8"
               "   (one table: one machine against the cluster)")
    p.add_argument("--deployment", action="append",
                   choices=["sequential", "threaded", "mpi", "cluster", "emulated"],
                   help="deployment to measure (repeatable; default mpi)")
    p.add_argument("--n", default="3-6", help="ranks to sweep: 3-8 or 3,4,8 (default 3-6)")
    p.add_argument("--size", default="640x360", help="screen sizes, comma-separated")
    p.add_argument("--columns-per-message", default="16", help="MSGZ in columns, comma-separated")
    p.add_argument("-K", "--receive-threads", default="1", help="display receive threads, comma-separated")
    p.add_argument("--decomposition", default="contiguous", help="contiguous,interleaved,dynamic")
    p.add_argument("--column-codec", default="none",
                   help="column compression, comma-separated: none,lz4,zstd (default none)")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for 'threaded'")
    p.add_argument("--frames", type=int, default=200, help="frames per run (default 200)")
    p.add_argument("--warmup", type=int, default=20, help="warm-up frames excluded (default 20)")
    p.add_argument("--repetitions", type=int, default=3, help="interleaved repetitions (default 3)")
    p.add_argument("--hostfile", help="MPICH hostfile for 'cluster'")
    p.add_argument("--machine", help="machine description for 'cluster' (or to skip calibration)")
    p.add_argument("--emulated", help="emulated cluster description for 'emulated'")
    p.add_argument("--profile", help="saved resource profile (skips measuring it)")
    p.add_argument("--quick-calibration", action="store_true",
                   help="short calibration runs (smoke tests)")
    p.add_argument("--out", default=os.path.join(ROOT, "out", "bench", time.strftime("%Y%m%d-%H%M%S")))
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    a = p.parse_args(argv)
    a.deployment = a.deployment or ["mpi"]
    a.one_host_fps = {}  # size -> the sequential program's FPS on one emulated host, per round
    a.out = os.path.abspath(a.out)
    for name in ("profile", "machine", "hostfile", "emulated"):
        if getattr(a, name):
            setattr(a, name, os.path.abspath(getattr(a, name)))
    a.ns = int_list(a.n, "--n")
    if min(a.ns) < 3:
        fail("--n: MPI deployments need N >= 3 (server, tracer, display)")
    a.sizes = a.size.split(",")
    for s in a.sizes:
        w, _, h = s.partition("x")
        if not (w.isdigit() and h.isdigit()):
            fail(f"--size: expected WIDTHxHEIGHT, got '{s}'")
    a.cpms = int_list(a.columns_per_message, "--columns-per-message")
    a.ks = int_list(a.receive_threads, "-K")
    a.decompositions = a.decomposition.split(",")
    if any(d not in ("contiguous", "interleaved", "dynamic") for d in a.decompositions):
        fail("--decomposition: contiguous, interleaved or dynamic")
    a.codecs = a.column_codec.split(",")
    if any(c not in ("none", "lz4", "zstd") for c in a.codecs):
        fail("--column-codec: none, lz4 or zstd")
    if a.frames <= a.warmup or a.repetitions < 1:
        fail("--frames must exceed --warmup, and --repetitions be >= 1")
    if "cluster" in a.deployment and not (a.hostfile and a.machine):
        fail("the cluster deployment needs --hostfile and --machine")
    if "emulated" in a.deployment and not a.emulated:
        fail("the emulated deployment needs --emulated DESCRIPTION.json")
    if not os.access(BFV, os.X_OK):
        fail(f"{BFV} is missing: build first (tools/build.sh)")
    if not a.no_plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            fail("the plots need matplotlib (Debian: python3-matplotlib, run with /usr/bin/python3)"
                 " or pass --no-plots")
    return a


def start(command, env=None):
    """Starts a command in a session (process group) of its own, its output piped: a Ctrl-C at
    the terminal reaches the bench alone, which then stops the whole group (finish)."""
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, start_new_session=True)


def stop_group(process):
    """Stops a started command and everything it started: SIGINT to its group (bfv's ranks and
    tools/emulated-cluster end cleanly on it), then SIGKILL to what is left after 10 s."""
    for sig, grace_s in ((signal.SIGINT, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace_s)
            return
        except subprocess.TimeoutExpired:
            pass


def finish(process, command):
    """A started command's stdout once it has ended; a failure or RUN_TIMEOUT_S ends the bench
    with its stderr. Interrupted (KeyboardInterrupt: a Ctrl-C, or a SIGTERM, which the bench
    turns into one), it stops the command's group before passing the interrupt on, so that no
    mpiexec or rank outlives the bench."""
    try:
        out, err = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        stop_group(process)
        fail(f"timed out after {RUN_TIMEOUT_S} s: {' '.join(command)}")
    except BaseException:
        stop_group(process)
        raise
    if process.returncode != 0:
        fail(f"failed ({process.returncode}): {' '.join(command)}\n{err.strip()}")
    return out


def run(command, env=None, quiet=True):
    """Runs a command (start, finish), returns its stdout."""
    out = finish(start(command, env), command)
    if not quiet:
        print(out, end="")
    return out


def write_atomic(path, text_or_bytes):
    mode = "wb" if isinstance(text_or_bytes, bytes) else "w"
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, mode) as f:
        f.write(text_or_bytes)
    os.replace(tmp, path)


# --- configurations -------------------------------------------------------------------------

def configurations(a):
    """Every (deployment, n, size, cpm, k, decomposition, codec) to measure; N = 1 for single
    process."""
    configs = []
    for dep in a.deployment:
        if dep in ("sequential", "threaded"):
            for size in a.sizes:
                configs.append({"deployment": dep, "n": 1, "size": size, "cpm": a.cpms[0],
                                "k": 1, "decomposition": "contiguous", "codec": "none"})
            continue
        for n, size, cpm, k, dec, codec in itertools.product(a.ns, a.sizes, a.cpms, a.ks,
                                                             a.decompositions, a.codecs):
            configs.append({"deployment": dep, "n": n, "size": size, "cpm": cpm, "k": k,
                            "decomposition": dec, "codec": codec})
    return configs


CONFIG_FIELDS = ["deployment", "n", "size", "cpm", "k", "decomposition", "codec"]


def key(c):
    return (c["deployment"], c["n"], c["size"], c["cpm"], c["k"], c["decomposition"], c["codec"])


# Every run, calibration included, renders with --terrain-sync: each frame then has every tile
# it wants, in every deployment, so the work measured is the work profiled. With the live
# stream, how much fine terrain a frame draws depends on how far the stream has got (on the
# run's own frame rate), and the profile would not describe the runs.
TERRAIN = ["--terrain-sync"]


def render_command(a, c, out_dir):
    flags = ["render", "--headless"] + TERRAIN + [ "--frames", str(a.frames), "--warmup", str(a.warmup),
             "--size", c["size"], "--columns-per-message", str(c["cpm"]),
             "--receive-threads", str(c["k"]), "--decomposition", c["decomposition"],
             "--column-codec", c["codec"],
             "--png-every", "0", "--out", out_dir]
    dep = c["deployment"]
    if dep == "sequential":
        return [BFV] + flags + ["--sequential"]
    if dep == "threaded":
        return [BFV] + flags + ["--sequential", "--threads", str(a.threads)]
    mpi = ["mpiexec", "-n", str(c["n"])]
    if dep == "cluster":
        mpi += ["-f", a.hostfile]
    if dep == "emulated":
        mpi += ["-f", emulated_hostfile(a, c["n"])]
    command = mpi + [BFV] + flags
    if dep == "emulated":
        command = [EMULATED, "run", a.emulated_name, "--"] + command
    return command


def emulated_hostfile(a, n, names=None):
    """A hostfile for N ranks on the emulated cluster: its first N-1 hosts, then the display's
    (the cluster's own hostfile puts the display last), one slot each. With `names`, the same
    placement written with those host names (for bfv predict's machine description)."""
    with open(os.path.join(a.emulated_run_dir, "hostfile")) as f:
        hosts = [line.split(":")[0].strip() for line in f if line.strip() and not line.startswith("#")]
    if n > len(hosts):
        fail(f"--n {n}: the emulated cluster has only {len(hosts)} hosts")
    hosts = names or hosts
    chosen = hosts[: n - 1] + [hosts[-1]]
    path = os.path.join(a.scratch, f"hostfile-{n}{'-predict' if names else ''}")
    write_atomic(path, "".join(f"{h}:1\n" for h in chosen))
    return path


def measure(a, c, scratch):
    out_dir = os.path.join(scratch, "run")
    run(render_command(a, c, out_dir))
    with open(os.path.join(out_dir, "report.json")) as f:
        report = json.load(f)
    times = report["frameTimesS"][a.warmup:]
    binding = report.get("measuredBinding") or {}
    return {"fps": report["fps"]["mean"], "frameTimesS": times,
            "slices": [s["columnsMean"] for s in report.get("slices", [])],
            "imbalance": report.get("traceImbalanceMean"),
            "bindingRole": binding.get("role"),
            "busiestTracerIdleShare": binding.get("busiestTracerIdleShare")}


# --- calibration and prediction -------------------------------------------------------------

def sequential_fps(size, frames, warmup, threads, out_dir, profile=None):
    command = [BFV, "render", "--sequential", "--headless"] + TERRAIN + ["--frames", str(frames),
               "--warmup", str(warmup), "--size", size, "--png-every", "0",
               "--threads", str(threads), "--out", out_dir]
    if profile:
        command += ["--profile", profile]
    for line in run(command).splitlines():
        if "FPS mean" in line:
            return float(line.split()[2])
    fail("no FPS in the sequential run's summary")


def trace_wall_s(out_dir):
    """Wall seconds the sequential run in `out_dir` spent tracing (its report.json)."""
    with open(os.path.join(out_dir, "report.json")) as f:
        return json.load(f)["ranks"][0]["activities"]["trace"]["wallS"]


def profile_frames(a):
    """(frames, warm-up frames) of the calibration's sequential runs: the measured runs' own."""
    return (40, 10) if a.quick_calibration else (a.frames, a.warmup)


def calibrate_host(a, size, cal_dir, rep):
    """Round `rep`'s sequential profile at `size` and this host's capacity: (profile path,
    capacity in cores, sequential FPS). The profile covers the runs' own frames (--frames, less
    --warmup), so that it describes the views they render: the flight's views differ up to 3x
    in cost. The capacity is how much faster the same frames' trace, the part --threads
    spreads over the cores, runs on every core than on one (the rest of a frame stays on one)."""
    frames, warmup = profile_frames(a)
    profile = a.profile or os.path.join(cal_dir, f"profile-{size}-r{rep + 1}.json")
    one_dir, cores = os.path.join(a.scratch, "seq1"), os.cpu_count()
    every_dir = os.path.join(a.scratch, f"seq{cores}")
    one = sequential_fps(size, frames, warmup, 1, one_dir, None if a.profile else profile)
    sequential_fps(size, frames, warmup, cores, every_dir)
    capacity = trace_wall_s(one_dir) / trace_wall_s(every_dir)
    return profile, min(float(cores), max(1.0, capacity)), one


def commbench(cal_dir, name, launcher, quick, tag=""):
    """Runs bfv commbench for the link `name` (through `launcher`, if any) into
    CAL_DIR/link-NAME[TAG]/ and returns its link_profile.json."""
    out_dir = os.path.join(cal_dir, f"link-{name}{tag}")
    command = launcher + ["mpiexec", "-n", "2", BFV, "commbench", "--name", name, "--out", out_dir]
    run(command + (["--quick"] if quick else []))
    return os.path.join(out_dir, "link_profile.json")


def calibrate_links(a, configs):
    """The emulated cluster's link profiles, measured once before the rounds (their rates are
    the description's): a.links[deployment] = {name: link_profile.json}. Shared memory is
    measured in every round instead (calibrate_shm)."""
    a.links = {}
    if a.machine:
        return
    for dep in sorted({c["deployment"] for c in configs} & {"mpi", "emulated"}):
        a.links[dep] = emulated_links(a, a.calibration_dir) if dep == "emulated" else {}


def calibrate_shm(a, rep):
    """Round `rep`'s shared-memory link profile, for every MPI deployment: its costs per message
    and the CPU of waiting, which drifts with the machine as the CPU does (two sweeps of this
    2-core host 20 minutes apart measured it 1.5-2x apart, and at N >= 4 it decides the host
    term), so it is measured with the round's other calibration."""
    if a.machine or not a.links:
        return
    progress(f"round {rep + 1}: calibrating the shared-memory link (message costs, waits)")
    shm = commbench(a.calibration_dir, "shm", [], a.quick_calibration, f"-r{rep + 1}")
    for links in a.links.values():
        links["shm"] = shm


def machine_for(a, dep, size, capacity, profile_fps, rep):
    """The machine description bfv predict needs for a deployment at a screen size in round
    `rep`, from that round's host calibration at that size; written into the calibration
    directory as machine-DEP-SIZE-rREP.json."""
    if a.machine:
        return a.machine
    links = a.links[dep]
    if dep == "mpi":
        machine = {"name": "this machine", "intraHostLink": "shm", "links": links,
                   "hosts": [{"name": "localhost", "cores": os.cpu_count(),
                              "capacityCores": round(capacity, 3)}]}
    else:  # emulated: one host per rank, each a core of this machine under its measured quota, and its link
        machine = emulated_machine(a, links, size, profile_fps)
    path = os.path.join(a.calibration_dir, f"machine-{dep}-{size}-r{rep + 1}.json")
    write_atomic(path, json.dumps(machine, indent=2))
    return path


def link_name(rate_mbit):
    """The machine description's name of the emulated link at a rate (None: uncapped)."""
    return "emulated-uncapped" if rate_mbit is None else f"emulated-{rate_mbit:g}mbit"


def group_rates(desc):
    """Each host group's link rate in hostfile order, then the display's (its NICs' rate, by
    default the first group's), as tools/emulated-cluster gives them (None: uncapped)."""
    rates = [g.get("rateMbit") for g in desc["hosts"]]
    if "display" in desc:
        rates.append(desc["display"].get("rateMbit", rates[0]))
    return rates


def emulated_links(a, cal_dir):
    """A profile for every distinct link rate of the emulated cluster's description (its host
    groups' and the display's NICs'), each from bfv commbench on two hosts without a CPU quota
    (a ping-pong under a 10 ms-period quota measures the throttling, not the link; the quota
    is the hosts' cpuQuotaCores in the machine description instead):
    - on hosts with that link rate: MSGSETUP, ALCBW and the many-to-one rate;
    - once, on hosts without a rate cap: APBBW, the CPU cost per byte (eq. 19), which every
      capped profile takes. On a capped link a stream spends most of its time waiting for the
      link, and the receiver's CPU per byte then counts its wake-ups while waiting, 10 times
      what a busy receiver pays: that made the display's receive CPU bind at 21 FPS where the
      display reached 35 with 2 NICs.
    Writes CAL_DIR/link-<name>.json per rate; returns {link name: path} (names: link_name)."""
    with open(a.emulated) as f:
        desc = json.load(f)

    def measure_on(suffix, name, rate_mbit):
        cluster = desc["name"][:16] + suffix
        calibration = {"name": cluster, "hosts": [{"name": "h", "count": 2}]}
        if rate_mbit is not None:
            calibration["hosts"][0]["rateMbit"] = rate_mbit
        path = os.path.join(cal_dir, f"link-calibration-{suffix}.json")
        write_atomic(path, json.dumps(calibration))
        try:
            run([EMULATED, "up", path])
            profile = commbench(cal_dir, name, [EMULATED, "run", cluster, "--"], a.quick_calibration)
        finally:
            subprocess.run([EMULATED, "down", cluster], capture_output=True)
        with open(profile) as f:
            return json.load(f)

    rates = list(dict.fromkeys(group_rates(desc)))  # distinct, in order
    uncapped = measure_on("cpu", link_name(None), None)
    paths = {}
    for k, rate in enumerate(rates):
        progress(f"calibrating the links: {link_name(rate)}")
        if rate is None:
            link = uncapped
        else:
            link = measure_on(f"cal{k}", link_name(rate), rate)
            for side in ("apbbwSendBytesPerS", "apbbwReceiveBytesPerS"):
                link[side] = uncapped[side]
            busier = min(uncapped["apbbwSendBytesPerS"], uncapped["apbbwReceiveBytesPerS"])
            for params in [link["overall"]] + link["segments"]:
                params["apbbwBytesPerS"] = busier
        path = os.path.join(cal_dir, f"link-{link_name(rate)}.json")
        write_atomic(path, json.dumps(link, indent=2))
        paths[link_name(rate)] = path
    return paths


def emulated_cpu_quotas(a, hosts, size, profile_fps):
    """Each emulated host's effective CPU quota, in this machine's cores: the sequential
    program's FPS inside the host (under its CPU quota) over its FPS outside any host (one
    thread, just before), with every host of `hosts` (their names) running it at the same
    time; the median of three such rounds' ratios, each round's pair measured together so that
    the ratio does not mix two moments of a drifting machine. At the same time because the
    emulated hosts share this machine's cores and caches, as they do in a run (and it takes a
    third of the time of one host after another). Every host flies the profile's frames
    (profile_frames): the flight's views differ up to 3x in cost, so a host that flew fewer of
    them would measure other views' speed. When those take less than QUOTA_MEASURE_S at
    `profile_fps` (the sequential FPS outside), the flight goes on until they do: a quota is
    enforced per CFS period, so a run of a few periods measures where its frames fell in them
    (0.41-0.73 of a core for a quota of 0.5 over 30 frames at 160x90). A quota q gives a
    little less than q: CFS enforces it in slices, and throttled periods waste part of it."""
    frames, warmup = profile_frames(a)
    frames = max(frames, warmup + math.ceil(QUOTA_MEASURE_S * profile_fps))

    def command(host):
        return [EMULATED, "exec", a.emulated_name, host, "--", BFV, "render", "--sequential",
                "--headless"] + TERRAIN + ["--frames", str(frames), "--warmup", str(warmup),
                "--size", size, "--png-every", "0", "--out", os.path.join(a.scratch, f"cpu-{host}")]

    def fps_of(host, out):
        for line in out.splitlines():
            if "FPS mean" in line:
                return float(line.split()[2])
        fail(f"no FPS from the sequential run on {host}")

    def one_round():
        outside = sequential_fps(size, frames, warmup, 1, os.path.join(a.scratch, "cpu-outside"))
        started = {host: start(command(host)) for host in hosts}
        try:
            return outside, {host: fps_of(host, finish(p, command(host)))
                             for host, p in started.items()}
        finally:
            for p in started.values():
                if p.poll() is None:
                    stop_group(p)

    rounds = [one_round() for _ in range(3)]
    a.one_host_fps.setdefault(size, []).extend(
        statistics.median(inside[host] for _, inside in rounds) for host in hosts)
    return {host: min(1.0, statistics.median(inside[host] / outside for outside, inside in rounds))
            for host in hosts}


def emulated_machine(a, links, size, profile_fps):
    """The emulated cluster's machine description for screen `size`: each host's quota measured
    at that size (all hosts at once, emulated_cpu_quotas; `profile_fps`, the sequential
    program's FPS at that size, sets how many frames that takes)."""
    with open(a.emulated) as f:
        desc = json.load(f)
    with open(os.path.join(a.emulated_run_dir, "hostfile")) as f:
        names = [line.split(":")[0].strip() for line in f if line.strip()]
    groups = [(g, g.get("count", 1), g.get("nics", 1)) for g in desc["hosts"]]
    if "display" in desc:
        d = desc["display"]
        groups.append(({"cpu": d.get("cpu", desc["hosts"][0].get("cpu"))}, 1, d.get("nics", 1)))
    # Every host's NICs are links of its group's rate (emulated_links calibrated each rate).
    # A host is one of this machine's cores (cpuSpeed 1) under its group's quota.
    placed = []  # (name, cpu, nics, rate) in hostfile order
    for (group, count, nics), rate in zip(groups, group_rates(desc)):
        for _ in range(count):
            placed.append((names[len(placed)], group.get("cpu"), nics, rate))
    progress("measuring the emulated hosts' CPU quotas (every host at once)")
    quotas = emulated_cpu_quotas(a, [name for name, cpu, _, _ in placed if cpu is not None],
                                 size, profile_fps)
    hosts = []
    for name, cpu, nics, rate in placed:
        host = {"name": f"h{len(hosts)}", "cores": 1, "nics": [link_name(rate)] * nics}
        if quotas.get(name, 1.0) < 1.0:
            host.update(cpuQuotaCores=round(quotas[name], 4), quotaPeriodS=EMULATED_QUOTA_PERIOD_S)
        hosts.append(host)
    return {"name": desc.get("name", "emulated"), "intraHostLink": "shm", "hosts": hosts,
            "links": links}


def predict(a, c, profile, machine, cal_dir):
    out = os.path.join(cal_dir, "predict.json")
    command = [BFV, "predict", "--profile", profile, "--machine", machine, "--n", str(c["n"]),
               "--size", c["size"], "--columns-per-message", str(c["cpm"]), "--receive-threads",
               str(c["k"]), "--decomposition", c["decomposition"], "--column-codec", c["codec"],
               "--simulate", "--json", out]
    if c["deployment"] == "emulated":
        with open(machine) as f:
            names = [h["name"] for h in json.load(f)["hosts"]]
        command += ["--hostfile", emulated_hostfile(a, c["n"], names)]
    if c["deployment"] == "cluster":
        command += ["--hostfile", a.hostfile]
    run(command)
    with open(out) as f:
        doc = json.load(f)
    rows = {row["n"]: row for row in doc["rows"]}
    for sim in doc.get("simulated", []):
        rows[sim["n"]]["simulatedFps"] = sim["fps"]
    return rows


def calibrate_round(a, configs, rep):
    """Round `rep`'s calibration, run just before that round's measured runs (so that a
    drifting machine is calibrated at the moment it is measured): the host's profile and
    capacity at every size, and the shared-memory link, then the predicted FPS and binding
    term of every configuration."""
    predictions, hosts = {}, {}
    calibrate_shm(a, rep)
    for size in a.sizes:
        progress(f"round {rep + 1}: calibrating this host at {size} (sequential profile, capacity)")
        hosts[size] = calibrate_host(a, size, a.calibration_dir, rep)
    machines = {}
    for c in configs:
        profile, capacity, seq_fps = hosts[c["size"]]
        dep = c["deployment"]
        if dep in ("sequential", "threaded"):
            threads = 1 if dep == "sequential" else min(a.threads, capacity)
            predictions[key(c)] = {"fps": seq_fps * (1 if dep == "sequential" else _threaded_speedup(profile, threads)),
                                   "binding": "host cpu" if dep == "threaded" else "ray trace"}
            continue
        if (dep, c["size"]) not in machines:
            machines[(dep, c["size"])] = machine_for(a, dep, c["size"], capacity, seq_fps, rep)
        rows = predict(a, c, profile, machines[(dep, c["size"])], a.calibration_dir)
        predictions[key(c)] = {"fps": rows[c["n"]]["fps"], "binding": rows[c["n"]]["binding"],
                               "bindingRole": rows[c["n"]]["bindingRole"],
                               "comparisons": rows[c["n"]]["comparisons"],
                               "simulatedFps": rows[c["n"]].get("simulatedFps"),
                               "slices": rows[c["n"]].get("slices", [])}
    return predictions


def _threaded_speedup(profile, threads):
    """Eq. 21 for one process: the trace spreads over `threads` cores' worth, the display not."""
    with open(profile) as f:
        calc = json.load(f)["calculations"]
    trace, display = calc["rayTrace"]["rtexS"], calc["display"]["rtexS"]
    return (trace + display) / (trace / threads + display)


# --- the sweep ------------------------------------------------------------------------------

START_S = time.monotonic()


def progress(message):
    print(f"[{time.monotonic() - START_S:6.0f} s] {message}", file=sys.stderr, flush=True)


def sweep(a, configs, out_dir, scratch):
    """R rounds; each calibrates, predicts, then runs every configuration once (CLUE's
    interleaving), and rewrites the results."""
    results = {key(c): {**c, "fpsRuns": [], "predictions": [], "frameTimesS": []} for c in configs}
    total = len(configs) * a.repetitions
    done, run_s, calibration_s = 0, 0.0, []
    for rep in range(a.repetitions):
        round_started = time.monotonic()
        for k, p in calibrate_round(a, configs, rep).items():
            results[k]["predictions"].append(p)
        calibration_s.append(time.monotonic() - round_started)
        for c in configs:
            # Runs and calibrations take their own times (a round's calibration can outlast
            # several runs), so the estimate adds the rounds' calibrations still to come.
            left = ((total - done) * run_s / done
                    + (a.repetitions - rep - 1) * statistics.mean(calibration_s)
                    if done else float("nan"))
            run_started = time.monotonic()
            progress(f"run {done + 1} of {total} (repetition {rep + 1}): {c['deployment']} "
                     f"N={c['n']} {c['size']} C={c['cpm']} K={c['k']} {c['decomposition']} {c['codec']}"
                     + ("" if math.isnan(left) else f", about {left:.0f} s left"))
            m = measure(a, c, scratch)
            done += 1
            run_s += time.monotonic() - run_started
            r = results[key(c)]
            r["fpsRuns"].append(m["fps"])
            if m["fps"] >= max(r["fpsRuns"]):
                r["frameTimesS"] = m["frameTimesS"]
                r["slices"], r["imbalance"] = m["slices"], m["imbalance"]
                r["bindingRole"] = m["bindingRole"]
                r["busiestTracerIdleShare"] = m["busiestTracerIdleShare"]
        write_results(a, results, out_dir, finished=rep + 1)
    return results


def rows_of(results, one_host_fps):
    """One row per configuration. The best measured FPS is compared with the best round's
    prediction (the round whose calibration ran fastest: both are the least disturbed of R),
    the median with the median; error = (measured - predicted) / measured. `one_host_fps`:
    the sequential program's FPS on one emulated host, per size (the emulated rows' speedup
    base)."""
    rows = []
    for r in results.values():
        if not r["fpsRuns"]:
            continue
        best, median = max(r["fpsRuns"]), statistics.median(r["fpsRuns"])
        p = max(r["predictions"], key=lambda q: q["fps"])
        predicted_median = statistics.median(q["fps"] for q in r["predictions"])
        simulated = p.get("simulatedFps")
        rows.append({**{f: r[f] for f in CONFIG_FIELDS},
                     "bestFps": best, "medianFps": median, "predictedFps": p["fps"],
                     "medianPredictedFps": predicted_median,
                     "errorPercent": error_percent(best, p["fps"]),
                     "medianErrorPercent": error_percent(median, predicted_median),
                     "simulatedFps": simulated,
                     "simulatedErrorPercent": (error_percent(best, simulated)
                                               if simulated else None),
                     "binding": p["binding"], "runs": len(r["fpsRuns"]), "fpsRuns": r["fpsRuns"],
                     "predictedBindingRole": p.get("bindingRole"),
                     "measuredBindingRole": r.get("bindingRole"),
                     "busiestTracerIdleShare": r.get("busiestTracerIdleShare"),
                     "predictedFpsRuns": [q["fps"] for q in r["predictions"]],
                     "spreadPercent": (100.0 * (best - min(r["fpsRuns"])) / median
                                       if len(r["fpsRuns"]) > 1 else None),
                     "pairedErrorsPercent": [error_percent(m, q["fps"]) for m, q in
                                             zip(r["fpsRuns"], r["predictions"])],
                     "frameTimesS": r["frameTimesS"], "comparisons": p.get("comparisons", {}),
                     **slices_of(r, p)})
    add_scaling(rows, one_host_fps)
    return rows


def error_percent(measured, predicted):
    """The prediction's error as the bench reports it: (measured - predicted) / measured, in %."""
    return 100.0 * (measured - predicted) / measured


def slices_of(result, prediction):
    """Each tracer's slice of the best run (mean columns after the warm-up) and its mean trace
    imbalance, beside the best round's predicted slices and imbalance (slowest predicted trace
    over the mean)."""
    traces = [s["traceS"] for s in prediction.get("slices", [])]
    return {"measuredSlices": result.get("slices", []),
            "measuredImbalance": result.get("imbalance"),
            "predictedSlices": [s["columns"] for s in prediction.get("slices", [])],
            "predictedImbalance": (max(traces) / statistics.mean(traces)
                                   if traces and statistics.mean(traces) > 0 else None)}


def add_scaling(rows, one_host_fps):
    """Speedup over the sequential program on one of the deployment's hosts at the same size,
    efficiency over the tracers, and the Karp-Flatt serial fraction (CLUE eqs. 6-8). The
    base is the sequential row (this host) for mpi and cluster, and the best sequential run
    inside an emulated host for emulated; rows without a base get none."""
    here = {r["size"]: r["bestFps"] for r in rows if r["deployment"] == "sequential"}
    emulated = {size: max(fps) for size, fps in one_host_fps.items()}
    for r in rows:
        base = (emulated if r["deployment"] == "emulated" else here).get(r["size"])
        if base is None or r["n"] < 3:
            continue
        p = r["n"] - 2
        s = r["bestFps"] / base
        r["speedupBaseFps"], r["speedup"], r["efficiency"] = base, s, s / p
        r["karpFlattSerialFraction"] = (1 / s - 1 / p) / (1 - 1 / p) if p > 1 else None


def write_results(a, results, out_dir, finished):
    rows = rows_of(results, a.one_host_fps)
    fields = CONFIG_FIELDS + ["bestFps", "medianFps",
              "predictedFps", "errorPercent", "medianPredictedFps", "medianErrorPercent",
              "simulatedFps", "simulatedErrorPercent", "binding", "runs"]
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    write_atomic(os.path.join(out_dir, "results.csv"), text.getvalue())
    errors = [abs(r["errorPercent"]) for r in rows]
    sim_errors = [abs(r["simulatedErrorPercent"]) for r in rows
                  if r["simulatedErrorPercent"] is not None]
    summary = {"repetitionsFinished": finished, "repetitionsAsked": a.repetitions,
               "frames": a.frames, "warmupFrames": a.warmup,
               "meanAbsErrorPercent": statistics.mean(errors) if errors else None,
               "worstAbsErrorPercent": max(errors) if errors else None,
               "meanAbsSimulatedErrorPercent": statistics.mean(sim_errors) if sim_errors else None,
               "worstAbsSimulatedErrorPercent": max(sim_errors) if sim_errors else None,
               "meanAbsMedianErrorPercent": (statistics.mean(abs(r["medianErrorPercent"]) for r in rows)
                                             if rows else None),
               **binding_agreement(rows), **noise_floor(rows)}
    write_atomic(os.path.join(out_dir, "results.json"),
                 json.dumps({"bfvBenchVersion": 1, "summary": summary, "rows": rows}, indent=2))
    return rows, summary


def binding_agreement(rows):
    """Rows where both the prediction's busiest rank and the best run's measured binding
    (report.json's measuredBinding: the ray tracers when the busiest of them idles under a
    quarter of its time, else the display) are known, and of those the rows where they agree."""
    both = [r for r in rows if r.get("predictedBindingRole") and r.get("measuredBindingRole")]
    return {"bindingRows": len(both),
            "bindingAgreements": sum(r["predictedBindingRole"] == r["measuredBindingRole"]
                                     for r in both)}


def noise_floor(rows):
    """What the errors stand against: the spread of each row's rounds (best less worst run of
    one configuration, over its median: the measurement's own noise), and every run paired
    with its own round's prediction (their mean is the model's bias, their standard deviation
    its scatter with the noise). None where no row has two rounds."""
    spreads = [r["spreadPercent"] for r in rows if r["spreadPercent"] is not None]
    paired = [e for r in rows for e in r["pairedErrorsPercent"]]
    two = len(paired) > 1
    return {"medianSpreadPercent": statistics.median(spreads) if spreads else None,
            "worstSpreadPercent": max(spreads) if spreads else None,
            "pairedRuns": len(paired),
            "meanPairedErrorPercent": statistics.mean(paired) if two else None,
            "stdevPairedErrorPercent": statistics.stdev(paired) if two else None}


def print_table(rows, summary):
    print(f"{'deployment':<11} {'N':>3} {'size':>9} {'C':>3} {'K':>2} {'decomp':<11} {'codec':<5} "
          f"{'best':>7} {'pred.':>7} {'error%':>7} {'median':>7} {'pred.':>7} {'error%':>7} "
          f"{'sim.':>7} {'error%':>7}  busiest (pred./meas.)  binding")
    for r in rows:
        busiest = f"{r.get('predictedBindingRole') or '-'}/{r.get('measuredBindingRole') or '-'}"
        print(f"{r['deployment']:<11} {r['n']:>3} {r['size']:>9} {r['cpm']:>3} {r['k']:>2} "
              f"{r['decomposition']:<11} {r['codec']:<5} {r['bestFps']:>7.1f} {r['predictedFps']:>7.1f} "
              f"{r['errorPercent']:>+7.1f} {r['medianFps']:>7.1f} {r['medianPredictedFps']:>7.1f} "
              f"{r['medianErrorPercent']:>+7.1f} " + _optional(r["simulatedFps"], "7.1f") + " "
              + _optional(r["simulatedErrorPercent"], "+7.1f") + f"  {busiest:<21}  {r['binding']}")
    print(f"mean |error| {summary['meanAbsErrorPercent']:.1f}%, worst "
          f"{summary['worstAbsErrorPercent']:.1f}% (best against the best round's prediction; "
          f"medians: mean |error| {summary['meanAbsMedianErrorPercent']:.1f}%; "
          f"error = (measured - predicted) / measured)")
    if summary["medianSpreadPercent"] is not None:
        print(f"the runs' own spread: median {summary['medianSpreadPercent']:.1f}%, worst "
              f"{summary['worstSpreadPercent']:.1f}% (best less worst round of a row, over its "
              f"median); each run against its own round's prediction: mean "
              f"{summary['meanPairedErrorPercent']:+.1f}%, standard deviation "
              f"{summary['stdevPairedErrorPercent']:.1f}% over {summary['pairedRuns']} runs")
    for r in rows:
        if r["decomposition"] == "dynamic" and r["measuredSlices"] and r["predictedSlices"]:
            measured = "/".join(f"{c:.0f}" for c in r["measuredSlices"])
            predicted = "/".join(str(c) for c in r["predictedSlices"])
            print(f"{r['deployment']} N={r['n']} {r['size']} dynamic slices (columns per tracer): "
                  f"measured {measured}, imbalance {_optional(r['measuredImbalance'], '.3f')}; "
                  f"predicted {predicted}, imbalance "
                  f"{_optional(r['predictedImbalance'], '.3f')}")
    if summary["bindingRows"]:
        print(f"busiest rank, predicted against measured (report.json: the tracers when the "
              f"busiest idles under 25% of its time, else the display): agree in "
              f"{summary['bindingAgreements']} of {summary['bindingRows']} rows")
    if summary["meanAbsSimulatedErrorPercent"] is not None:
        print(f"simulated (bfv predict --simulate, best round): mean |error| "
              f"{summary['meanAbsSimulatedErrorPercent']:.1f}%, worst "
              f"{summary['worstAbsSimulatedErrorPercent']:.1f}%")


def _optional(value, spec):
    """`value` formatted by `spec`, or a dash of the same width where there is none."""
    width = int(spec.lstrip("+").split(".")[0] or 1)
    return format(value, spec) if value is not None else "-".rjust(width)


def plot(rows, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = {}
    for r in rows:
        if r["n"] >= 3:
            groups.setdefault((r["deployment"], r["size"], r["cpm"], r["k"], r["decomposition"],
                               r["codec"]), []).append(r)
    fig, ax = plt.subplots(figsize=(8, 5))
    for g, rs in groups.items():
        rs.sort(key=lambda r: r["n"])
        ns = [r["n"] for r in rs]
        label = f"{g[0]} {g[1]} C={g[2]} K={g[3]} {g[4]}" + ("" if g[5] == "none" else f" {g[5]}")
        line, = ax.plot(ns, [r["bestFps"] for r in rs], "o-", label=f"measured, {label}")
        ax.plot(ns, [r["predictedFps"] for r in rs], "s--", color=line.get_color(), label="predicted")
        for model in ("amdahl", "gustafson"):
            if all(model in r["comparisons"] for r in rs):
                # bfv predict scales the sequential frame to the description's first host.
                ax.plot(ns, [r["comparisons"][model] for r in rs], ":",
                        label=f"{model.capitalize()} (from the sequential FPS on the first host)")
    for r in rows:
        if r["n"] == 1:
            ax.axhline(r["bestFps"], color="grey", lw=0.8)
            ax.annotate(f"{r['deployment']} {r['size']}", (ax.get_xlim()[0], r["bestFps"]), fontsize=7)
    ax.set_xlabel("N (MPI ranks)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylabel("frames per second")
    ax.set_title("bfv: measured and predicted FPS")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    save(fig, os.path.join(out_dir, "fps_vs_n.png"))

    fig, axes = plt.subplots(1, 3, figsize=(12, 4))
    for g, rs in groups.items():
        rs = [r for r in rs if "speedup" in r]
        if not rs:
            continue
        ns = [r["n"] for r in rs]
        axes[0].plot(ns, [r["speedup"] for r in rs], "o-", label=g[0])
        axes[1].plot(ns, [r["efficiency"] for r in rs], "o-")
        kf = [(r["n"], r["karpFlattSerialFraction"]) for r in rs if r["karpFlattSerialFraction"] is not None]
        axes[2].plot([n for n, _ in kf], [f for _, f in kf], "o-")
    for axis, title in zip(axes, ("speedup over one host", "efficiency (per tracer)",
                                  "Karp-Flatt serial fraction")):
        axis.set_title(title)
        axis.set_xlabel("N")
        axis.grid(alpha=0.3)
    if axes[0].get_legend_handles_labels()[0]:
        axes[0].legend(fontsize=7)
    else:
        axes[0].text(0.5, 0.5, "add --deployment sequential\nfor speedup and efficiency",
                     ha="center", transform=axes[0].transAxes)
    save(fig, os.path.join(out_dir, "scaling.png"))


def save(fig, path):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


def bring_up_emulated(a):
    with open(a.emulated) as f:
        a.emulated_name = json.load(f)["name"]
    a.emulated_run_dir = os.path.join(os.environ.get("BFV_EMU_RUN_DIR", "/run/bfv-emu"),
                                      a.emulated_name)
    progress(f"bringing up the emulated cluster '{a.emulated_name}'")
    run([EMULATED, "up", a.emulated])


def main(argv):
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    configs = configurations(a)
    with tempfile.TemporaryDirectory(prefix="bfv-bench-") as scratch:
        a.scratch = scratch
        a.calibration_dir = os.path.join(a.out, "calibration")
        os.makedirs(a.calibration_dir, exist_ok=True)
        try:
            if "emulated" in a.deployment:
                bring_up_emulated(a)
            calibrate_links(a, configs)
            results = sweep(a, configs, a.out, scratch)
        finally:
            if "emulated" in a.deployment and getattr(a, "emulated_name", None):
                subprocess.run([EMULATED, "down", a.emulated_name], capture_output=True)
    rows, summary = write_results(a, results, a.out, a.repetitions)
    print_table(rows, summary)
    if not a.no_plots:
        plot(rows, a.out)
    print(f"wrote {a.out}/results.csv, results.json" + ("" if a.no_plots else ", fps_vs_n.png, scaling.png"))


def interrupt(signum, frame):
    """SIGTERM (a job scheduler's or timeout's stop) ends the bench as a Ctrl-C does: the
    commands running stopped, the emulated clusters torn down, the finished rounds kept."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, interrupt)
    try:
        main(sys.argv[1:])
    except KeyboardInterrupt:
        fail("interrupted; the finished repetitions are in the results files")
