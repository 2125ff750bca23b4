#!/bin/sh
# trace_binary_same.sh -- the binary recording converts to the very JSON the
# trace agent writes for the same run (docs/trace-format.md, "The binary
# recording"): both runs under --seed=1, byte for byte.
#
#   trace_binary_same.sh VMRUN TRACE2JSON NAME AGENT_OPTIONS -- VMRUN_ARGS...
#
# AGENT_OPTIONS go to both runs (e.g. "methods=y" or ""); the runs' own
# status may be anything (out_of_memory ends with 1), but must be the same.
# Without AGENT_OPTIONS a third run records with the VM's own recorder
# (vmrun --record=FILE), whose file must be the agent's, byte for byte.
set -u
vmrun=$1 trace2json=$2 name=$3 options=$4
shift 5
sep=${options:+,}
"$vmrun" --seed=1 "-agentlib:trace=file=$name.jsonl$sep$options" "$@" > "$name.json.out" 2>&1
json_status=$?
"$vmrun" --seed=1 "-agentlib:trace=file=$name.bin,format=binary$sep$options" "$@" > "$name.bin.out" 2>&1
bin_status=$?
[ "$json_status" = "$bin_status" ] || { echo "FAIL: status $json_status with JSON, $bin_status with binary"; exit 1; }
cmp -s "$name.json.out" "$name.bin.out" || { echo "FAIL: the runs' output differs"; exit 1; }
if [ -z "$options" ]; then
    "$vmrun" --seed=1 "--record=$name.vm.bin" "$@" > "$name.vm.out" 2>&1
    vm_status=$?
    [ "$vm_status" = "$bin_status" ] || { echo "FAIL: status $bin_status with the agent, $vm_status with --record"; exit 1; }
    cmp -s "$name.bin.out" "$name.vm.out" || { echo "FAIL: the runs' output differs with --record"; exit 1; }
    cmp "$name.bin" "$name.vm.bin" || { echo "FAIL: --record's recording differs from the agent's"; exit 1; }
    rm -f "$name.vm.bin" "$name.vm.out"
fi
"$trace2json" "$name.bin" > "$name.converted.jsonl" || { echo "FAIL: vmpi-trace2json failed"; exit 1; }
lines=$(wc -l < "$name.jsonl")
[ "$lines" -gt 2 ] || { echo "FAIL: the JSON trace has only $lines lines"; exit 1; }
cmp "$name.jsonl" "$name.converted.jsonl" || { echo "FAIL: the converted recording differs from the JSON trace"; exit 1; }
json_bytes=$(wc -c < "$name.jsonl") bin_bytes=$(wc -c < "$name.bin")
echo "ok: $lines lines, $json_bytes bytes of JSON, $bin_bytes bytes recorded"
rm -f "$name.jsonl" "$name.bin" "$name.converted.jsonl" "$name.json.out" "$name.bin.out"
