#!/bin/sh
# visualvm_gui.sh -- the real VisualVM opens a format=b dump: Debian's
# visualvm, under Xvfb, opens the dump of shapes.gcl, shows its summary,
# then its classes view (Objects, aggregated by class, by count), and
# nothing it does throws.
#
#   visualvm_gui.sh VMRUN PROGRAM [SCREENSHOT]
#
# The launcher needs /usr/lib/jvm/default-java with a javac (Debian's
# default-jdk; docs/hprof.md, "In VisualVM's window").  What is checked,
# without OCR:
#   - the window "VisualVM 2.1.5" appears (xdotool), and after the classes
#     view is opened from the summary's "view all" link, the names of its
#     first two rows, copied row by row to the clipboard (Ctrl+C, read with
#     xclip), are the program's two most numerous classes, as the VM's text
#     dump of the same run counts them (Point, Node);
#   - VisualVM's own log (var/log/messages.log of its user directory),
#     after the summary and the classes view, records no exception: VisualVM logs there each one its views throw (the
#     NullPointerException of issue 24 among them);
#   - the screenshot of the window, after all that, is not blank: it has
#     more than 100 colours (a window that stopped repainting, or never
#     drew its tables, has a handful).
# The layout is VisualVM's default for a fresh user directory on a 1280x900
# screen: the clicks are at fixed places in the window.  The screenshot is
# copied to SCREENSHOT if given (docs/images/visualvm-classes.png).
set -u
. "$(dirname "$0")/../../cli/verdict.sh"
vmrun=$1 program=$2 screenshot=${3:-}
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
$run -agentlib:hprof=format=b,file=heap.hprof "$program" > /dev/null 2>> err || complain "the format=b run failed"
$run -agentlib:hprof=heap=dump,file=heap.txt "$program" > /dev/null 2>> err || complain "the text run failed"
expected=$(sed -n 's/^OBJ .*class=\([^@]*\)@.*/\1/p' heap.txt | sort | uniq -c | sort -rn | head -n 2 | awk '{ print $2 }')

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
# windows: the pointer moves to the screen's place), and the name in the row
# the classes view has selected, through the clipboard.
eval "$(xdotool getwindowgeometry --shell "$window")"
click() { xdotool mousemove $((X + $1)) $((Y + $2)) click 1; }
copy_row() {
    xclip -selection clipboard /dev/null > /dev/null 2>&1 # empty it (xclip stays to serve it)
    xdotool key ctrl+c
    sleep 1
    xclip -o -selection clipboard 2> /dev/null
}
# The summary shows "view all" by "Classes by Number of Instances" once the
# dump is read; each try clicks it, then the first row of the view it opens.
rows=
for _ in $(seq 1 40); do
    click 527 379
    sleep 2
    click 370 192
    sleep 1
    rows=$(copy_row)
    [ -n "$rows" ] && break
    sleep 2
done
xdotool key Down
rows="$rows
$(copy_row)"
[ "$rows" = "$expected" ] ||
    complain "the classes view's first rows are '$(echo "$rows" | tr '\n' ' ')', the VM's most numerous classes '$(echo "$expected" | tr '\n' ' ')'"

# Retained sizes are not asked here: VisualVM's Dominators computation,
# which the Retained column starts, throws a NullPointerException
# (JavaClassesProvider.getDominatorRoots) on a dump that holds objects no
# root reaches, as gclab's dumps do (garbage not yet collected); see
# docs/hprof.md, "In VisualVM's window".
sleep 5
import -window "$window" window.png
colours=$(convert window.png -format '%k' info:)
[ "$colours" -gt 100 ] || complain "the window's screenshot has $colours colours: blank"
log=user/var/log/messages.log
[ -s "$log" ] || complain "VisualVM wrote no log"
# Its update check, which finds no network, is not one of its views.
if grep -v 'modules.autoupdate' "$log" | grep -q 'Exception\|^SEVERE'; then
    grep -v 'modules.autoupdate' "$log" | grep -B2 -A8 'Exception\|^SEVERE' | head -n 40
    complain "VisualVM logged an exception"
fi
[ -n "$screenshot" ] && cp window.png "$screenshot"
verdict err gui
