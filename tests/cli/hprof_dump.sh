#!/bin/sh
# hprof_dump.sh -- hprof's heap=dump is right, and the same, under every
# collector.
#
#   hprof_dump.sh VMRUN PROGRAM COLLECTOR...
#
# PROGRAM is tests/heap/known_heap.gcl, whose heap at exit is known (its top
# comment): four Nodes (1 -> 2 -> 3 held by the static Holder.chain, and 7),
# one int array of 4 elements, two interned Strings, and five classes.  Runs
# -agentlib:hprof=heap=dump under --vmpi-strict with each collector and checks
#   - the HEAP DUMP section: 7 objects in its header, 6 OBJ, 1 ARR (nelems=4),
#     5 CLS, one <system class> and one <JNI global ref> root per class and
#     per interned string; every object's trace is one of the file's TRACEs;
#   - a known reference: Holder's `static chain` is a Node whose `next` is a
#     Node whose `next` is a Node with no `next`, and `static label` a String;
#   - the live objects agree with the VM's heap ("agrees"), and no SITES
#     table is written (heap=dump alone);
#   - the records, IDs left out, are the same under every collector.
set -u
vmrun=$1 program=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
count() { grep -c "$1" "$2"; }
# The value of field $2 (a tab, the name, a tab, the ID) of record $1 in $3.
field() {
    awk -v id="$1" -v name="$2" '$1 ~ /^(OBJ|ARR|CLS)$/ { inside = ($2 == id); next }
                                 inside && $0 ~ ("^\t" name "\t") { print $NF }' "$3"
}
. "$(dirname "$0")/same_as_first.sh"
for gc in "$@"; do
    out="dump_$gc.txt"
    $vmrun --vmpi-strict --gc="$gc" -agentlib:hprof=heap=dump,file="$out" "$program" >/dev/null 2>"dump_$gc.err" ||
        fail "$gc: vmrun failed: $(tail -n 3 "dump_$gc.err")"
    grep -q "the VM's heap agrees" "dump_$gc.err" || fail "$gc: $(grep hprof "dump_$gc.err")"
    grep -q '^HEAP DUMP BEGIN (7 objects, [0-9]* bytes) ' "$out" || fail "$gc: header: $(grep '^HEAP DUMP BEGIN' "$out")"
    [ "$(tail -n 1 "$out")" = "HEAP DUMP END" ] || fail "$gc: the file does not end with HEAP DUMP END"
    ! grep -q '^SITES BEGIN' "$out" || fail "$gc: heap=dump wrote a SITES table"
    [ "$(count '^OBJ ' "$out")" = 6 ] || fail "$gc: $(count '^OBJ ' "$out") OBJ records, expected 6"
    [ "$(count '^ARR .* nelems=4, elem type=' "$out")" = 1 ] || fail "$gc: expected one ARR of 4 elements"
    [ "$(count '^ARR ' "$out")" = 1 ] || fail "$gc: $(count '^ARR ' "$out") ARR records, expected 1"
    [ "$(count '^CLS ' "$out")" = 5 ] || fail "$gc: $(count '^CLS ' "$out") CLS records, expected 5"
    [ "$(count '^ROOT .*kind=<system class>' "$out")" = 5 ] || fail "$gc: expected 5 system class roots"
    [ "$(count '^ROOT .*kind=<JNI global ref>' "$out")" = 2 ] || fail "$gc: expected 2 JNI global roots"
    [ "$(count '^OBJ .*class=Node@' "$out")" = 4 ] || fail "$gc: expected 4 Nodes"
    [ "$(count '^OBJ .*class=String@' "$out")" = 2 ] || fail "$gc: expected 2 Strings"
    traces=$(sed -n 's/^TRACE \([0-9]*\):$/\1/p' "$out" | tr '\n' ' ')
    for trace in $(sed -n 's/^\(OBJ\|ARR\) .* trace=\([0-9]*\),.*/\2/p' "$out"); do
        case " $traces" in *" $trace "*) ;; *) fail "$gc: an object's trace $trace is not among the TRACEs" ;; esac
    done
    holder=$(sed -n 's/^CLS \([0-9a-f]*\) (name=Holder,.*/\1/p' "$out")
    label=$(field "$holder" "static label" "$out")
    grep -q "^OBJ $label (.*class=String@" "$out" || fail "$gc: Holder.label ($label) is not a String"
    node=$(field "$holder" "static chain" "$out")
    for depth in 1 2 3; do
        grep -q "^OBJ $node (.*class=Node@" "$out" || fail "$gc: link $depth of Holder.chain ($node) is not a Node"
        next=$(field "$node" next "$out")
        [ "$depth" = 3 ] || node=$next
    done
    [ -z "$next" ] || fail "$gc: Holder.chain has more than 3 Nodes"
    # The records with their IDs left out, in order of record kind and class.
    sed -n 's/@[0-9a-f]*//; s/id=[0-9a-f]*//; s/^\(ROOT\|CLS\|OBJ\|ARR\) [0-9a-f]* /\1 /p' "$out" | sort > "dump_$gc.shape"
    same_as_first "$gc" "dump_$gc.shape" "the heap dump differs"
done
echo "$# collectors: the same heap dump of $(wc -l < "dump_$first.shape") records"
