#!/bin/sh
# format_b_signal.sh -- hprof's format=b dumps on demand: SIGQUIT makes the
# VM post DATA_DUMP_REQUEST, and hprof appends a dump's records to its
# binary profile.
#
#   format_b_signal.sh DUMPS OPTIONS JAR [THREADS] -- VMRUN PROGRAM
#
# Starts VMRUN --vmpi-strict -agentlib:hprof=format=b,OPTIONS PROGRAM (a
# program that prints, then works for a second or more:
# cli/work_then_finish.gcl), sends SIGQUIT once its output is not empty, and
# checks with hprof_records.py that java.hprof is well formed and holds
# DUMPS heap dumps (each closed by HEAP DUMP END) and DUMPS ALLOC SITES
# (options heap=all), every trace written once; and that VisualVM's heap
# library (JAR, through visualvm/ReadHeap.java) opens each of the dumps and
# counts in it the objects hprof_records.py counts.  With THREADS (a
# program running that many threads when SIGQUIT comes:
# tests/hprof/threads_then_finish.gcl), each heap dump holds at least
# THREADS ROOT THREAD OBJECTs, and VisualVM finds as many thread objects
# as hprof_records.py counts.  Timing is never asserted.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/verdict.sh"
. "$here/../cli/hprof_sigquit_run.sh"
dumps=$1 options=$2 jar=$3 threads=
[ "$4" = -- ] || { threads=$4; shift; }
shift 4
hprof_sigquit_run "format=b,$options" "$@"

[ "$status" -eq 0 ] || complain "exit status $status, expected 0"
# The thread running when it comes serves it: main, or threads_then_finish's worker.
grep -q "^vmrun: SIGQUIT: stack trace of thread \(main\|worker\)$" err || complain "the VM did not serve SIGQUIT"
if [ ! -s java.hprof ]; then
    complain "no java.hprof"
elif ! python3 "$here/hprof_records.py" java.hprof > records 2>> err; then
    complain "java.hprof is malformed: $(tail -n 1 err)"
else
    [ "$(grep -c '^heap_dump [1-9]' records)" = "$dumps" ] || complain "$(grep -c '^heap_dump' records) heap dumps, expected $dumps"
    [ "$(grep -c '^sites ' records)" = "$dumps" ] || complain "$(grep -c '^sites ' records) ALLOC SITES, expected $dumps"
    dump=0
    thread_objects=$(sed -n 's/^thread_objects //p' records)
    for objects in $(sed -n 's/^heap_dump //p' records); do
        dump_threads=$(echo "$thread_objects" | sed -n "$((dump + 1))p")
        if ! java --class-path "$jar:$(dirname "$jar")/org-graalvm-visualvm-lib-profiler-oql.jar" \
                "$here/visualvm/ReadHeap.java" java.hprof $dump > read 2>> err; then
            complain "VisualVM could not read dump $dump"
        elif ! grep -q "^dumps $dumps$" read || ! grep -q "^total $objects$" read; then
            complain "VisualVM reads dump $dump as $(grep '^dumps' read), $(grep '^total' read); expected $dumps dumps, $objects objects"
        elif [ -n "$threads" ] && { [ "$dump_threads" -lt "$threads" ] || ! grep -q "^thread-objects $dump_threads$" read; }; then
            complain "dump $dump: $dump_threads ROOT THREAD OBJECTs (at least $threads expected), VisualVM finds $(grep '^thread-objects' read)"
        fi
        dump=$((dump + 1))
    done
fi
verdict err "$@"
