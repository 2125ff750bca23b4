#!/bin/sh
# no_outside_paths.sh -- no tracked file names a path outside the repository.
#
#   no_outside_paths.sh [ROOT]
#
# A clone has only what is tracked, so a comment or a script that points at
# the machine it was written on (the design notes or specification copies
# that lived beside the checkout) points at nothing.  Cite docs/ or a public
# specification by title and section instead.
#
# Scans every tracked file (git ls-files; without a git checkout, every file
# under ROOT except what .gitignore leaves out) for:
#   - the machine paths the project's notes and specs lived at, the name of
#     the design file, and the file names of the local specification copies
#     (see `patterns` below);
#   - the absolute path of ROOT's parent directory, followed by a slash, when
#     that parent lies at least two levels deep (a one-level parent such as
#     /tmp would match ordinary paths).
# Prints FILE:LINE:TEXT for each hit and fails if there is any.  The patterns
# are built from pieces, so this script does not match itself.
set -u
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd -P) || exit 1
cd "$root" || exit 1

work=work
shared=shared
spec=spec
design=DESIGN
patterns=$(mktemp)
files=$(mktemp)
trap 'rm -f "$patterns" "$files"' EXIT
printf '%s\n' "/$work/" "../$shared" "$shared/$spec/" "$shared/$design" "$design.md" >"$patterns"
# The specification copies, as stem and extension: cite them by title instead.
while read -r stem extension; do
    printf '%s.%s\n' "$stem" "$extension" >>"$patterns"
done <<COPIES
vmpi-patent-and-jvmpi-1.2 md
jvmpi-1.4.2-and-hprof-jvmpi txt
hprof-agent md
jvmti-heap-sampling txt
tptp-heap-thread-profilers txt
COPIES
parent=$(dirname "$root")
case "$parent" in
    /*/*) printf '%s/\n' "$parent" >>"$patterns" ;;
esac

if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$root" ]; then
    git ls-files -z >"$files" || exit 1
else
    # No checkout (an unpacked archive): every file but the .gitignore'd.
    find . \( -path './.git' -o -path './build*' \) -prune -o -type f \
        ! -name '*.bc' ! -name '*.o' ! -name '*.so' ! -path './trace*.jsonl' -print0 >"$files"
fi
[ -s "$files" ] || { echo "FAIL: no files to check under $root"; exit 1; }

# -I skips binary files; -H names the file even when xargs passes just one.
hits=$(xargs -0 grep -n -I -H -F -f "$patterns" -- <"$files" | sed 's|^\./||')
if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    echo "FAIL: $(printf '%s\n' "$hits" | wc -l) line(s) name a path outside the repository (cite docs/ or a spec by title)"
    exit 1
fi
echo "no_outside_paths: $(tr -cd '\0' <"$files" | wc -c) files, none names a path outside the repository"
