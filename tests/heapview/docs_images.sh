#!/bin/sh
# docs_images.sh HEAPVIEW SOURCE_DIR WORK_DIR [--write]
#
# The pictures docs/heapview.md and README.md show, made by the commands
# they show.  docs/heapview.md's table "The step-through view, collector by
# collector" names, per collector, the page's address and the words the
# page shows there; each page is made with the command the docs give
# (`heapview -o GC.html --run=GC -- --heap=64k --seed=1 examples/queue_churn.gcl`),
# loaded in headless Chromium at that address, and its words must be the
# docs' words.  README's page (its own command) must pass the screenshot
# check of page_truth.py.  With --write, the screenshots are written to
# docs/images/ (heapview-steps-GC.png, heapview.png): how they were made.
set -eu
heapview=$1 source=$2 work=$3 write=${4:-}
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || fail "chromium is not installed (.ci/install-deps installs it)"
rm -rf "$work"
mkdir -p "$work"
chrome() {
    HOME=$work chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$work/profile" \
        --virtual-time-budget=20000 --hide-scrollbars "$@" 2>>"$work/chromium.log"
}
rows=$(grep -E '^\| `[a-z]+` \| `#[^`]*` \| .* \|$' "$source/docs/heapview.md") || fail "docs/heapview.md has no step-through table"
[ "$(echo "$rows" | wc -l)" = 5 ] || fail "docs/heapview.md's step-through table should have a row per collector"
cd "$source"
echo "$rows" | while IFS='|' read -r _ gc address words _; do
    gc=$(echo "$gc" | tr -d ' `') address=$(echo "$address" | tr -d ' `')
    words=$(echo "$words" | sed 's/^ *//; s/ *$//')
    "$heapview" -o "$work/$gc.html" --run="$gc" -- --heap=64k --seed=1 examples/queue_churn.gcl
    chrome --window-size=1000,900 --dump-dom "file://$work/$gc.html$address" >"$work/$gc-dom.html"
    shown=$(tr '\n' ' ' <"$work/$gc-dom.html" | grep -o '<div class="events">[^<]*' | head -n 1 | sed 's/<div class="events">//; s/&amp;/\&/g')
    [ "$shown" = "$words" ] || fail "$gc: the page at $address says \"$shown\"; docs/heapview.md says \"$words\""
    if [ "$write" = --write ]; then
        chrome --window-size=1000,900 --screenshot="$source/docs/images/heapview-steps-$gc.png" "file://$work/$gc.html$address" >/dev/null
    fi
done
"$heapview" -o "$work/trees.html" --run -- --heap=64k --seed=1 examples/bench/binary_trees.gcl 7
chrome --window-size=1400,1300 --dump-dom "file://$work/trees.html" >"$work/trees-dom.html"
chrome --window-size=1400,1300 --screenshot="$work/trees.png" "file://$work/trees.html" >/dev/null
python3 "$source/tests/heapview/page_truth.py" pixels "$work/trees-dom.html" "$work/trees.png" >/dev/null ||
    fail "README's heapview page: the screenshot is not what the page says it drew"
[ "$write" = --write ] && cp "$work/trees.png" "$source/docs/images/heapview.png"
echo "heapview docs: ok: the step-through table's words are the pages' own; README's page draws what it says"
