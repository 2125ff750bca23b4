#!/bin/sh
# options.sh -- every option a tool's --help lists is documented in its
# manual page.
#
#   options.sh TOOL PAGE
#
# An option is the first word of each comma-separated item in the option
# column of --help (the lines that start with blanks and a '-'), cut at its
# '=', ':' or '[': "--gc=NAME" gives --gc, "-agentlib:NAME[=OPTS]" gives
# -agentlib, "--help, --version" gives both.  The page must name it as a
# whole word once its escapes (\- and font changes) are taken out.
set -u
tool=$1 page=$2
[ -f "$page" ] || { echo "FAIL: no page $page"; exit 1; }
help=$("$tool" --help) || { echo "FAIL: $tool --help failed"; exit 1; }
options=$(printf '%s\n' "$help" | sed -n 's/^[[:space:]]\{1,\}\(-[^[:space:]].*\)$/\1/p' |
          sed 's/  .*//' | tr ',' '\n' | sed 's/^ *//; s/[=:[ ].*//')
[ -n "$options" ] || { echo "FAIL: $tool --help lists no options"; exit 1; }
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
missing=0
for option in $options; do
    if ! printf '%s\n' "$text" | grep -Eq -- "(^|[^a-z-])$option([^a-z-]|\$)"; then
        echo "FAIL: $page does not document $option (listed by $tool --help)"
        missing=1
    fi
done
exit $missing
