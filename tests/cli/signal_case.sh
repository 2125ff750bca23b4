#!/bin/sh
# signal_case.sh -- a run stopped by a signal: starts COMMAND, sends it
# SIGNAL once it is running, and checks that it stopped cleanly.
#
#   signal_case.sh SIGNAL STATUS STDOUT -- COMMAND [ARG...]
#
# SIGNAL  INT or TERM; INT*2 or TERM*2 to send it twice, a second apart
# STATUS  the exact exit status expected (130, 143)
# STDOUT  "file": COMMAND's output goes to a file, and the signal is sent
#         once the file is not empty (the program is past start-up);
#         "stalled-pipe": its output goes to a pipe nobody reads, and the
#         signal is sent after a second, when COMMAND is blocked writing
#
# Checks: the status; "stopped by SIGNAL" on standard error (for a second
# signal, that the VM exited at once, without the agents); and that
# trace.jsonl, if COMMAND wrote one (-agentlib:trace), ends with the
# JVM_SHUT_DOWN event.  Timing is never asserted: a slow machine only
# makes the wait longer.
set -u
. "$(dirname "$0")/verdict.sh"
sig=${1%\*2} expect_status=$2 stdout_mode=$3
send="kill -s $sig \$\$ 2>/dev/null"
twice=no
[ "$sig" != "$1" ] && twice=yes send="$send; sleep 1; $send"
shift 3
[ "$1" = "--" ] && shift
scratch=$(mktemp -d)
cleanup() {
    [ -n "${reader:-}" ] && kill "$reader" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT
cd "$scratch" || exit 1

# A command started with & in a non-interactive shell has SIGINT ignored
# (and vmrun keeps an ignored SIGINT ignored), so COMMAND runs in the
# foreground of an inner shell, through exec, and the sender is the one
# in the background.  $$ there is the inner shell, which becomes COMMAND.
case "$stdout_mode" in
    file)
        wait_for='i=0; while [ ! -s out ] && [ $i -lt 600 ] && kill -0 $$ 2>/dev/null; do sleep 0.1; i=$((i + 1)); done'
        output=out ;;
    stalled-pipe)
        mkfifo pipe
        sleep 600 <pipe &
        reader=$!
        wait_for='sleep 1'
        output=pipe ;;
    *) echo "signal_case.sh: unknown STDOUT mode '$stdout_mode'"; exit 2 ;;
esac
sh -c "( $wait_for; $send ) & exec \"\$@\" >$output 2>err </dev/null" sh "$@"
status=$?

[ "$status" -eq "$expect_status" ] || complain "exit status $status, expected $expect_status"
grep -q "stopped by SIG$sig" err || complain "standard error does not say 'stopped by SIG$sig'"
if [ "$twice" = yes ]; then
    grep -q "second signal" err || complain "standard error does not mention the second signal"
elif [ -e trace.jsonl ]; then
    tail -n 1 trace.jsonl | grep -q '"event":"JVM_SHUT_DOWN"' ||
        complain "trace.jsonl does not end with JVM_SHUT_DOWN: $(tail -n 1 trace.jsonl)"
fi
verdict err "$@"
