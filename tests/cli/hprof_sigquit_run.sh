# hprof_sigquit_run.sh -- sourced by the hprof cases that dump on SIGQUIT
# (hprof_signal.sh for text, tests/hprof/format_b_signal.sh for format=b).
#
#   hprof_sigquit_run OPTIONS VMRUN PROGRAM
#
# In a scratch directory of its own (left as the working directory, removed
# at exit), runs VMRUN --vmpi-strict -agentlib:hprof=OPTIONS PROGRAM with
# standard output in `out` and standard error in `err`, sends it SIGQUIT
# once `out` is not empty (as data_signal_case.sh does), and sets `status`
# to its exit status.
hprof_sigquit_run() {
    hprof_options=$1
    shift
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    cd "$scratch" || exit 1
    wait_for='i=0; while [ ! -s out ] && [ $i -lt 600 ] && kill -0 $$ 2>/dev/null; do sleep 0.1; i=$((i + 1)); done'
    sh -c "( $wait_for; kill -s QUIT \$\$ ) & exec \"\$0\" --vmpi-strict -agentlib:hprof=$hprof_options \"\$@\" >out 2>err </dev/null" "$@"
    status=$?
}
