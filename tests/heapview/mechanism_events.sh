#!/bin/sh
# mechanism_events.sh HEAPVIEW TRACE2JSON SOURCE_DIR WORK_DIR
#
# heapview --run asks every collector for its mechanism events and plays
# them (docs/heapview.md, "The step-through view"): on a small program of
# the kind a student types (written here, not a bundled example), heapview
# runs all five collectors, keeping their recordings and dumps (--keep);
# Chromium loads the page; page_truth.py, from each recording (turned into
# JSON lines) and each dump, checks every collection the page steps
# through: played from the events, not computed; blackened = reachable
# from the roots; forwarding addresses = the moves that follow; reference
# counts = the references in the dump; frees by cause = the events' causes.
# The words of one step per collector are checked as well.
set -eu
heapview=$1 trace2json=$2 source=$3 work=$4
collectors="marksweep markcompact semispace generational refcount"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || fail "chromium is not installed (.ci/install-deps installs it)"
rm -rf "$work"
mkdir -p "$work/runs"
cat >"$work/pairs.gcl" <<'PROGRAM'
// Pairs that point at each other; every fiftieth is kept on a list, the
// rest are dropped at once (garbage cycles, for reference counting).  The
// head of the list, soon old, points at the newest pair (old to young).
class Node {
    Node next;
    Node partner;
    Node newest;
    int value;
}

int main(string[] args) {
    Node kept = null;
    for (int round = 0; round < 3000; round++) {
        Node a = new Node();
        Node b = new Node();
        a.partner = b;
        b.partner = a;
        a.value = round;
        if (kept != null) kept.newest = a;
        if (round % 50 == 0) {
            a.next = kept;
            kept = a;
        }
    }
    int sum = 0;
    for (Node n = kept; n != null; n = n.next) sum = sum + n.value + n.partner.partner.value;
    println("kept sum " + sum);
    return 0;
}
PROGRAM
"$heapview" -o "$work/runs/page.html" --keep="$work/runs" --run -- --heap=64k --seed=1 "$work/pairs.gcl"
for gc in $collectors; do
    "$trace2json" -o "$work/runs/$gc.jsonl" "$work/runs/$gc.bin"
done
open_page() { # open_page PAGE FRAGMENT: the DOM Chromium dumps
    HOME=$work chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
        --user-data-dir="$work/profile" --virtual-time-budget=20000 --window-size=1000,900 \
        --dump-dom "file://$1#$2" 2>>"$work/chromium.log"
}
open_page "$work/runs/page.html" steps >"$work/runs/dom.html"
# shellcheck disable=SC2086 # one argument per collector
result=$(python3 "$source/tests/heapview/page_truth.py" mechanism "$work/runs" $collectors) ||
    fail "the page's model is not the trace's"

# Steps in each collector's words, from a page of its run alone.
expect_words() { # expect_words RUN FRAGMENT PATTERN
    words=$(open_page "$work/runs/$1.html" "$2" | tr '\n' ' ' | grep -o '<div class="events">[^<]*' | head -1)
    echo "$words" | grep -Eq "$3" || fail "$1 #$2: expected /$3/, the page says: $words"
}
for gc in $collectors; do
    "$heapview" -o "$work/runs/$gc.html" "$work/runs/$gc.jsonl"
done
label='[][A-Za-z]+@[0-9]+'
expect_words marksweep 'steps&step=2&phase=mark' "\(mark\): Mark pops $label from the mark stack: "
expect_words marksweep 'steps&step=2&phase=sweep' "\(sweep\): Sweep frees $label \([0-9]+ bytes\): it was never marked\."
expect_words markcompact 'steps&step=2&phase=compute-addresses' "\(compute-addresses\): Compute-addresses (passes|gives) $label"
expect_words markcompact 'steps&step=2&phase=relocate' "\(relocate\): Relocate slides $label down from \+0x[0-9a-f]+ to \+0x[0-9a-f]+\."
expect_words semispace 'steps&step=2&phase=scan' "\(scan\): Cheney's scan reaches $label: copies its child $label to semispace-[AB] at \+0x[0-9a-f]+, leaves a forwarding pointer\."
expect_words semispace 'steps&step=2&phase=flip' "\(flip\): A root names $label: Cheney copies it to semispace-[AB] at \+0x[0-9a-f]+, leaves a forwarding pointer in its old place\."
expect_words generational 'steps&step=2&phase=scan' "\(scan\): Cheney's scan (reaches|passes) $label"
expect_words generational 'steps&step=3&phase=remembered-set' "\(remembered-set\): The remembered set: old $label refers to $label, so it is copied to "
expect_words refcount 'steps&step=2&phase=mark-gray' "\(mark-gray\): $label's reference count (is now|falls to) [0-9]+ \(trial deletion"
expect_words refcount 'steps&step=2&phase=collect-white' "\(collect-white\): Trial deletion's collect-white frees $label \([0-9]+ bytes\): it is in a garbage cycle\."
echo "heapview mechanism events: $result"
