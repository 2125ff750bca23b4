#!/bin/sh
# jvmpi_agents.sh -- agents written for JVMPI run on gclab unchanged
# (docs/jvmpi.md): install gclab under a fresh prefix, build
# examples/jvmpi out of tree with `pkg-config --cflags vmpi` (-Werror
# -pedantic: jvmpi.h and jni.h compile clean), check that each library
# exports JVM_OnLoad alone, and load both the JVMPI way (-Xrun<name>:opts,
# found on LD_LIBRARY_PATH), in strict mode beside check, under every
# collector:
#   - on binary_trees with a collection at every allocation, heapsites'
#     Tree sites add up to every Tree the program made, the long-lived
#     tree's nodes are live at exit, and its view of the heap agreed with
#     every GC_FINISH;
#   - on threads_handoff, the tracer's file shows the threads, the waits
#     on Turn and main's sleep (MONITOR_WAIT with no object), and is the
#     same under every collector but for its GC_ lines; GetEnv with a JNI
#     version gave each thread its events' env_id;
# then run both through the installed vmpi-conform (-agentpath).
#
#   jvmpi_agents.sh CMAKE BUILD_DIR PREFIX SOURCE_DIR
set -u
cmake=$1 build=$2 prefix=$3 source=$4
collectors="marksweep markcompact semispace generational refcount"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install failed"; exit 1; }
cp -R "$source/examples/jvmpi/." "$work/" || exit 1
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -s -C "$work" CFLAGS="-O2 -Wall -Wextra -Werror -std=c11 -pedantic" \
    >"$work/make.log" 2>&1 || { cat "$work/make.log"; echo "FAIL: the JVMPI agents do not build"; exit 1; }
for agent in heapsites tracer; do
    exported=$(nm -D --defined-only "$work/lib$agent.so" | awk '{ print $3 }')
    [ "$exported" = JVM_OnLoad ] || fail "$agent exports '$(echo $exported)', not JVM_OnLoad alone"
done

vmrun() { LD_LIBRARY_PATH=$work "$prefix/bin/vmrun" "$@"; }
trees=$(awk -F'check: ' 'NF > 1 { sum += $2 } END { print sum }' "$source/examples/binary_trees.expected")
long_lived=$(sed -n 's/^long lived tree .*check: \([0-9]*\)$/\1/p' "$source/examples/binary_trees.expected")
for gc in $collectors; do
    err=$work/sites-$gc.err
    vmrun --gc=$gc --gc-stress --vmpi-strict -agentlib:check -Xrunheapsites:top=1000 \
        "$source/examples/binary_trees.gcl" 6 >"$work/sites-$gc.out" 2>"$err" || { fail "$gc: heapsites run failed:"; cat "$err"; continue; }
    cmp -s "$work/sites-$gc.out" "$source/examples/binary_trees.expected" || fail "$gc: binary_trees' output changed"
    grep -q '^check: ok: ' "$err" || fail "$gc: check: $(grep '^check' "$err")"
    grep -q '^heapsites: GC_FINISH agreed at every collection ([1-9]' "$err" || fail "$gc: $(tail -n 1 "$err")"
    set -- $(awk '$7 == "Tree" { live += $4; made += $6 } END { print made + 0, live + 0 }' "$err")
    [ "$1" = "$trees" ] || fail "$gc: heapsites' Tree sites allocated $1 Trees; the program made $trees"
    [ "$2" = "$long_lived" ] || fail "$gc: heapsites has $2 Trees live at exit; the long-lived tree has $long_lived"

    err=$work/trace-$gc.err trace=$work/trace-$gc.txt
    vmrun --gc=$gc --seed=1 --vmpi-strict -agentlib:check -Xruntracer:file="$trace" \
        "$source/examples/threads_handoff.gcl" >"$work/trace-$gc.out" 2>"$err" || { fail "$gc: tracer run failed:"; cat "$err"; continue; }
    grep -q '^check: ok: ' "$err" || fail "$gc: check: $(grep '^check' "$err")"
    grep -q "^tracer: GetEnv(JNI_VERSION_1_2) gave each thread its events' env_id$" "$err" || fail "$gc: $(tail -n 1 "$err")"
    for line in 'THREAD_START ping (group main, parent main)' 'MONITOR_WAIT ping on Turn, 0 ms' \
                'MONITOR_WAIT main on sleep, 10 ms' 'THREAD_END main'; do
        grep -qxF "$line" "$trace" || fail "$gc: the tracer's file has no line '$line'"
    done
    grep -v '^GC_' "$trace" >"$work/trace-$gc.nogc"
    cmp -s "$work/trace-marksweep.nogc" "$work/trace-$gc.nogc" ||
        fail "$gc: the tracer saw another run than under marksweep: $(diff "$work/trace-marksweep.nogc" "$work/trace-$gc.nogc" | head -n 3)"
done

for agent in heapsites tracer; do
    "$prefix/bin/vmpi-conform" "$work/lib$agent.so" >"$work/conform-$agent.out" 2>&1 ||
        { cat "$work/conform-$agent.out"; fail "$agent does not pass vmpi-conform"; }
done
exit $failed
