#!/bin/sh
# hprof_monitor.sh -- hprof's monitor=y writes the monitor sections
# (docs/hprof.md).
#
#   hprof_monitor.sh VMRUN MONITOR_DUMP_AGENT HELLO
#
# Both runs under --vmpi-strict:
#   - HELLO alone: MONITOR DUMP lists no thread (main has ended by the dump
#     at exit) and no monitor (hprof's own lock is private: its name starts with
#     '_'); MONITOR TIME has a total of 0 ms and no rows;
#   - HELLO with the monitor_dump test agent (tests/agents/monitor_dump.c),
#     whose system thread waits to enter the raw monitor "held" while main
#     holds it: MONITOR TIME has a row for "held" with a count of 1 and a
#     TRACE that exists; the dump at exit lists "held", "free" and "cond",
#     each unowned by then, with their waiter lines.
set -u
vmrun=$1 agent=$2 hello=$3
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -q "$1" "$2" || fail "$2: no line '$1'"; }

# The sections' frame, in order, and the main thread's line.
sections() {
    awk '/^MONITOR DUMP BEGIN$/ { a = NR } /^MONITOR DUMP END$/ { b = NR }
         /^MONITOR TIME BEGIN \(total = [0-9]+ ms\) / { c = NR } /^MONITOR TIME END$/ { d = NR }
         END { exit !(a && b > a && c > b && d > c) }' "$1" || fail "$1: the monitor sections are missing or out of order"
    # main has ended (THREAD_END) before the dump at exit: no thread to list
    grep -q '^    THREAD ' "$1" && fail "$1: a thread that has ended is listed"
    grep -q '_hprof' "$1" && fail "$1: hprof's own lock is listed"
    return 0
}

$vmrun --vmpi-strict -agentlib:hprof=monitor=y,file=monitor_alone.txt "$hello" >/dev/null 2>monitor_alone.err ||
    fail "hello failed: $(tail -n 3 monitor_alone.err)"
sections monitor_alone.txt
has '^MONITOR TIME BEGIN (total = 0 ms) ' monitor_alone.txt
grep -q 'RAW MONITOR\|^rank ' monitor_alone.txt && fail "monitor_alone.txt: a monitor where there is none"

$vmrun --vmpi-strict -agentpath:"$agent" -agentlib:hprof=monitor=y,cutoff=0,file=monitor_agent.txt "$hello" \
    >/dev/null 2>monitor_agent.err || fail "hello with monitor_dump failed: $(tail -n 3 monitor_agent.err)"
sections monitor_agent.txt
for name in held free cond; do
    has "^    RAW MONITOR \"$name\"(0x[0-9a-f]*) unowned\$" monitor_agent.txt
done
[ "$(grep -c '^	waiting to enter:$' monitor_agent.txt)" = 3 ] || fail "monitor_agent.txt: not one waiter line per monitor"
has '^rank   self  accum   count trace monitor$' monitor_agent.txt
trace=$(awk '$NF == "(Raw)" && $(NF - 1) == "held" { print $5 }' monitor_agent.txt)
count=$(awk '$NF == "(Raw)" && $(NF - 1) == "held" { print $4 }' monitor_agent.txt)
[ "$count" = 1 ] || fail "monitor_agent.txt: held was contended ${count:-0} times, not once"
has "^TRACE $trace:\$" monitor_agent.txt
echo "monitor sections present; held contended once, under TRACE $trace"
