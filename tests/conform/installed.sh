#!/bin/sh
# installed.sh -- `cmake --install` puts vmpi-conform in bin/ and its corpus
# in share/gclab/conform/ and its driver agent in lib/gclab/, and the
# installed runner finds the corpus, vmrun and the driver relative to
# itself, under a prefix with a space in it.
#
#   installed.sh CMAKE BUILD_DIR PREFIX CORPUS_DIR
#
# PREFIX is emptied first; CORPUS_DIR is the corpus in the sources, every
# file of which must be installed.
set -u
cmake=$1 build=$2 prefix=$3 corpus=$4
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install failed"; exit 1; }
failed=0
[ -x "$prefix/bin/vmpi-conform" ] || { echo "FAIL: bin/vmpi-conform not installed"; failed=1; }
[ -f "$prefix/lib/gclab/libconform_driver.so" ] || { echo "FAIL: lib/gclab/libconform_driver.so not installed"; failed=1; }
for file in "$corpus"/*; do
    name=$(basename "$file")
    cmp -s "$file" "$prefix/share/gclab/conform/$name" || { echo "FAIL: share/gclab/conform/$name not installed"; failed=1; }
done
[ "$failed" -eq 0 ] || exit 1
# From another directory, so that nothing is found through the current one.
cd /
output=$("$prefix/bin/vmpi-conform" --programs id_reuse --gc marksweep,semispace trace 2>&1)
status=$?
case "$status:$output" in
    0:*"vmpi-conform: every cell passes"*) ;;
    *) echo "FAIL: the installed vmpi-conform exited $status and said:"; echo "$output"; exit 1 ;;
esac
exit 0
