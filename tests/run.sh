#!/bin/sh
# run.sh -- the whole test suite, exactly as CI runs it (.ci/run calls this).
#
# Installs whatever is missing, then builds and tests twice:
#   build/       the release build (jemalloc), as users run it
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer over plain
#                malloc (GCLAB_SANITIZE), so the sanitizers see every block
#   build-tsan/  ThreadSanitizer (GCLAB_TSAN): only the threaded tsan/ cases
# and, when clang is installed (install-deps installs it), fuzzes:
#   build-fuzz/  the libFuzzer harnesses (GCLAB_FUZZ), each run for a short
#                fixed time (tests/fuzz/README.md)
# ctest runs verbosely so that each Criterion binary's "Synthesis" line shows.
set -eu
cd "$(dirname "$0")/.."
.ci/install-deps
jobs=$(nproc 2>/dev/null || echo 2)

run_suite() {
    build_dir=$1
    shift
    cmake -S . -B "$build_dir" "$@"
    cmake --build "$build_dir" -j "$jobs"
    ctest --test-dir "$build_dir" --output-on-failure --verbose -j "$jobs"
}

run_suite build -DCMAKE_BUILD_TYPE=Release
# Leak checking is off: the VM exits through exit() with its heap still
# reachable, which is not a leak, and agents' buffers are freed at shutdown.
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
run_suite build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCLAB_SANITIZE=ON

# ---- ThreadSanitizer (tests/threads/tsan.cmake) ------------------------------------
# Only what the threaded cases need is built, and only they run: the VM
# must be race-free with agents' handlers overlapping (docs/threads-tsan.md).
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCLAB_TSAN=ON
cmake --build build-tsan -j "$jobs" --target tsan_programs
ctest --test-dir build-tsan --output-on-failure -R '^tsan/' -j "$jobs"

# ---- fuzzing ------------------------------------------------------------------
fuzz_seconds=25
if command -v clang >/dev/null 2>&1; then
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGCLAB_FUZZ=ON
    cmake --build build-fuzz -j "$jobs" --target fuzzers
    tests/fuzz/fuzz.sh build-fuzz "$fuzz_seconds"
    fuzzed="and fuzzed for ${fuzz_seconds}s per harness"
else
    echo "tests/run.sh: SKIPPED the fuzz step: clang is not installed (.ci/install-deps installs it)"
    fuzzed="(fuzzing SKIPPED: no clang)"
fi
echo "tests/run.sh: all tests passed in the release, sanitizer and ThreadSanitizer builds $fuzzed"
