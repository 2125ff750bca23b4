# verdict.sh -- sourced by the signal cases: complain about each failed
# check, then give one verdict.
#
#   complain MESSAGE      prints "FAIL: MESSAGE" and marks the case failed
#   verdict COMMAND...    exits 0, or, after a complaint, 1 with the command
#                         and the head of standard error (the file `err`)
failed=0
complain() { echo "FAIL: $*"; failed=1; }
verdict() {
    if [ "$failed" -ne 0 ]; then
        echo "command: $*"
        echo "--- standard error (first 20 lines):"
        head -n 20 err
        exit 1
    fi
    exit 0
}
