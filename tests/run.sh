#!/bin/sh
# run.sh -- the whole test suite, exactly as CI runs it (.ci/run calls this).
#
# Installs whatever is missing, then builds and tests twice:
#   build/       the release build (jemalloc), as users run it
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer over plain
#                malloc (GCLAB_SANITIZE), so the sanitizers see every block
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
echo "tests/run.sh: all tests passed in the release and sanitizer builds"
