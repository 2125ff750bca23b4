# same_as_first.sh -- sourced by the scripts that run one program under every
# collector and compare what each gives (hprof_sites.sh, hprof_dump.sh).
#
#   same_as_first GC FILE WHAT   the first call remembers GC's FILE; each
#                                later FILE must be equal to it, or the
#                                script fails with "WHAT between FIRST and GC"
# $first is the first collector's name once a call has been made.  The
# caller defines fail (print, exit 1).
first=
same_as_first() {
    if [ -z "$first" ]; then
        first=$1 first_file=$2
    elif ! cmp -s "$first_file" "$2"; then
        diff "$first_file" "$2" | head -n 10
        fail "$3 between $first and $1"
    fi
}
