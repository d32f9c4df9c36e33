#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer: installs what is missing,
# builds bfv with BFV_SANITIZE=ON (tests, no benchmarks) into build-asan/ with Debian's clang 14
# (much faster to build than GCC with the sanitizers on this code) and runs every test
# with ctest, the MPI ones included (mpiexec passes the sanitizer options on to the ranks). Any
# report fails its test: ASan's, UBSan's (halt_on_error), and LeakSanitizer's, but for leaks in
# third-party libraries listed in tools/lsan.supp.
# Usage: tools/run-sanitized-tests.sh [extra ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DBFV_BUILD_TESTS=ON \
    -DBFV_BUILD_BENCH=OFF -DBFV_SANITIZE=ON -DBFV_WERROR=ON >/dev/null
cmake --build "$root/build-asan" -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$root/tools/lsan.supp:print_suppressions=0
# SDL's accelerated renderer loads Mesa's GL driver and unloads it before LeakSanitizer looks, so
# its leaks come from an unnamed module that no suppression can name: the window tests draw
# through SDL's software renderer here.
export SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0
cd "$root/build-asan"
ctest --output-on-failure -j2 --timeout 300 "$@"
