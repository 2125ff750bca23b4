# verdict.sh -- sourced by the command-line cases (run_case.sh and the
# signal cases): complain about each failed check, then give one verdict.
#
#   complain MESSAGE          prints "FAIL: MESSAGE" and marks the case failed
#   verdict ERR COMMAND...    exits 0, or, after a complaint, 1 with the
#                             command and the head of its standard error,
#                             the file ERR
failed=0
complain() { echo "FAIL: $*"; failed=1; }
verdict() {
    err_file=$1
    shift
    if [ "$failed" -ne 0 ]; then
        echo "command: $*"
        echo "--- standard error (first 20 lines):"
        head -n 20 "$err_file"
        exit 1
    fi
    exit 0
}
