#!/bin/sh
# sites_golden.sh -- heap=sites' TRACE and SITES tables are byte for byte
# what they were before hprof read allocation sites from the VM's call
# sites (docs/hprof.md, "What it costs"): the golden files were written by
# the VM and hprof of before, which took GetCallTrace at every allocation.
#
#   sites_golden.sh VMRUN EXAMPLES_DIR GOLDEN_DIR [--write]
#
# Runs each case below under each collector with --seed=1 and compares the
# TRACE records and the SITES table (dates dropped) with
# GOLDEN_DIR/CASE_COLLECTOR.txt; --write writes them instead.
set -u
vmrun=$1 examples=$2 golden=$3 write=${4:-}
fail() { echo "FAIL: $*"; exit 1; }
collectors="marksweep markcompact semispace generational refcount"
# name|program|arguments|hprof options
cases="binary_trees|binary_trees.gcl|10|heap=sites,cutoff=0
linked_list|linked_list.gcl||heap=sites,depth=2,thread=y,cutoff=0
json_tree|json_tree.gcl||heap=sites,depth=8,lineno=n,cutoff=0
producer_consumer|threads_producer_consumer.gcl||heap=sites,depth=6,thread=y,cutoff=0
deep_recursion|deep_recursion.gcl||heap=all,depth=3,cutoff=0"
echo "$cases" | while IFS='|' read -r name program args options; do
    for gc in $collectors; do
        out="${name}_$gc"
        # shellcheck disable=SC2086 # the arguments are words
        $vmrun --gc="$gc" --seed=1 -agentlib:hprof="$options,file=$out.hprof" "$examples/$program" $args \
            >/dev/null 2>"$out.err" || fail "$out: vmrun failed: $(tail -n 3 "$out.err")"
        # TRACE records and the SITES table, their dates dropped.
        awk '/^TRACE / { keep = 1 } /^SITES BEGIN/ { keep = 1; sub(/\) .*/, ")") }
             /^(THREAD|HEAP DUMP|CPU|MONITOR)/ { keep = 0 } keep { print } /^SITES END/ { keep = 0 }' \
            "$out.hprof" > "$out.tables"
        grep -q '^SITES BEGIN' "$out.tables" && grep -q '^TRACE ' "$out.tables" || fail "$out: no TRACE or SITES in $out.hprof"
        if [ "$write" = --write ]; then
            cp "$out.tables" "$golden/$out.txt"
        else
            cmp -s "$golden/$out.txt" "$out.tables" ||
                fail "$out: the tables differ from $golden/$out.txt: $(diff "$golden/$out.txt" "$out.tables" | head -n 6)"
        fi
    done
done || exit 1
echo "$(echo "$cases" | wc -l) cases under 5 collectors: TRACE and SITES as before"
