#!/bin/sh
# example_agent.sh -- what an agent author does with an installed gclab
# (docs/agent-guide.md), step by step: install it under a fresh prefix, build
# examples/agent out of tree with the system's cc, make and pkg-config, and
# run the agent with the installed vmrun, in strict mode and beside the check
# and trace agents, on binary_trees under every collector with a collection
# at every allocation.  The agent must export VMPI_OnLoad alone, and its
# table must count what the program allocates: every Tree the output's check
# sums count, the long-lived tree's nodes live at exit, and as many objects
# in all as the trace has OBJECT_ALLOCs.
#
#   example_agent.sh CMAKE BUILD_DIR PREFIX SOURCE_DIR
#
# PREFIX is emptied first.  The agent is built in a temporary directory
# outside the build tree, removed at the end.  Each step is a function; the
# last lines run them in order; the last step runs the installed
# conformance runner over the built agent.  Between them, an agent that
# rewrites the program is built against the installed vmpi_bci.h and
# libvmpi_bci.so (docs/bci.md) and run.
set -u
cmake=$1 build=$2 prefix=$3 source=$4
program=$source/examples/binary_trees.gcl expected=$source/examples/binary_trees.expected depth=6
collectors="marksweep markcompact semispace generational refcount"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

install_gclab() {
    rm -rf "$prefix"
    "$cmake" --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install failed"; exit 1; }
}

build_example() {
    cp -R "$source/examples/agent/." "$work/" || exit 1
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -s -C "$work" CFLAGS="-O2 -Wall -Wextra -Werror -std=c11 -pedantic" \
        >"$work/make.log" 2>&1 || { cat "$work/make.log"; echo "FAIL: the example agent does not build"; exit 1; }
    # -fvisibility=hidden hides all but what VMPI_EXPORT marks.
    exported=$(nm -D --defined-only "$work/libheapstats.so" | awk '{ print $3 }')
    [ "$exported" = VMPI_OnLoad ] || fail "the example agent exports '$(echo $exported)', not VMPI_OnLoad alone"
}

# The heapstats row of CLASS: "allocated bytes live live_bytes".
row() { sed -n "s/^heapstats: *\([0-9]*\) *\([0-9]*\) *\([0-9]*\) *\([0-9]*\)  $1\$/\1 \2 \3 \4/p" "$2"; }

# What binary_trees allocates: one Tree per node its output counts.
trees=$(awk -F'check: ' 'NF > 1 { sum += $2 } END { print sum }' "$expected")
long_lived=$(sed -n 's/^long lived tree .*check: \([0-9]*\)$/\1/p' "$expected")

run_under_every_collector() {
    for gc in $collectors; do
        out=$work/$gc.out err=$work/$gc.err trace=$work/$gc.jsonl
        "$prefix/bin/vmrun" --gc="$gc" --gc-stress --vmpi-strict -agentlib:check \
            -agentpath:"$work/libheapstats.so" -agentlib:trace=file="$trace" "$program" $depth >"$out" 2>"$err"
        status=$?
        [ $status -eq 0 ] || { fail "$gc: vmrun exited $status:"; cat "$err"; continue; }
        cmp -s "$out" "$expected" || fail "$gc: the program's output changed with the agent loaded"
        grep -q "^check: ok: " "$err" || fail "$gc: check did not pass: $(grep '^check' "$err")"
        grep -q "^heapstats: $gc, GC_FINISH agreed at every collection ([1-9]" "$err" ||
            fail "$gc: heapstats did not follow the live heap: $(tail -n 1 "$err")"
        set -- $(row Tree "$err")
        [ "${1:-}" = "$trees" ] || fail "$gc: heapstats counted ${1:-no} Trees allocated; the program made $trees"
        [ "${3:-}" = "$long_lived" ] || fail "$gc: heapstats counted ${3:-no} Trees live at exit; the long-lived tree has $long_lived"
        set -- $(row "(total)" "$err")
        allocs=$(grep -c '"event":"OBJECT_ALLOC"' "$trace")
        [ "${1:-}" = "$allocs" ] || fail "$gc: heapstats counted ${1:-no} allocations in all; the trace has $allocs"
    done
}

# An agent that instruments the program (docs/bci.md), built as that page
# says against the installed header and library: its calls leave the
# program's output as it was.
build_and_run_bci_agent() {
    libdir=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=libdir vmpi)
    cc -shared -fPIC -fvisibility=hidden $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags vmpi) \
        -o "$work/libbci_agent.so" "$source/tests/bci/bci_agent.c" -L"$libdir" -lvmpi_bci -Wl,-rpath,"$libdir" \
        >"$work/bci_cc.log" 2>&1 || { cat "$work/bci_cc.log"; fail "the bci agent does not build against the kit"; return; }
    "$prefix/bin/vmrun" -agentpath:"$work/libbci_agent.so"=all "$program" $depth >"$work/bci.out" 2>"$work/bci.err" ||
        { cat "$work/bci.err"; fail "the installed bci agent's run failed"; return; }
    cmp -s "$work/bci.out" "$expected" || fail "the program's output changed with the program instrumented"
    grep -Eq "^bci: all: [1-9][0-9]* entries" "$work/bci.err" || fail "the bci agent counted no calls: $(cat "$work/bci.err")"
}

# The installed conformance runner, over the built agent: every cell passes.
run_conformance() {
    "$prefix/bin/vmpi-conform" "$work/libheapstats.so" >"$work/conform.out" 2>&1 ||
        { cat "$work/conform.out"; fail "the example agent does not pass vmpi-conform"; }
}
install_gclab
build_example
run_under_every_collector
build_and_run_bci_agent
run_conformance
exit $failed
