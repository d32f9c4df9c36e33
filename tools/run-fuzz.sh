#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, Debian's clang 14, with ASan and UBSan) into
# build-fuzz/ and fuzzes each for SECONDS seconds (default 5), one after the other, starting
# from its committed seeds in fuzz/corpus/<harness>/ and from what earlier runs found in
# build-fuzz/corpus/<harness>/ (where new inputs go: the committed seeds are only read). Prints
# one line per harness (executions per second, coverage, inputs) and fails on any crash, leak,
# undefined behaviour, timeout (10 s) or memory blow-up (2 GiB), leaving the input in
# build-fuzz/artifacts/ and libFuzzer's output in build-fuzz/logs/<harness>.log.
# Usage: tools/run-fuzz.sh [SECONDS [HARNESS...]]   (HARNESS: e.g. pyramid_file; default all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-5}
shift || true
"$root/tools/install-deps.sh"
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 -DBFV_BUILD_FUZZ=ON -DBFV_BUILD_TESTS=OFF \
    -DBFV_BUILD_BENCH=OFF >/dev/null
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    for source in "$root"/fuzz/*_fuzz.cpp; do
        name=$(basename "$source" _fuzz.cpp)
        harnesses+=("$name")
    done
fi
targets=()
for name in "${harnesses[@]}"; do targets+=("bfv_${name}_fuzz"); done
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

export LSAN_OPTIONS=suppressions=$root/tools/lsan.supp:print_suppressions=0
# The harnesses' temporary files: removed by each harness as it exits, and here after a crash.
export TMPDIR="$build/tmp"
mkdir -p "$build/artifacts" "$build/logs"
failed=()
for name in "${harnesses[@]}"; do
    mkdir -p "$build/corpus/$name" "$TMPDIR"
    log="$build/logs/$name.log"
    dict=()  # harnesses of JSON files (their seeds are .json) get the JSON dictionary
    if compgen -G "$root/fuzz/corpus/$name/*.json" >/dev/null; then
        dict=(-dict="$root/fuzz/json.dict")
    fi
    if "$build/fuzz/bfv_${name}_fuzz" "$build/corpus/$name" "$root/fuzz/corpus/$name" \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$build/artifacts/$name-" "${dict[@]}" >"$log" 2>&1; then
        result=ok
    else
        result=FAILED
        failed+=("$name")
    fi
    rm -rf "$TMPDIR"
    # The last status line, e.g. "#2048 pulse cov: 812 ft: 2101 corp: 61/9Kb exec/s: 682 ...".
    status=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    printf 'run-fuzz: %-18s %s  %s\n' "$name" "$result" "$status"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run-fuzz: ${failed[*]} failed; see $build/logs/ and the inputs in $build/artifacts/" >&2
    exit 1
fi
