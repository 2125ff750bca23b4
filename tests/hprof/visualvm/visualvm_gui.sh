#!/bin/sh
# visualvm_gui.sh -- the real VisualVM opens a format=b dump and answers
# every view it has for it: Debian's visualvm, under Xvfb, opens the dump of
# shapes.gcl, shows its summary and its classes view (Objects, aggregated
# by class), computes retained sizes, and shows the dominators (Objects,
# preset Dominators), and nothing it does throws.
#
#   visualvm_gui.sh VMRUN PROGRAM [SCREENSHOTS]
#
# PROGRAM is shapes.gcl, run with 700 Points more than its own: VisualVM's
# dominators (JavaClassesProvider.getDominatorRoots) walk from the 1000
# objects of largest retained size to their GC roots, and on a dump of
# fewer than 1000 objects the heap library pads that list with nulls and
# the walk throws (docs/hprof.md, "In VisualVM's window").
#
# The launcher needs /usr/lib/jvm/default-java with a javac (Debian's
# default-jdk; docs/hprof.md, "In VisualVM's window").  What is checked,
# without OCR, from rows the views copy to the clipboard (Ctrl+C copies a
# row's name, the context menu's Copy > Copy Row the whole row, read with
# xclip), against the VM's text dump of the same run (heap=dump):
#   - the window "VisualVM 2.1.5" appears (xdotool); the classes view,
#     opened from the summary's "view all" link by "Classes by Number of
#     Instances", lists first the program's two most numerous classes
#     (Point, long[]: the garbage arrays not yet collected count);
#   - asked for retained sizes (the Retained column's header, confirmed),
#     the classes view's row of Node, filtered by name, gives the Nodes'
#     count, their bytes and as retained size those bytes again (the tree
#     of Nodes retains only itself);
#   - the summary's "view all" link by "Dominators by Retained Size" opens
#     the dominators: the first is the class Registry, a sticky-class GC
#     root, and among its static fields tree retains its Nodes' bytes
#     (size: one Node) and points retains only itself (its Points are
#     also on the head list);
#   - VisualVM's own log (var/log/messages.log of its user directory)
#     records no exception: VisualVM logs there each one its views throw
#     (the NullPointerExceptions of issue 24 among them);
#   - each screenshot taken is not blank: it has more than 100 colours (a
#     window that stopped repainting, or never drew its tables, has a
#     handful).
# The layout is VisualVM's default for a fresh user directory on a 1280x900
# screen: the clicks are at fixed places in the window.  The screenshots
# (summary, classes, dominators) are copied to the directory SCREENSHOTS if
# given (docs/images: visualvm-summary.png, visualvm-classes.png,
# visualvm-dominators.png).
set -u
. "$(dirname "$0")/../../cli/verdict.sh"
vmrun=$1 program=$2 screenshots=${3:-}
scratch=$(mktemp -d)
xvfb= visualvm=
# shellcheck disable=SC2317 # called by the trap
stop() {
    [ -n "$visualvm" ] && kill "$visualvm" 2> /dev/null
    [ -n "$xvfb" ] && kill "$xvfb" 2> /dev/null
    wait 2> /dev/null
    rm -rf "$scratch"
}
trap stop EXIT
cd "$scratch" || exit 1
: > err

for tool in Xvfb xdotool xclip import convert visualvm; do
    command -v "$tool" > /dev/null || complain "no $tool: run .ci/install-deps"
done
[ -x /usr/lib/jvm/default-java/bin/javac ] || complain "no default-java with javac (default-jdk): run .ci/install-deps"
[ "$failed" -eq 0 ] || verdict err gui

run="$vmrun --gc=marksweep --heap=256k"
$run -agentlib:hprof=format=b,file=heap.hprof "$program" 700 > /dev/null 2>> err || complain "the format=b run failed"
$run -agentlib:hprof=heap=dump,file=heap.txt "$program" 700 > /dev/null 2>> err || complain "the text run failed"
# Each object's class and size; an array's class is its element type's
# (which the text dump names in Java's terms, as format=b does) and [].
sed -n -e 's/^OBJ .*sz=\([0-9]*\),.*class=\([^@]*\)@.*/\2 \1/p' \
    -e 's/^ARR .*sz=\([0-9]*\),.*elem type=\([^@)]*\).*/\2[] \1/p' heap.txt > objects
expected=$(awk '{ print $1 }' objects | sort | uniq -c | sort -rn | head -n 2 | awk '{ print $2 }')
# The Nodes' count, bytes and one's size; VisualVM writes sizes with a
# thousands separator (1,240 B).
read -r node_count node_total node_size << EOF
$(awk '$1 == "Node" { n++; bytes += $2; size = $2 } END { print n, bytes, size }' objects)
EOF
node_bytes=$(echo "$node_total" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta')

# A display of its own, numbered by Xvfb.
Xvfb -displayfd 1 -screen 0 1280x900x24 -nolisten tcp > display 2> xvfb.err &
xvfb=$!
for _ in $(seq 1 50); do [ -s display ] && break; sleep 0.2; done
DISPLAY=:$(cat display)
export DISPLAY
# A fresh user directory whose licence is accepted (else a dialog waits),
# and a temporary directory of its own (else it lists the machine's JVMs).
mkdir -p user/var tmp
touch user/var/license_accepted
visualvm --userdir "$scratch/user" --cachedir "$scratch/cache" -J-Djava.io.tmpdir="$scratch/tmp" \
    --openfile "$scratch/heap.hprof" > visualvm.out 2>&1 &
visualvm=$!

window=
for _ in $(seq 1 120); do
    window=$(xdotool search --name '^VisualVM 2' 2> /dev/null | head -n 1)
    [ -n "$window" ] && break
    sleep 1
done
[ -n "$window" ] || { cat visualvm.out; complain "no VisualVM window"; verdict err gui; }

# A click at x y in the window (xdotool's --window does not reach Java's
# windows: the pointer moves to the screen's place).
eval "$(xdotool getwindowgeometry --shell "$window")"
point() { xdotool mousemove $((X + $1)) $((Y + $2)); }
click() { point "$1" "$2" && xdotool click "${3:-1}"; }
clipboard() {
    sleep 1
    xclip -o -selection clipboard 2> /dev/null
}
empty_clipboard() { xclip -selection clipboard /dev/null > /dev/null 2>&1; } # xclip stays to serve it
# The name in the row the view has selected.
copy_name() {
    empty_clipboard
    xdotool key ctrl+c
    clipboard
}
# The name in the table's row at y: a click on a row that is not there
# does nothing (a right click there throws in VisualVM: wait for the row
# with this before copy_row).
row_name() {
    click 410 "$1"
    copy_name
}
# The whole row at y in the view's table, tab-separated, from its context
# menu: Copy is its item at OFFSET pixels below the click (100 for a
# class, 119 for an object or a field, which have one item more), and
# Copy Row the first item of the submenu it opens when the pointer rests
# on it.
copy_row() {
    empty_clipboard
    click 460 "$1" 3
    sleep 1
    point 510 $(($1 + $2))
    sleep 1
    click 644 $(($1 + $2))
    clipboard
}
# The y of the table's row N (from 0) in the Objects view.
row() { echo $((192 + 18 * $1)); }
# A screenshot of the window, which must not be blank, kept as NAME.png.
screenshot() {
    sleep 2
    import -window "$window" "$1.png"
    colours=$(convert "$1.png" -format '%k' info:)
    [ "$colours" -gt 100 ] || complain "the screenshot of the $1 has $colours colours: blank"
}
# Runs COMMAND until its output matches PATTERN (grep), at most 20 times
# (a view fills while VisualVM computes), and prints the last output.
until_shown() {
    pattern=$1
    shift
    for _ in $(seq 1 20); do
        shown=$("$@")
        echo "$shown" | grep -q "$pattern" && break
        sleep 2
    done
    echo "$shown"
}

# The classes view: the summary shows "view all" by "Classes by Number of
# Instances" once the dump is read; each try clicks it, then the first row
# of the view it opens.
open_classes() {
    click 527 379
    sleep 2
    click 370 "$(row 0)"
    copy_name
}
rows=$(until_shown . open_classes)
xdotool key Down
rows="$rows
$(copy_name)"
[ "$rows" = "$expected" ] ||
    complain "the classes view's first rows are '$(echo "$rows" | tr '\n' ' ')', the VM's most numerous classes '$(echo "$expected" | tr '\n' ' ')'"

# Retained sizes: the Retained column's header ("sort to get"), then Yes
# in the dialog that warns of the time it takes; the class filter keeps
# the row of Node.
click 800 174
sleep 2
click 546 345
sleep 2
click 530 544
xdotool type Node
xdotool key Return
until_shown '^Node$' row_name "$(row 0)" > /dev/null
node_row=$(until_shown "^Node	.* B (.*)	.* B (.*)$" copy_row "$(row 0)" 100)
echo "$node_row" | grep -q "^Node	$node_count (.*)	$node_bytes B (.*)	$node_bytes B (.*)$" ||
    complain "the classes view's row of Node is '$node_row', not $node_count Nodes of $node_bytes bytes retaining $node_bytes"
click 879 544 # closes the filter: every class, by retained size
screenshot classes

# The summary, from the view's menu, and its dominators ("view all").
click 326 151
sleep 1
click 342 180
screenshot summary
click 800 512
dominator=$(until_shown '^class Registry' row_name "$(row 0)")
echo "$dominator" | grep -q '^class Registry \[GC root - sticky class\]' ||
    complain "the first dominator is '$dominator', not the class Registry"
# Registry's static fields: the row's expander, then that of <static
# fields>, the first of its rows; its fields come by retained size.
click 291 "$(row 0)"
until_shown '^<static fields>' row_name "$(row 1)" > /dev/null
click 311 "$(row 1)"
until_shown '^static ' row_name "$(row 6)" > /dev/null
statics=
for n in 2 3 4 5 6; do
    statics="$statics$(copy_row "$(row $n)" 119)
"
done
echo "$statics" | grep -q "^static tree = Node#[0-9]*	$node_size B (.*)	$node_bytes B (.*)$" ||
    complain "no row 'static tree' of size $node_size retaining $node_bytes among Registry's: $statics"
echo "$statics" | grep -q '^static points = Point\[\]#[0-9]*[^	]*	\([0-9,]*\) B ([^)]*)	\1 B (.*)$' ||
    complain "no row 'static points' retaining its own size among Registry's: $statics"
screenshot dominators

log=user/var/log/messages.log
[ -s "$log" ] || complain "VisualVM wrote no log"
# Its update check, which finds no network, is not one of its views.
if grep -v 'modules.autoupdate' "$log" | grep -q 'Exception\|^SEVERE'; then
    grep -v 'modules.autoupdate' "$log" | grep -B2 -A8 'Exception\|^SEVERE' | head -n 40
    complain "VisualVM logged an exception"
fi
if [ -n "$screenshots" ]; then
    for view in summary classes dominators; do cp "$view.png" "$screenshots/visualvm-$view.png"; done
fi
verdict err gui
