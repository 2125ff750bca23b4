#!/bin/sh
# layers_catch.sh -- layers.py fails on a dependency that points the wrong
# way: in a copy of the sources, a collector includes vmpi's posting header
# (the include that once made gc, vmpi and vm one circle) and vmpi's runtime
# includes the VM's thread record.  Each must be named, and the run fail.
#
#   layers_catch.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd)
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git -C "$src" ls-files -z -- '*.c' '*.h' docs/architecture.md | (cd "$src" && xargs -0 tar cf -) | (cd "$copy" && tar xf -)
printf '#include "vmpi/post.h"\n' >> "$copy/gc/common/collect.c"
printf '#include "vm/vm.h"\n' >> "$copy/vmpi/runtime/arenas.c"
if out=$(cd "$copy" && python3 "$src/tests/repo/layers.py" "$copy" 2>&1); then
    echo "layers_catch.sh: layers.py passed a tree with two upward includes:"
    echo "$out"
    exit 1
fi
echo "$out"
for fault in "gc/common/collect.c:.*includes vmpi/post.h, which gc/common/ may not" \
             "vmpi/runtime/arenas.c:.*includes vm/vm.h, which vmpi/runtime/ may not"; do
    if ! printf '%s\n' "$out" | grep -q "$fault"; then
        echo "layers_catch.sh: layers.py did not name: $fault"
        exit 1
    fi
done
echo "layers_catch.sh: both upward includes were caught"
