#!/bin/sh
# data_signal_case.sh -- signals that must not end the program: starts
# COMMAND, sends it SIGQUIT then SIGUSR2 once its output file is not empty
# (the program is past start-up and working), and checks that it went on.
#
#   data_signal_case.sh LAST_LINE -- COMMAND [ARG...]
#
# Checks: exit status 0; standard output ends with LAST_LINE (all of it was
# written); standard error has SIGQUIT's stack trace; and if COMMAND wrote
# trace.jsonl (-agentlib:trace), it has DATA_DUMP_REQUEST and
# DATA_RESET_REQUEST and ends with JVM_SHUT_DOWN.  Timing is never
# asserted (signal_case.sh explains the foreground exec).
set -u
. "$(dirname "$0")/verdict.sh"
last_line=$1
shift
[ "$1" = "--" ] && shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1

wait_for='i=0; while [ ! -s out ] && [ $i -lt 600 ] && kill -0 $$ 2>/dev/null; do sleep 0.1; i=$((i + 1)); done'
sh -c "( $wait_for; kill -s QUIT \$\$; kill -s USR2 \$\$ ) & exec \"\$@\" >out 2>err </dev/null" sh "$@"
status=$?

[ "$status" -eq 0 ] || complain "exit status $status, expected 0"
[ "$(tail -n 1 out)" = "$last_line" ] || complain "standard output ends with '$(tail -n 1 out)', not '$last_line'"
grep -q "^vmrun: SIGQUIT: stack trace of thread main$" err && grep -q "^    at " err ||
    complain "standard error has no stack trace for SIGQUIT"
if [ -e trace.jsonl ]; then
    for event in DATA_DUMP_REQUEST DATA_RESET_REQUEST; do
        grep -q "\"event\":\"$event\"" trace.jsonl || complain "trace.jsonl has no $event"
    done
    tail -n 1 trace.jsonl | grep -q '"event":"JVM_SHUT_DOWN"' ||
        complain "trace.jsonl does not end with JVM_SHUT_DOWN: $(tail -n 1 trace.jsonl)"
fi
verdict err "$@"
