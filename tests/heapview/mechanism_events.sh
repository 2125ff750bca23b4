#!/bin/sh
# mechanism_events.sh VMRUN HEAPVIEW SOURCE_DIR WORK_DIR
#
# heapview plays gclab's mechanism events when a trace has them (docs/
# heapview.md, "The step-through view"): a marksweep trace of a small
# program, with the events written in by mechanism_inject.py (a mark from
# the heapdump agent's roots and references, a sweep with each free's
# cause), drawn and loaded in headless Chromium; page_truth.py must find the
# page's phases and blackening order the trace's, and the rest of its model
# true as for any trace.
set -eu
vmrun=$1 heapview=$2 source=$3 work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || fail "chromium is not installed (.ci/install-deps installs it)"
rm -rf "$work"
mkdir -p "$work"
"$vmrun" --gc=marksweep --heap=64k --seed=1 -agentlib:trace=file="$work/plain.jsonl" \
    -agentlib:heapdump=file="$work/marksweep.dumps" "$source/examples/queue_churn.gcl" >/dev/null
python3 "$source/tests/heapview/mechanism_inject.py" "$work/plain.jsonl" "$work/marksweep.dumps" "$work/marksweep.jsonl"
"$heapview" -o "$work/page.html" "$work/marksweep.jsonl"
HOME=$work chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$work/profile" \
    --virtual-time-budget=20000 --window-size=1000,900 --dump-dom "file://$work/page.html#steps" >"$work/dom.html" 2>>"$work/chromium.log"
result=$(python3 "$source/tests/heapview/page_truth.py" model "$work" marksweep) || fail "the page's model is not the trace's"
case $result in
*"(0 played from mechanism events)"*) fail "no collection was played from its mechanism events: $result" ;;
esac
tr '\n' ' ' <"$work/dom.html" | grep -q '<div class="events">[^<]*(mark): [][A-Za-z]*@[0-9]* is greyed' ||
    fail "the step-through view does not open on a greying step of the mark phase"
echo "heapview mechanism events: $result"
