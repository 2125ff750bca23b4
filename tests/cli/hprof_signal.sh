#!/bin/sh
# hprof_signal.sh -- hprof dumps on demand: SIGQUIT makes the VM post
# DATA_DUMP_REQUEST, and hprof appends a dump to its profile.
#
#   hprof_signal.sh DUMPS OPTIONS -- VMRUN PROGRAM
#
# Starts VMRUN --vmpi-strict -agentlib:hprof=OPTIONS PROGRAM (a program
# that prints, then works for a second or more: cli/work_then_finish.gcl),
# sends SIGQUIT once its output is not empty (as data_signal_case.sh does),
# and checks that the run succeeds and java.hprof.txt holds DUMPS dumps:
# one header, DUMPS HEAP DUMP sections and DUMPS SITES tables (options
# heap=all), each HEAP DUMP with as many OBJ and ARR records as its header
# counts, and every TRACE once (a later dump adds only new ones).  Timing is
# never asserted.
set -u
. "$(dirname "$0")/verdict.sh"
. "$(dirname "$0")/hprof_sigquit_run.sh"
dumps=$1 options=$2
shift 3
hprof_sigquit_run "$options" "$@"

count() { grep -c "$1" java.hprof.txt; }
[ "$status" -eq 0 ] || complain "exit status $status, expected 0"
grep -q "^vmrun: SIGQUIT: stack trace of thread main$" err || complain "the VM did not serve SIGQUIT"
if [ ! -s java.hprof.txt ]; then
    complain "no java.hprof.txt"
else
    [ "$(count '^JAVA PROFILE 1.0.1, created ')" = 1 ] || complain "the header is not written once"
    [ "$(count '^HEAP DUMP BEGIN ')" = "$dumps" ] || complain "$(count '^HEAP DUMP BEGIN ') HEAP DUMPs, expected $dumps"
    [ "$(count '^HEAP DUMP END$')" = "$dumps" ] || complain "$(count '^HEAP DUMP END$') HEAP DUMP ENDs, expected $dumps"
    [ "$(count '^SITES BEGIN ')" = "$dumps" ] || complain "$(count '^SITES BEGIN ') SITES tables, expected $dumps"
    awk '/^HEAP DUMP BEGIN/ { want = substr($4, 2); n = 0 }
         /^(OBJ|ARR) /      { n++ }
         /^HEAP DUMP END/   { if (n != want) bad = 1 }
         END                { exit bad }' java.hprof.txt || complain "a HEAP DUMP's records do not match its header"
    [ -z "$(grep '^TRACE ' java.hprof.txt | sort | uniq -d)" ] || complain "a TRACE is written twice"
fi
verdict "$@"
