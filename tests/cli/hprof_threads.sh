#!/bin/sh
# hprof_threads.sh -- hprof with several VM threads: cpu=samples samples
# every thread, thread=y ties traces to threads, cpu=times counts per
# thread, and monitor=y reports the language's monitors (docs/hprof.md).
#
#   hprof_threads.sh VMRUN EXAMPLES_DIR TESTS_HPROF_DIR COLLECTOR...
#
# Under each collector, with --vmpi-strict (docs/contracts.md):
#   - the three thread examples (producer/consumer, contended lock,
#     handoff) with cpu=samples,thread=y,monitor=y: the program's output is
#     its .expected; THREAD START names main and each thread the example
#     starts, and each has a THREAD END, and hprof's two system threads
#     (the sampler and its unstaller); every TRACE carries a thread that
#     started; MONITOR TIME has a (Java) row for the example's lock class
#     with a count above 0 under a TRACE of the file -- for the contended
#     lock, the synchronized line in work; for the handoff, main's timed
#     wait (the players may take turns without ever waiting, when the
#     scheduler switches between their rounds);
#     no raw monitor named with a leading '_' (hprof's own, the sampler's
#     among them) in either section;
#   - threads_burn.gcl (two threads burning CPU, main in join) with
#     cpu=samples,thread=y: the CPU SAMPLES rows come from both burners'
#     traces (main's too, if a round came before it reached join: not
#     checked, it depends on timing);
#   - threads_burn.gcl 1000 with cpu=times,thread=y: step is entered 1000
#     times under each burner's traces, burn once each;
#   - monitor_state.gcl under --seed, which exits holding its lock twice
#     with one thread waiting to enter it and one waiting on it: the
#     MONITOR DUMP at exit is exactly that (owner main, entry count 2,
#     "enterer" waiting to enter, "waiter" to be notified, the threads'
#     statuses R, MW, CW and their traces at the right lines).
# And, under the first collector, --seed=7 twice with monitor=y: the same
# THREAD and TRACE records, the same MONITOR DUMP, and the same MONITOR
# TIME rows but for the times.  (Not with cpu=samples: the sampler's
# suspensions hand the baton on at wall-clock moments.)  No time or
# number of samples is checked beyond "not 0".
set -u
cd "$(mktemp -d "./hprof_threads.XXXXXX")" || exit 1
vmrun=$1 examples=$2 tests=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }

# run NAME PROGRAM OPTIONS [ARG]: hprof with OPTIONS into NAME.txt.
run() {
    name=$1 program=$2 options=$3
    shift 3
    $vmrun --gc="$gc" --vmpi-strict $vmargs -agentlib:hprof=$options,cutoff=0,file="$name.txt" "$program" "$@" \
        >"$name.out" 2>"$name.err" || fail "$gc: $name failed: $(tail -n 3 "$name.err")"
}

# threads FILE NAME...: main and each NAME started and ended, every TRACE's
# thread one of them.
threads() {
    file=$1
    shift
    for name in main "$@"; do
        id=$(sed -n "s/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name=\"$name\", group=\"main\")\$/\1/p" "$file")
        [ -n "$id" ] || fail "$file: no THREAD START for \"$name\""
        grep -q "^THREAD END (id = $id)\$" "$file" || fail "$file: no THREAD END for \"$name\" ($id)"
    done
    # hprof's own system threads are threads of the VM too (JVMPI 1.2,
    # CreateSystemThread), stopped at JVM_SHUT_DOWN: no THREAD END.
    for name in "hprof sampler" "hprof sampler unstaller"; do
        grep -q "^THREAD START (obj=[0-9a-f]*, id = [0-9]*, name=\"$name\", group=\"main\")\$" "$file" ||
            fail "$file: no THREAD START for hprof's \"$name\""
    done
    [ "$(grep -c '^THREAD START' "$file")" = $(($# + 3)) ] || fail "$file: not $(($# + 3)) THREAD STARTs"
    awk '/^THREAD START/ { id = $6; sub(",", "", id); started[id] = 1 }
         /^TRACE / { if ($3 !~ /^\(thread=[0-9]+\)$/) exit 1; t = $3; gsub(/[^0-9]/, "", t); if (!(t in started)) exit 1 }' \
        "$file" || fail "$file: a TRACE without (thread=N) of a started thread"
}

# java_row FILE CLASS FRAME: a MONITOR TIME (Java) row of CLASS counted
# above 0 whose TRACE's innermost frame starts with FRAME.
java_row() {
    awk -v class="$2" -v frame="$3" '
        /^TRACE / { trace = $2; sub(":", "", trace); next }
        /^\t/ && !(trace in first) { first[trace] = $1; next }
        /^MONITOR TIME BEGIN/ { table = 1; next }
        /^MONITOR TIME END/ { table = 0 }
        table && $NF == "(Java)" && $(NF - 1) == class && $4 > 0 && index(first[$5], frame) == 1 { found = 1 }
        END { exit !found }' "$1" || fail "$1: no (Java) row of $2 under a trace at $3"
}

# The sampled traces' threads in FILE's CPU SAMPLES, sorted.
sampled_threads() {
    awk '/^TRACE / { trace = $2; sub(":", "", trace); t = $3; gsub(/[^0-9]/, "", t); thread[trace] = t }
         /^CPU SAMPLES BEGIN/ { table = 1; next } /^CPU SAMPLES END/ { table = 0 }
         table && $1 ~ /^[0-9]+$/ && $4 > 0 { print thread[$5] }' "$1" | sort -u | tr '\n' ' '
}

# The calls of METHOD per thread in FILE's CPU TIME table: "thread count ...".
calls_by_thread() {
    awk -v method="$2" '/^TRACE / { trace = $2; sub(":", "", trace); t = $3; gsub(/[^0-9]/, "", t); thread[trace] = t }
         /^CPU TIME \(ms\) BEGIN/ { table = 1; next } /^CPU TIME \(ms\) END/ { table = 0 }
         table && $6 == method { n[thread[$5]] += $4 }
         END { for (t in n) print t, n[t] }' "$1" | sort | tr '\n' ' '
}

# The MONITOR DUMP of FILE with addresses and trace numbers replaced by the
# trace's innermost frame.
monitor_dump() {
    awk '/^TRACE / { trace = $2; sub(":", "", trace); next }
         /^\t/ && !(trace in first) { first[trace] = $1; next }
         /^MONITOR DUMP BEGIN/ { dump = 1; next } /^MONITOR DUMP END/ { dump = 0 }
         dump { line = $0; if (match(line, /trace [0-9]+/)) { t = substr(line, RSTART + 6, RLENGTH - 6); sub("trace " t, "at " first[t], line) }
                gsub(/0x[0-9a-f]+/, "ADDR", line); print line }' "$1"
}

vmargs=
for gc in "$@"; do
    samples=cpu=samples,thread=y,monitor=y,interval=1
    run "pc_$gc" "$examples/threads_producer_consumer.gcl" $samples
    run "lock_$gc" "$examples/threads_contended_lock.gcl" $samples
    run "handoff_$gc" "$examples/threads_handoff.gcl" $samples
    # The lock at its default rounds (its .expected is for the suite's
    # fewer), enough to be contended: 4 workers x 5000 rounds x 20.
    echo "counter: 400000" | cmp -s - "lock_$gc.out" || fail "$gc: threads_contended_lock printed $(head -n 3 "lock_$gc.out")"
    for example in pc:producer_consumer handoff:handoff; do
        cmp -s "${example%%:*}_$gc.out" "$examples/threads_${example#*:}.expected" ||
            fail "$gc: threads_${example#*:} printed $(head -n 3 "${example%%:*}_$gc.out")"
    done
    threads "pc_$gc.txt" producer-1 producer-2 consumer-1 consumer-2
    threads "lock_$gc.txt" worker-0 worker-1 worker-2 worker-3
    threads "handoff_$gc.txt" ping pong
    java_row "pc_$gc.txt" Queue Queue.
    java_row "lock_$gc.txt" Counter "threads_contended_lock.work(threads_contended_lock.gcl:22)"
    java_row "handoff_$gc.txt" Turn "threads_handoff.main(threads_handoff.gcl:37)"
    grep -q '(Raw)$' "lock_$gc.txt" && fail "$gc: an agent's private raw monitor in MONITOR TIME"
    grep -q 'RAW MONITOR "_' "lock_$gc.txt" && fail "$gc: hprof's own raw monitors in MONITOR DUMP"

    run "burn_$gc" "$tests/threads_burn.gcl" cpu=samples,thread=y,interval=1 2000000
    case "$(sampled_threads "burn_$gc.txt")" in
    # hprof's sampler and unstaller are 200002 and 200003 (their THREAD
    # STARTs come at JVM_INIT_DONE), the burners 200004 and 200005.
    *"200004 200005 ") ;; # main (200001) too if a round came before it reached join
    *) fail "$gc: threads_burn sampled threads '$(sampled_threads "burn_$gc.txt")', not both burners" ;;
    esac

    run "times_$gc" "$tests/threads_burn.gcl" cpu=times,thread=y 1000
    [ "$(calls_by_thread "times_$gc.txt" threads_burn.step)" = "200002 1000 200003 1000 " ] ||
        fail "$gc: step's calls by thread are '$(calls_by_thread "times_$gc.txt" threads_burn.step)'"
    [ "$(calls_by_thread "times_$gc.txt" threads_burn.burn)" = "200002 1 200003 1 " ] ||
        fail "$gc: burn's calls by thread are '$(calls_by_thread "times_$gc.txt" threads_burn.burn)'"

    vmargs=--seed=3
    run "state_$gc" "$tests/monitor_state.gcl" monitor=y,thread=y
    vmargs=
    monitor_dump "state_$gc.txt" >"state_$gc.dump"
    cat >expected.dump <<'EOF'
    THREAD 200001, at Lock.hold_and_exit(monitor_state.gcl:14), status: R
    THREAD 200002, at monitor_state.wait_for_notify(monitor_state.gcl:22), status: CW
    THREAD 200003, at monitor_state.enter(monitor_state.gcl:27), status: MW
    MONITOR Lock(ADDR)
	owner: thread 200001, entry count: 2
	waiting to enter: thread 200003
	waiting to be notified: thread 200002
EOF
    cmp -s expected.dump "state_$gc.dump" || fail "$gc: the MONITOR DUMP of monitor_state is
$(cat "state_$gc.dump")"
done

# --seed=7 twice under the first collector: the same records and counts.
gc=$1 vmargs=--seed=7
run seed_a "$examples/threads_contended_lock.gcl" monitor=y,thread=y,heap=sites
run seed_b "$examples/threads_contended_lock.gcl" monitor=y,thread=y,heap=sites
for f in seed_a seed_b; do
    grep '^THREAD \|^TRACE \|^	' $f.txt >$f.records
    monitor_dump $f.txt >$f.dump
    awk '/^MONITOR TIME BEGIN/ { t = 1; next } /^MONITOR TIME END/ { t = 0 } t && $1 ~ /^[0-9]+$/ { print $4, $5, $6, $7 }' \
        $f.txt | sort >$f.rows
done
[ -s seed_a.rows ] || fail "--seed=7: no MONITOR TIME row"
for part in records dump rows; do
    cmp -s seed_a.$part seed_b.$part || fail "--seed=7 twice: the $part differ: $(diff seed_a.$part seed_b.$part | head -n 4)"
done
echo "$# collectors: threads sampled, traces by thread, Java monitors timed and dumped; --seed=7 repeats" \
    "($(cat seed_a.rows))"
