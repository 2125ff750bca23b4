#!/bin/sh
# run_case.sh -- one command-line test: runs COMMAND with no input and checks
# its exit status, its standard output and its standard error.
#
#   run_case.sh STATUS STDOUT STDERR -- COMMAND [ARG...]
#
# STATUS  the exact exit status expected
# STDOUT  a file holding the exact expected standard output, or "-" to ignore it
# STDERR  extended regular expressions, separated by "@@", each of which some
#         line of standard error must match; "" for "must be empty"; "-" to
#         ignore it
set -u
. "$(dirname "$0")/verdict.sh"
expect_status=$1 expect_stdout=$2 expect_stderr=$3
shift 3
[ "$1" = "--" ] && shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$@" >"$scratch/out" 2>"$scratch/err" </dev/null
status=$?
[ "$status" -eq "$expect_status" ] || complain "exit status $status, expected $expect_status"
if [ "$status" -ge 128 ] && [ "$status" -ne "$expect_status" ]; then complain "killed by signal $((status - 128))"; fi
if [ "$expect_stdout" != "-" ] && ! cmp -s "$expect_stdout" "$scratch/out"; then
    complain "standard output differs from $expect_stdout:"
    diff "$expect_stdout" "$scratch/out" | head -n 20
fi
case "$expect_stderr" in
    -) ;;
    "") [ ! -s "$scratch/err" ] || complain "standard error should be empty" ;;
    *)
        rest=$expect_stderr
        while [ -n "$rest" ]; do
            pattern=${rest%%@@*}
            case "$rest" in *@@*) rest=${rest#*@@} ;; *) rest="" ;; esac
            grep -Eq -- "$pattern" "$scratch/err" || complain "standard error does not match /$pattern/"
        done ;;
esac
# A script whose output is not compared says what failed on it.
if [ "$failed" -ne 0 ] && [ "$expect_stdout" = "-" ] && [ -s "$scratch/out" ]; then
    echo "--- standard output (first 20 lines):"
    head -n 20 "$scratch/out"
fi
verdict "$scratch/err" "$@"
