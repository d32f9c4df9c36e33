#!/usr/bin/env bash
# The display's receive threads under ThreadSanitizer: installs what is missing, builds bfv and
# the test binaries that run receive threads with Debian's clang 14 and -fsanitize=thread -g -O1
# into build-tsan/, and runs with ctest only those tests: the MPI tests under mpiexec -n 3 and
# -n 4 (ColumnReceivers with K = 1 and 2, every codec, refused columns), `bfv render` under
# mpiexec with --receive-threads 2 for N = 3, 4, 6 and every decomposition
# (RenderMatchesSequential.*_K2), with lz4 and zstd (RenderColumnCodec) and with --trace
# (RenderAndPredictWriteTimelines), a render interrupted (SIGINT, SIGTERM, a second SIGINT to
# mpiexec: the ranks outliving their keepers) or stalled, and the
# interrupt handler run on another thread (Interrupt.*). mpiexec passes TSAN_OPTIONS on to the
# ranks; any report fails its test (exit code 66). tools/tsan.supp may list races inside the
# uninstrumented MPICH and its transports, each with its reason; bfv's own are fixed instead.
# Takes about 1 minute once built (the tests 50 s); from scratch about 9 minutes at -j1.
# Usage: tools/run-tsan-tests.sh [extra ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
# RelWithDebInfo's -O2 replaced by -O1: TSan's reports keep their frames, the tests stay fast.
cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_FLAGS="-fsanitize=thread" -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-g -O1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-g -O1" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DBFV_BUILD_TESTS=ON -DBFV_BUILD_BENCH=OFF \
    -DBFV_WERROR=ON >/dev/null
cmake --build "$root/build-tsan" -j"${BFV_BUILD_JOBS:-$(nproc)}" \
    --target bfv bfv_mpi_tests bfv_tools_tests bfv_common_tests
# history_size=7 (the largest): clang 14's TSan drops, silently, a race whose earlier access it
# can no longer trace back, which a thread that polls (MPI_Testany, the frame loop) soon causes.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=7 exitcode=66 \
suppressions=$root/tools/tsan.supp"
cd "$root/build-tsan"
# ctest's names of parameterised tests end with "  # GetParam() = ...": no $ after _K2.
tests='MpiTests\.Ranks[34]$|RenderMatchesSequential\..*_K2|RenderColumnCodec\.'
tests+='|RenderAndPredictWriteTimelines|RenderInterrupt\.Sig(int|term)To(Mpiexec|OneTracer)'
tests+='|RenderInterrupt\.ASecondSigintToMpiexec'
tests+='|RenderStall\.AStoppedTracer|^Interrupt\.'
ctest --output-on-failure -j1 --timeout 300 -R "$tests" "$@"
