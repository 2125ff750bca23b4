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
#     paths below) are those the program printed, in the same order;
#   - every size VisualVM's views ask for is the VM's: each class's
#     instance size and the sum of its instances' sizes equal the sizes
#     (sz=) of the text dump's records, except that VisualVM counts an
#     array 4 bytes more than its 16-byte header and elements before
#     rounding to 8 (a JVM's array has a length word after its header;
#     gclab's length is in the header), and String and char[], which
#     hprof reshapes (docs/hprof.md), are left out; the summary's live
#     objects and bytes are the VM's at exit;
#   - java.lang.System's props are gclab's: its name, version, this
#     collector, 64-bit;
#   - every instance and class answered its size, retained size and
#     nearest GC root without an exception (ReadHeap asks them all);
#   - Registry.tree retains exactly its 31 Nodes' bytes (nothing else
#     reaches them), Registry.points only itself (the Points are on the
#     head list too), and the paths to the nearest GC root of a Point and
#     a Node are through the static of the class Registry;
#   - an OQL query gives the Points the program made with x >= 1900, or
#     VisualVM says OQL is unsupported: its engine needs a JavaScript
#     engine (Nashorn or GraalJS) that Debian 12's JDK does not have
#     (docs/hprof.md, "Read by VisualVM").
# Under marksweep, every line of the excerpt of ReadHeap's output in
# docs/hprof.md ("Read by VisualVM") must be one of its lines.
# Nothing is skipped: without java or the jars the case fails
# (.ci/install-deps installs them).
set -u
. "$(dirname "$0")/../../cli/verdict.sh"
vmrun=$1 jar=$2 program=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
paths='Registry.head.x Registry.points[123].x Registry.points[123].weight Registry.points[124].even
Registry.squares[16] Registry.halves[8] Registry.ratios[3] Registry.bytes[69999] Registry.grid[2][2] Registry.count
Registry.points[250].label Registry.greeting Registry.tree.left.right.depth'
asks='retained=Registry.tree retained=Registry.points root=Registry.points[123] root=Registry.tree.left.right'
oql='select p.x from Point p where p.x >= 1900'
# The Points with x >= 1900: x = 7i - 100 for i < 300 (garbage Points have x < 300).
oql_expected="oql 14: $(seq 286 299 | awk '{ print 7 * $1 - 100 }' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
oql_jar=$(dirname "$jar")/org-graalvm-visualvm-lib-profiler-oql.jar
version=$("$vmrun" --version | sed 's/.* //')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
: > err

command -v javac > /dev/null || complain "no javac (openjdk-17-jdk-headless): run .ci/install-deps"
[ -r "$jar" ] && [ -r "$oql_jar" ] || complain "no $jar or $oql_jar (visualvm): run .ci/install-deps"
[ "$failed" -eq 0 ] && { javac -d classes --class-path "$jar:$oql_jar" "$here/ReadHeap.java" 2> err || complain "javac failed"; }
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
# VisualVM's size of an array record of the text dump: its elements, after a
# 16-byte header and a 4-byte length, rounded up to 8.
sizes='function element_bytes(type) {
    if (type ~ /^(long|double)$/) return 8
    if (type == "int") return 4
    if (type ~ /^(char|short)$/) return 2
    if (type ~ /^(byte|boolean)$/) return 1
    return 8 # a reference
}
function visualvm_array(n, type) { return int((16 + 4 + n * element_bytes(type) + 7) / 8) * 8 }'

# The sizes of every class but String and char[]: VisualVM's against the
# text dump's, as the header says.
check_sizes() {
    awk "$java_names$sizes"'
        /^OBJ / { size = $3; sub(/^\(sz=/, "", size); sub(/,$/, "", size)
                  sub(/.*class=/, ""); sub(/@[0-9a-f]+\)$/, "")
                  each[$0] = size; bytes[$0] += size }
        /^ARR / { n = $5; sub(/^nelems=/, "", n); sub(/,$/, "", n)
                  sub(/.*elem type=/, ""); sub(/\)$/, "")
                  name = sub(/@[0-9a-f]+$/, "") ? java($0) "[]" : $0 "[]"
                  type = name; sub(/\[\]$/, "", type)
                  each[name] = -1; bytes[name] += visualvm_array(n, type) }
        END     { for (c in each) if (c != "String") print "size " c " " each[c] " " bytes[c] }' heap.txt |
        LC_ALL=C sort > vm.sizes
    grep '^size ' read | grep -v '^size \(String\|char\[\]\) ' | LC_ALL=C sort > read.sizes
    cmp -s vm.sizes read.sizes || { diff vm.sizes read.sizes | head; complain "$1: VisualVM's sizes are not the VM's"; }
    live=$(sed -n 's/^hprof: live at exit: \([0-9]*\) objects, \([0-9]*\) bytes.*/summary \1 \2/p' err)
    [ "$(grep '^summary ' read)" = "$live" ] ||
        complain "$1: VisualVM's summary is '$(grep '^summary ' read)', the VM's live heap '$live'"
}

check_properties() {
    printf 'property java.vm.info = %s\nproperty java.vm.name = gclab\nproperty java.vm.version = %s\nproperty sun.arch.data.model = 64\n' \
        "$1" "$version" > properties.expected
    grep '^property java.vm\|^property sun.arch' read > properties.read
    cmp -s properties.expected properties.read ||
        { diff properties.expected properties.read; complain "$1: java.lang.System's props are not gclab's"; }
}

# Registry.tree's Nodes are the text dump's (31 of 40 bytes: 16 of header,
# 3 slots), Registry.points' array is its own size in VisualVM's terms.
check_retained_and_roots() {
    nodes=$(awk '/^OBJ .*class=Node@/ { size = $3; sub(/^\(sz=/, "", size); total += size } END { print total + 0 }' heap.txt)
    points=$(awk '$1 == "size" && $2 == "Point[]" { print $4 }' read.sizes)
    [ "$nodes" -eq $((31 * 40)) ] || complain "$1: the text dump has $nodes bytes of Nodes, not 31 of 40"
    {
        echo "retained Registry.tree $nodes"
        echo "retained Registry.points $points"
        echo "root Registry.points[123]: Point <- Point[] <- class Registry (sticky class)"
        echo "root Registry.tree.left.right: Node <- Node <- Node <- class Registry (sticky class)"
    } > roots.expected
    grep '^retained \|^root ' read > roots.read
    cmp -s roots.expected roots.read || { diff roots.expected roots.read; complain "$1: retained sizes or GC root paths differ"; }
}

for gc in "$@"; do
    mkdir "$gc" && cd "$gc" || exit 1
    run="$vmrun --gc=$gc --heap=256k --vmpi-strict"
    $run -agentlib:hprof=format=b,file=heap.hprof "$program" > out 2> err || complain "$gc: the format=b run failed"
    $run -agentlib:hprof=heap=dump,file=heap.txt "$program" > /dev/null 2> text.err || complain "$gc: the text run failed"
    # shellcheck disable=SC2086 # the paths and asks are words
    java --class-path "$jar:$oql_jar:../classes" ReadHeap heap.hprof 0 $paths $asks "oql=$oql" > read 2> java.err ||
        { cat java.err; complain "$gc: VisualVM could not read heap.hprof, or a question to it threw"; }
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
    grep -v '^property ' read | grep ' = ' | sed 's/.* = //' > read.values
    cmp -s out read.values || { paste out read.values | head; complain "$gc: values read back differ from the program's"; }
    grep -q '^dumps 1$' read || complain "$gc: not one heap dump in heap.hprof"
    check_sizes "$gc"
    check_properties "$gc"
    [ "$(grep '^asked ' read)" = "asked $(sed -n 's/^total //p' read)" ] ||
        complain "$gc: VisualVM answered for $(grep '^asked ' read) objects, not all $(grep '^total ' read)"
    check_retained_and_roots "$gc"
    if [ "$gc" = marksweep ]; then
        awk '/^Here is part of what `ReadHeap` prints/ { on = 1; next }
             on && /^    / { sub(/^    /, ""); print }
             on && /^#/ { exit }' "$here/../../../docs/hprof.md" > excerpt
        [ -s excerpt ] || complain "no excerpt of ReadHeap's output in docs/hprof.md"
        while IFS= read -r line; do
            grep -qxF "$line" read || complain "docs/hprof.md shows '$line', which ReadHeap does not print"
        done < excerpt
    fi
    oql_read=$(grep '^oql ' read)
    [ "$oql_read" = "$oql_expected" ] || [ "$oql_read" = "oql unsupported" ] ||
        complain "$gc: '$oql' gave '$oql_read', not '$oql_expected'"
    cd .. || exit 1
done
verdict err "$@"
