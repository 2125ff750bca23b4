#!/bin/sh
# visualvm_read.sh -- a real reader opens hprof's format=b: VisualVM's heap
# library (HeapFactory.createHeap, through ReadHeap.java) loads the dump
# hprof writes at exit, and what it reads must be what the VM holds.
#
#   visualvm_read.sh VMRUN JAR PROGRAM COLLECTOR...
#
# JAR is org-graalvm-visualvm-lib-jfluid-heap.jar (Debian's visualvm);
# PROGRAM is shapes.gcl.  Under each collector, in a 256 KiB heap (so that
# it collects while the program runs) and --vmpi-strict, it checks that:
#   - the classes and instance counts VisualVM reports equal the VM's own
#     heap walk at the same point: the level-2 HEAP_DUMP of a heap=dump text
#     run of the same program (one OBJ or ARR record per object, named as
#     hprof_binary.h maps gclab's types to Java's, and a char[] more for each
#     String, its value), and their total equals the level-0 HEAP_DUMP count
#     hprof checks its sites against (verbose), with the Strings' char[]s;
#   - the field values, statics and array elements ReadHeap reads (the
#     paths below) are those the program printed, in the same order.
# Nothing is skipped: without java or the jar the case fails
# (.ci/install-deps installs both).
set -u
. "$(dirname "$0")/../../cli/verdict.sh"
vmrun=$1 jar=$2 program=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
paths='Registry.head.x Registry.points[123].x Registry.points[123].weight Registry.points[124].even
Registry.squares[16] Registry.halves[8] Registry.ratios[3] Registry.bytes[69999] Registry.grid[2][2] Registry.count
Registry.points[250].label Registry.greeting'
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
: > err

command -v javac > /dev/null || complain "no javac (openjdk-17-jdk-headless): run .ci/install-deps"
[ -r "$jar" ] || complain "no $jar (visualvm): run .ci/install-deps"
[ "$failed" -eq 0 ] && { javac -d classes --class-path "$jar" "$here/ReadHeap.java" 2> err || complain "javac failed"; }
[ "$failed" -eq 0 ] || verdict err "$@"

# The Java name of a class the text dump names (gclab's int is Java's long).
java_names='function java(name,   dims) {
    dims = ""
    while (name ~ /\[\]$/) { dims = dims "[]"; name = substr(name, 1, length(name) - 2) }
    if (dims != "") {
        if (name == "int") name = "long"; else if (name == "int32") name = "int"; else if (name == "bool") name = "boolean"
    }
    return name dims
}'
for gc in "$@"; do
    mkdir "$gc" && cd "$gc" || exit 1
    run="$vmrun --gc=$gc --heap=256k --vmpi-strict"
    $run -agentlib:hprof=format=b,file=heap.hprof "$program" > out 2> err || complain "$gc: the format=b run failed"
    $run -agentlib:hprof=heap=dump,file=heap.txt "$program" > /dev/null 2> text.err || complain "$gc: the text run failed"
    # shellcheck disable=SC2086 # the paths are words
    java --class-path "$jar:../classes" ReadHeap heap.hprof 0 $paths > read 2> java.err ||
        { cat java.err; complain "$gc: VisualVM could not read heap.hprof"; }
    awk "$java_names"'
        /^OBJ / { sub(/.*class=/, ""); sub(/@[0-9a-f]+\)$/, ""); n[$0]++; if ($0 == "String") n["char[]"]++ }
        /^ARR / { sub(/.*elem type=/, ""); sub(/\)$/, "")
                  if (sub(/@[0-9a-f]+$/, "")) n[java($0) "[]"]++; else n[$0 "[]"]++ }
        END     { for (c in n) print "class " c " " n[c] }' heap.txt | LC_ALL=C sort > vm.classes
    grep '^class ' read | LC_ALL=C sort > read.classes
    [ -s vm.classes ] || complain "$gc: the text run dumped no objects"
    cmp -s vm.classes read.classes || { diff vm.classes read.classes | head; complain "$gc: VisualVM's classes and counts are not the VM's"; }
    vm_total=$(sed -n 's/^hprof: live at exit: \([0-9]*\) objects.*/\1/p' err)
    strings=$(grep -c ' class=String@' heap.txt)
    [ -n "$vm_total" ] && [ "total $((vm_total + strings))" = "$(grep '^total ' read)" ] ||
        complain "$gc: VisualVM reads $(grep '^total ' read), the VM's heap holds ${vm_total:-?} objects and $strings Strings"
    grep ' = ' read | sed 's/.* = //' > read.values
    cmp -s out read.values || { paste out read.values | head; complain "$gc: values read back differ from the program's"; }
    grep -q '^dumps 1$' read || complain "$gc: not one heap dump in heap.hprof"
    cd .. || exit 1
done
verdict err "$@"
