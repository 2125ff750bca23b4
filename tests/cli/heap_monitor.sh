#!/bin/sh
# heap_monitor.sh -- heap sampling (JVMTI 11, SetHeapSamplingInterval) as
# OpenJDK's HeapMonitor tests check it, with the heap_monitor test agent,
# under every collector given.
#
#   heap_monitor.sh CHECK VMRUN AGENT CHURN SITES COLLECTOR...
#
# CHURN is examples/bench/list_churn.gcl (many small objects), SITES
# tests/cli/sampled_sites.gcl (the bytes come from one known line).  CHECK:
#   every_allocation  interval 0: one sample per allocation the agent counts
#   rate              over 20 MB, samples within 10% of bytes / interval,
#                     for intervals of 4 KiB and 16 KiB
#   toggle            no sample while the event is disabled, every
#                     allocation sampled again once it is enabled
#   first_allocation  over ten seeds, the first allocation is sampled at
#                     most twice (it would always be with a countdown
#                     that starts at the first byte)
#   trace             samples name Buffers.fill at the line of its `new`,
#                     called from main at the line of its call
#   same_seed         the same --seed gives the same samples, byte for byte,
#                     run after run and under every collector (they depend
#                     on bytes allocated only), whether or not OBJECT_ALLOC
#                     is on (the fast path's threshold misses none); another
#                     seed, or none, gives others
set -u
check=$1 vmrun=$2 agent=$3 churn=$4 sites=$5
shift 5
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/same_as_first.sh"

# monitor OUT GC VMRUN-OPTIONS AGENT-OPTIONS PROGRAM ARGS...
monitor() {
    out=$1 gc=$2 vm_options=$3 agent_options=$4
    shift 4
    # shellcheck disable=SC2086 # vm_options is a list of options
    $vmrun --gc="$gc" $vm_options -agentpath:"$agent"=file="$out"${agent_options:+,$agent_options} "$@" \
        >/dev/null 2>"$out.err" || fail "$gc: vmrun failed: $(tail -n 3 "$out.err")"
}
value() { awk -v name="$1" '$1 == name { print $2 }' "$2"; }

case $check in
every_allocation)
    for gc in "$@"; do
        monitor "every_$gc.txt" "$gc" "" interval=0,count=y "$churn" 2000
        samples=$(value samples "every_$gc.txt") allocations=$(value allocations "every_$gc.txt")
        [ "$allocations" -gt 10000 ] || fail "$gc: only $allocations allocations"
        [ "$samples" = "$allocations" ] || fail "$gc: $samples samples of $allocations allocations"
    done
    echo "$# collectors: one sample per allocation" ;;
rate)
    for gc in "$@"; do
        for interval in 4096 16384; do
            out="rate_${gc}_$interval.txt"
            monitor "$out" "$gc" --seed=3 interval=$interval,count=y "$churn" 40000
            samples=$(value samples "$out") bytes=$(value allocated_bytes "$out")
            [ "$bytes" -ge 10000000 ] || fail "$gc: only $bytes bytes allocated"
            awk -v s="$samples" -v b="$bytes" -v i="$interval" \
                'BEGIN { e = b / i; exit !(s >= 0.9 * e && s <= 1.1 * e) }' ||
                fail "$gc: interval $interval: $samples samples over $bytes bytes"
            echo "$gc: interval $interval: $samples samples, $bytes bytes / interval = $((bytes / interval))"
        done
    done ;;
toggle)
    for gc in "$@"; do
        out="toggle_$gc.txt"
        monitor "$out" "$gc" "" interval=0,count=y,off_after=100,on_after=1000 "$churn" 2000
        allocations=$(value allocations "$out")
        [ "$(value samples_sampling_off "$out")" = 0 ] || fail "$gc: samples while disabled"
        after=$(value samples_after_on "$out")
        [ "$after" -ge $((allocations - 1100)) ] ||
            fail "$gc: $after samples after enabling again, of $((allocations - 1100)) allocations"
        [ "$(value samples "$out")" -lt "$allocations" ] || fail "$gc: every allocation sampled"
    done
    echo "$# collectors: nothing sampled while disabled, everything once enabled" ;;
first_allocation)
    for gc in "$@"; do
        sampled=0
        for seed in 1 2 3 4 5 6 7 8 9 10; do
            out="first_${gc}_$seed.txt"
            monitor "$out" "$gc" --seed=$seed interval=1024,count=y "$churn" 100
            [ "$(value first_allocation_sampled "$out")" = yes ] && sampled=$((sampled + 1))
        done
        [ "$sampled" -le 2 ] || fail "$gc: the first allocation was sampled under $sampled of 10 seeds"
        echo "$gc: the first allocation sampled under $sampled of 10 seeds"
    done ;;
trace)
    fill_line=$(grep -n 'last = new int\[words\]' "$sites" | cut -d: -f1)
    call_line=$(grep -n 'buffers.fill(8192)' "$sites" | cut -d: -f1)
    expected=" primitive[] Buffers.fill:$fill_line sampled_sites.main:$call_line"
    for gc in "$@"; do
        out="trace_$gc.txt"
        monitor "$out" "$gc" "" interval=65536,list=y "$sites" 300
        total=$(grep -c '^sample ' "$out")
        right=$(grep '^sample ' "$out" | cut -d' ' -f3- | grep -cxF "${expected# }")
        [ "$total" -ge 50 ] || fail "$gc: only $total samples"
        # 8 KiB int arrays are 99.9% of the bytes: nearly every sample is one.
        [ "$right" -ge $((total * 95 / 100)) ] ||
            fail "$gc: $right of $total samples are '$expected'; $(grep '^sample ' "$out" | sort | uniq -c | sort -rn | head -n 3)"
    done
    echo "$# collectors: samples at Buffers.fill:$fill_line from main:$call_line" ;;
same_seed)
    for gc in "$@"; do
        monitor "seed_${gc}_a.txt" "$gc" --seed=5 interval=8192,list=y,count=y "$churn" 3000
        monitor "seed_${gc}_b.txt" "$gc" --seed=5 interval=8192,list=y,count=y "$churn" 3000
        cmp -s "seed_${gc}_a.txt" "seed_${gc}_b.txt" || fail "$gc: two runs with --seed=5 differ"
        same_as_first "$gc" "seed_${gc}_a.txt" "the samples of --seed=5 differ"
        # Without OBJECT_ALLOC (the fast path calls out only at sample points).
        monitor "seed_${gc}_fast.txt" "$gc" --seed=5 interval=8192,list=y "$churn" 3000
        sed 's/ #[0-9]*$//; /^allocations\|^allocated_bytes\|^first_allocation\|^samples_/d' "seed_${gc}_a.txt" |
            cmp -s - "seed_${gc}_fast.txt" || fail "$gc: the samples differ without OBJECT_ALLOC"
    done
    monitor seed_other.txt "$first" --seed=6 interval=8192,list=y,count=y "$churn" 3000
    ! cmp -s seed_other.txt "seed_${first}_a.txt" || fail "--seed=6 gives the samples of --seed=5"
    monitor seed_none_a.txt "$first" "" interval=8192,list=y,count=y "$churn" 3000
    monitor seed_none_b.txt "$first" "" interval=8192,list=y,count=y "$churn" 3000
    ! cmp -s seed_none_a.txt seed_none_b.txt || fail "two runs without --seed gave the same samples"
    echo "$# collectors: $(value samples "seed_${first}_a.txt") samples, the same for the same seed" ;;
*)
    fail "unknown check '$check'" ;;
esac
