#!/bin/sh
# page_in_chromium.sh VMRUN HEAPVIEW SOURCE_DIR WORK_DIR
#
# heapview's page in headless Chromium (docs/heapview.md, "The test"): a
# small deterministic program runs under every collector with the trace
# agent; heapview draws the five traces side by side; Chromium loads the page
# from disk with its Content-Security-Policy in force and dumps the DOM.  The
# page must say it is ready, with no CSP violation, and the counts it added up
# from its own data must be the traces' own counts (objects allocated, moved
# and freed, collections, arenas) for every collector.  A copy of the page
# with an external image must report a CSP violation, which shows the policy
# is in force.  The page's model of each collection it steps through, and
# its lifetimes, must be what page_truth.py works out from the traces and
# the heapdump agent's dumps; a screenshot must show the colours the page
# says it drew where it drew them, strips in proportion to their arenas, and
# the same check must fail on a blank and on a recoloured copy of the page.
set -eu
vmrun=$1 heapview=$2 source=$3 work=$4
collectors="marksweep markcompact semispace generational refcount"
program=$source/examples/bench/binary_trees.gcl

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || fail "chromium is not installed (.ci/install-deps installs it)"

rm -rf "$work"
mkdir -p "$work"
traces=""
for gc in $collectors; do
    # 64 KiB and depth 7: every collector collects several times.
    "$vmrun" --gc="$gc" --heap=64k --seed=1 -agentlib:trace=file="$work/$gc.jsonl" \
        -agentlib:heapdump=file="$work/$gc.dumps" "$program" 7 >/dev/null
    traces="$traces $work/$gc.jsonl"
done
# shellcheck disable=SC2086 # one argument per trace
"$heapview" --title="binary_trees 7, 64 KiB heap" -o "$work/page.html" $traces

grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" "$work/page.html" ||
    fail "the page has no Content-Security-Policy with default-src 'none'"
! grep -Eq '<[a-z]+ [^>]*(src|href)=' "$work/page.html" || fail "the page refers to an outside resource"

# Chromium's own profile and home inside the work directory; its complaints
# about D-Bus and the GPU go to a log.
chrome() {
    HOME=$work chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$work/profile" \
        --virtual-time-budget=20000 --window-size=1400,1500 --hide-scrollbars "$@" 2>>"$work/chromium.log"
}
attribute() { # attribute FILE ELEMENT-ID NAME: the data-NAME of the element with that id
    tr '\n' ' ' <"$1" | grep -o "<[a-z]* [^>]*id=\"$2\"[^>]*>" | head -n 1 | grep -o " data-$3=\"[^\"]*\"" |
        sed 's/.*="\(.*\)"/\1/'
}

# Step 1: the first collection of any run, just done, its emptied space on show.
chrome --dump-dom "file://$work/page.html#step=1" >"$work/dom.html"
ready=$(attribute "$work/dom.html" heapview-summary ready)
[ "$ready" = yes ] || fail "the page is not ready: '$ready' ($(attribute "$work/dom.html" heapview-summary error))"
[ "$(attribute "$work/dom.html" heapview-summary csp-violations)" = 0 ] || fail "the page broke its own CSP"
[ "$(attribute "$work/dom.html" heapview-summary runs)" = 5 ] || fail "the page does not show 5 runs"
[ "$(attribute "$work/dom.html" heapview-summary strips)" = 5 ] || fail "the page did not draw 5 heap maps"

arenas_drawn=0
for gc in $collectors; do
    trace=$work/$gc.jsonl
    events() { grep -c "\"event\":\"$1\"" "$trace" || true; }
    arenas=$(grep '"event":"ARENA_NEW"' "$trace" | grep -o '"arena_id":[0-9]*' | sort -u | wc -l)
    arenas_drawn=$((arenas_drawn + arenas))
    collections=$(events GC_START)
    [ "$collections" -ge 2 ] || fail "$gc: the test program collected $collections times: make it collect"
    for pair in "allocated $(events OBJECT_ALLOC)" "moved $(events OBJECT_MOVE)" "freed $(events OBJECT_FREE)" \
                "collections $collections" "arenas $arenas"; do
        name=${pair% *} expected=${pair#* }
        shown=$(attribute "$work/dom.html" "summary-$gc" "$name")
        [ "$shown" = "$expected" ] || fail "$gc: the page shows $name=$shown, the trace has $expected"
    done
done
[ "$(attribute "$work/dom.html" heapview-summary arenas-drawn)" = "$arenas_drawn" ] ||
    fail "the page drew $(attribute "$work/dom.html" heapview-summary arenas-drawn) arena strips, the traces have $arenas_drawn arenas"

# The policy is in force: an outside image in a copy of the page is refused.
sed 's|</body>|<img src="https://example.invalid/x.png" alt=""></body>|' "$work/page.html" >"$work/breach.html"
chrome --dump-dom "file://$work/breach.html" >"$work/breach-dom.html"
violations=$(attribute "$work/breach-dom.html" heapview-summary csp-violations)
[ "${violations:-0}" -ge 1 ] || fail "an outside image raised no CSP violation: the policy is not in force"

# The page's model against the traces and dumps (tests/heapview/page_truth.py).
# shellcheck disable=SC2086 # one argument per collector
model=$(python3 "$source/tests/heapview/page_truth.py" model "$work" $collectors) || fail "the page's model is not the traces'"

# The screenshot against the page's model; a blank or recoloured page must fail.
chrome --screenshot="$work/page.png" "file://$work/page.html#step=1" >/dev/null
pixels=$(python3 "$source/tests/heapview/page_truth.py" pixels "$work/dom.html" "$work/page.png") ||
    fail "the screenshot is not what the page says it drew"
for broken in "visibility: hidden" "filter: hue-rotate(90deg)"; do
    sed "s|</head>|<style>canvas.map { $broken; }</style></head>|" "$work/page.html" >"$work/broken.html"
    chrome --screenshot="$work/broken.png" "file://$work/broken.html#step=1" >/dev/null
    ! python3 "$source/tests/heapview/page_truth.py" pixels "$work/dom.html" "$work/broken.png" 2>/dev/null ||
        fail "the screenshot check passed a page drawn with canvas.map { $broken; }"
done
echo "heapview: ok: 5 collectors, counts agree, CSP in force; $model; $pixels"
