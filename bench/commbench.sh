#!/usr/bin/env bash
# This machine's communication parameters (eqs. 16-19 of the source paper): `bfv commbench`
# over shared memory and over TCP loopback with 2 ranks, then many-to-one into one receiver
# with 1..4 senders (5 ranks, shared memory). Prints each link's fit (MSGSETUP, ALCBW, APBBW,
# n1/2, breakpoints) and the many-to-one table; every run's profile, sweep and log stay in
# out/bench/commbench/<case>/. Takes a minute or two.
# Usage: bench/commbench.sh [extra bfv commbench options...]   BFV=path/to/bfv picks the binary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bfv=${BFV:-"$root/build/tools/bfv"}
[ -x "$bfv" ] || { echo "commbench.sh: build first (tools/build.sh) or set BFV" >&2; exit 1; }
out="$root/out/bench/commbench"
mkdir -p "$out"
extra=("$@")

run() {  # run CASE RANKS [VAR=VALUE...]: one commbench run, its fit and many-to-one tables
    local name=$1 ranks=$2
    shift 2
    local dir="$out/$name"
    echo "== $name: $* mpiexec -n $ranks bfv commbench"
    if ! env "$@" timeout 900 mpiexec -n "$ranks" "$bfv" commbench --name "$name" --out "$dir" \
        "${extra[@]}" >"$dir.log" 2>"$dir.err"; then
        echo "commbench.sh: the $name run failed; see $dir.log and $dir.err" >&2
        tail -5 "$dir.err" >&2
        return 1
    fi
    sed -n '/^fit (eqs/,$p' "$dir.log" | grep -v '^wrote'
}

echo "bfv commbench on $(hostname), $(nproc) cores, $(mpichversion | head -1 | tr -s ' \t' ' ')"
run shm 2
run tcp 2 UCX_TLS=tcp,self
run shm-n5 5  # many-to-one with 1..4 senders
