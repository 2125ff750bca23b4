# Command-line cases: bad input of every kind gets one clear message, the
# right exit status, and never a crash or a half-written file.  Included from
# tests/CMakeLists.txt (which defines case() and the tool paths).
set(cli ${CMAKE_CURRENT_SOURCE_DIR}/cli)
set(hello ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
set(agents ${CMAKE_CURRENT_BINARY_DIR}/agents)

# ---- source errors: file:line:col: message, status 1, no output file ------------
# (exit 99 if vmc left an output file behind)
set(no_output_file "\"$0\" \"$1\" -o out.bc\nstatus=$?\nif [ -e out.bc ]\nthen rm -f out.bc\nexit 99\nfi\nexit $status")
case(cli/vmc/bad_syntax 1 - "bad_syntax\\.gcl:3:[0-9]+: "
     sh -c "${no_output_file}" ${VMC} ${cli}/bad_syntax.gcl)
case(cli/vmc/type_error 1 - "type_error\\.gcl:3:[0-9]+: .*(string|type)"
     sh -c "${no_output_file}" ${VMC} ${cli}/type_error.gcl)
case(cli/vmrun/bad_syntax 1 - "bad_syntax\\.gcl:3:[0-9]+: " ${VMRUN} ${cli}/bad_syntax.gcl)
case(cli/vmc/missing_file 1 - "nosuch\\.gcl" ${VMC} ${cli}/nosuch.gcl -o out.bc)

# ---- malformed bytecode: NAME: offset N: reason, status 1 ---------------------
case(cli/bytecode/truncated 1 - "^trunc\\.bc: offset [0-9]+: .*truncated"
     sh -c "\"$0\" \"$1\" -o whole.bc && head -c 40 whole.bc > trunc.bc && exec \"$2\" trunc.bc"
     ${VMC} ${hello} ${VMRUN})
case(cli/bytecode/bad_magic 1 - "^magic\\.bc: offset 0: .*magic"
     sh -c "printf 'NOPE\\001\\000\\000\\000' > magic.bc && exec \"$0\" magic.bc" ${VMRUN})
case(cli/bytecode/bad_version 1 - "^version\\.bc: offset 4: .*version"
     sh -c "printf 'GCLB\\007\\000\\000\\000' > version.bc && exec \"$0\" version.bc" ${VMRUN})
case(cli/bytecode/empty 1 - "^empty\\.bc: offset 0: "
     sh -c ": > empty.bc && exec \"$0\" empty.bc" ${VMRUN})
case(cli/bytecode/missing 1 - "nosuch\\.bc: cannot read" ${VMRUN} nosuch.bc)
# A type nesting 30,000 arrays deep (once minutes and gigabytes to link) is
# refused as it loads, naming the limit (docs/limits.md); by vmdis too.
# ('[' is written \133: an unbalanced bracket would break the CMake list.)
set(deep_type_program "{ printf '.type 0 V\\n.type 1 '\nhead -c 30000 /dev/zero | tr -c '\\133' '\\133'\nprintf 'J\\n.class deep \"deep.gcl\"\\n.method 0 main static\\n.returns V\\n.stack 0 0\\nret\\n.entry deep.main\\n'\n} > $2.s\n\"$0\" --no-verify $2.s -o $2.bc || exit 99\nexec \"$1\" $2.bc")
case(cli/bytecode/deep_array_type 1 - "^deep\\.bc: offset 17: array type nests 30000 deep; the limit is 255$"
     sh -c "${deep_type_program}" ${VMAS} ${VMRUN} deep)
case(cli/bytecode/deep_array_type_vmdis 1 - "^deep_dis\\.bc: offset 17: array type nests 30000 deep; the limit is 255$"
     sh -c "${deep_type_program}" ${VMAS} ${VMDIS} deep_dis)

# A source program is held to the same limits: the parser refuses a type
# nesting 256 arrays deep as the program's fault, before the checker makes a
# type per level (30,000 deep once took the compiler seconds and 1.4 GB); 255
# deep runs.  ($1 is the depth; \133\135 is "[]", \073 ";", which CMake
# would take for a list separator.)
set(nested_source "{ printf 'int main() {\\n    int'\ni=0\nwhile [ $i -lt $1 ]\ndo printf '\\133\\135'\ni=$((i + 1))\ndone\nprintf ' a = null\\073\\n    return 0\\073\\n}\\n'\n} > nested$1.gcl\nexec \"$0\" nested$1.gcl")
case(cli/limits/source_type_over_limit 1 - "^nested256\\.gcl:2:5: array type nests 256 deep; the limit is 255$"
     sh -c "${nested_source}" ${VMRUN} 256)
case(cli/limits/source_type_30000_deep 1 - "^nested30000\\.gcl:2:5: array type nests 30000 deep; the limit is 255$"
     sh -c "${nested_source}" ${VMRUN} 30000)
case(cli/limits/source_type_at_limit 0 - "" sh -c "${nested_source}" ${VMRUN} 255)

# ---- bad flags: status 2 ------------------------------------------------------
case(cli/flags/unknown 2 - "unknown option '--frobnicate'" ${VMRUN} --frobnicate ${hello})
case(cli/flags/heap_garbage 2 - "heap" ${VMRUN} --heap=abc ${hello})
case(cli/flags/heap_zero 2 - "heap" ${VMRUN} --heap=0 ${hello})
case(cli/flags/heap_overflow 2 - "heap" ${VMRUN} --heap=99999999999999999999g ${hello})
case(cli/flags/unknown_gc 2 - "unknown collector 'nosuch'" ${VMRUN} --gc=nosuch ${hello})
case(cli/flags/no_program 2 - "[Uu]sage" ${VMRUN})
case(cli/flags/help 0 - "" ${VMRUN} --help)
case(cli/flags/version 0 - "" ${VMRUN} --version)

# ---- agents that cannot load --------------------------------------------------
case(cli/agent/not_found 1 - "agent 'nosuch'.*not found" ${VMRUN} -agentlib:nosuch ${hello})
# -agentlib takes a name; a path is refused before anything is opened.
case(cli/agent/lib_with_path 1 - "agent '\\.\\./\\.\\./x'.*not a path; use -agentpath:\\.\\./\\.\\./x"
     ${VMRUN} -agentlib:../../x ${hello})
case(cli/agent/lib_with_slash 1 - "agent '${agents}/libfailing_onload\\.so'.*use -agentpath"
     ${VMRUN} -agentlib:${agents}/libfailing_onload.so ${hello})
case(cli/agent/onload_fails 1 - "VMPI_OnLoad failed"
     ${VMRUN} -agentpath:${agents}/libfailing_onload.so ${hello})
case(cli/agent/no_entry_point 1 - "no VMPI_OnLoad"
     ${VMRUN} -agentpath:${agents}/libno_entry_point.so ${hello})
set(hello_expected ${CMAKE_SOURCE_DIR}/examples/hello.expected)
# JVMPI's way (docs/jvmpi.md): -Xrun<name>[:options] is -agentlib:<name>=<options>,
# and a library exporting JVM_OnLoad gets a JavaVM.
case(cli/agent/xrun/bundled 0 ${hello_expected} "^check: ok: " ${VMRUN} -Xruncheck:gc=generational ${hello})
case(cli/agent/xrun/jvm_onload 0 ${hello_expected} "^heapsites: rank@@^heapsites: GC_FINISH agreed at every collection \\(0\\)"
     env LD_LIBRARY_PATH=${agents} ${VMRUN} -Xrunheapsites:top=3 ${hello})
case(cli/agent/xrun/agentpath 0 ${hello_expected} "^tracer: GetEnv\\(JNI_VERSION_1_2\\) gave each thread its events' env_id$"
     ${VMRUN} -agentpath:${agents}/libtracer.so=file=tracer.txt ${hello})
case(cli/agent/xrun/jvm_onload_fails 1 - "^heapsites: the only option is top=N \\(N > 0\\), not 'bogus'$@@agent 'heapsites': JVM_OnLoad failed \\(returned -1\\)$"
     env LD_LIBRARY_PATH=${agents} ${VMRUN} -Xrunheapsites:bogus ${hello})
case(cli/agent/xrun/no_name 2 - "^vmrun: -Xrun needs an agent name: -Xrun<name>\\[:options\\]$" ${VMRUN} -Xrun ${hello})
case(cli/agent/xrun/equals 2 - "^vmrun: -Xrun takes <name>\\[:options\\], not 'check=x'$" ${VMRUN} -Xruncheck=x:y ${hello})
case(cli/agent/xrun/not_found 1 - "agent 'nosuch'.*not found" ${VMRUN} -Xrunnosuch:a=b ${hello})

# Options of one collector given to another run, with a warning naming both.
foreach(ignored
    "marksweep@--young=64k@--young \\(-Xmn\\) applies to --gc=generational only, not --gc=marksweep: ignored"
    "semispace@-Xmn64k@--young \\(-Xmn\\) applies to --gc=generational only, not --gc=semispace: ignored"
    "refcount@--tenure=3@--tenure applies to --gc=generational only, not --gc=refcount: ignored"
    "generational@--rc-cycles=off@--rc-cycles applies to --gc=refcount only, not --gc=generational: ignored")
  string(REPLACE "@" ";" parts "${ignored}")
  list(GET parts 0 gc)
  list(GET parts 1 option)
  list(GET parts 2 message)
  string(REGEX REPLACE "[^a-z0-9]+" "_" id "${option}")
  case(cli/options/ignored/${gc}${id} 0 ${hello_expected} "^vmrun: warning: ${message}$" ${VMRUN} --gc=${gc} ${option} ${hello})
endforeach()
case(cli/options/ignored/none_where_they_apply 0 ${hello_expected} "" ${VMRUN} --gc=generational --young=64k --tenure=3 ${hello})
case(cli/options/ignored/none_for_refcount 0 ${hello_expected} "" ${VMRUN} --gc=refcount --rc-cycles=off ${hello})

# ---- runtime errors: message, stack trace with methods and lines, status 1 -----
case(cli/runtime/null_reference 1 - "^error: null reference@@at null_reference\\.sum \\(null_reference\\.gcl:9\\)@@at null_reference\\.main \\(null_reference\\.gcl:17\\)"
     ${VMRUN} ${cli}/null_reference.gcl)
case(cli/runtime/index_out_of_bounds 1 - "^error: array index 10 out of bounds for length 10@@index_out_of_bounds\\.gcl:4"
     ${VMRUN} ${cli}/index_out_of_bounds.gcl)
case(cli/runtime/divide_by_zero 1 - "^error: division by zero@@at divide_by_zero\\.average \\(divide_by_zero\\.gcl:2\\)"
     ${VMRUN} ${cli}/divide_by_zero.gcl)
case(cli/runtime/stack_overflow 1 - "^error: stack overflow@@at stack_overflow\\.forever \\(stack_overflow\\.gcl:2\\)"
     ${VMRUN} ${cli}/stack_overflow.gcl)

# ---- output that cannot be written: one message, status 141 for a closed pipe
# (with SIGPIPE ignored or not), 1 for a full disk -------------------------------
# ($0 names the status file, "$@" is the command; a ";" would split a CMake
# list, hence "\n".)
set(into_closed_pipe "{ \"$@\"\necho $? > $0.status\n} | head -n 1 >/dev/null")
set(exit_status "\nexit $(cat $0.status)")
case(cli/output/closed_pipe 141 - "^vmrun: cannot write standard output: Broken pipe$"
     sh -c "${into_closed_pipe}${exit_status}" closed_pipe ${VMRUN} ${cli}/print_forever.gcl)
case(cli/output/closed_pipe_sigpipe_ignored 141 - "^vmrun: cannot write standard output: Broken pipe$"
     sh -c "trap '' PIPE\n${into_closed_pipe}${exit_status}" ignored_pipe ${VMRUN} ${cli}/print_forever.gcl)
case(cli/output/full_disk 1 - "^vmrun: cannot write standard output: No space left on device$"
     sh -c "exec \"$0\" \"$1\" > /dev/full" ${VMRUN} ${hello})
case(cli/output/full_disk_forever 1 - "^vmrun: cannot write standard output: No space left on device$"
     sh -c "exec \"$0\" \"$1\" > /dev/full" ${VMRUN} ${cli}/print_forever.gcl)
# The agents still get JVM_SHUT_DOWN: the trace ends with it (exit 99 if not).
case(cli/output/closed_pipe_trace_complete 141 - "^vmrun: cannot write standard output: Broken pipe$"
     sh -c "${into_closed_pipe}\ntail -n 1 traced_pipe.jsonl | grep -q JVM_SHUT_DOWN || exit 99${exit_status}"
     traced_pipe ${VMRUN} -agentlib:trace=file=traced_pipe.jsonl ${cli}/print_forever.gcl)

# ---- SIGINT and SIGTERM stop the VM at a safepoint, agents shut down -----------
# (signal_case.sh: status 128 + signal, "stopped by", the trace ends with
# JVM_SHUT_DOWN).  A second signal exits at once, even when the first one's
# shutdown is blocked flushing output into a pipe nobody reads.
set(signal_case ${cli}/signal_case.sh)
foreach(sig INT TERM)
  if(sig STREQUAL INT)
    set(status 130)
  else()
    set(status 143)
  endif()
  add_test(NAME cli/signal/${sig}_spinning
           COMMAND sh ${signal_case} ${sig} ${status} file -- ${VMRUN} -agentlib:trace ${cli}/spin_forever.gcl
           WORKING_DIRECTORY ${scratch})
  add_test(NAME cli/signal/${sig}_blocked_in_print
           COMMAND sh ${signal_case} ${sig} ${status} stalled-pipe -- ${VMRUN} -agentlib:trace ${cli}/print_forever.gcl
           WORKING_DIRECTORY ${scratch})
endforeach()
add_test(NAME cli/signal/second_signal_exits_at_once
         COMMAND sh ${signal_case} "INT*2" 130 stalled-pipe -- ${VMRUN} ${cli}/spin_forever.gcl
         WORKING_DIRECTORY ${scratch})

# ---- --gc-log: a line per collection, then one summary line for the run --------
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/gc_log/${gc} 0 - "^\\[gc 1\\] ${gc} (minor|major|cycle) \\(alloc\\): [0-9]+ -> [0-9]+ objects@@^\\[gc\\] ${gc}: [1-9][0-9]* collections .* pause total [0-9.]+ ms, longest [0-9.]+ ms; [0-9]+ objects allocated .* peak RSS [0-9]+ KiB$"
       ${VMRUN} --gc=${gc} --gc-log --heap=256k ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl 8)
endforeach()

# ---- every kind of collection happens, and is logged as such -----------------
case(cli/gc_kinds/generational_minor_and_major 0 - "^\\[gc [0-9]+\\] generational minor @@^\\[gc [0-9]+\\] generational major "
     ${VMRUN} --gc=generational --gc-log --heap=256k ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl 10)
case(cli/gc_kinds/refcount_cycles 0 - "^\\[gc [0-9]+\\] refcount cycle @@^\\[gc\\] refcount: [0-9]+ collections \\([0-9]+ minor, [0-9]+ major, [1-9][0-9]* cycle\\)"
     ${VMRUN} --gc=refcount --gc-log --heap=256k ${CMAKE_SOURCE_DIR}/examples/bench/cycles.gcl 3000)
# With cycle collection off the same program leaks its rings and runs out of heap.
case(cli/gc_kinds/refcount_cycles_off_leaks 1 - "out of memory: maximum heap 262144 bytes reached"
     ${VMRUN} --gc=refcount --rc-cycles=off --heap=256k ${CMAKE_SOURCE_DIR}/examples/bench/cycles.gcl 3000)

# ---- the benchmark scripts work (timings are never asserted) --------------------
# bench.py --quick: every benchmark under every collector and every peer
# present agrees byte for byte, and its table and SVG are well formed
# (tests/cli/bench_runner_test.py).  Most of its time goes to the peers,
# whose output no build changes, so the sanitizer build leaves it out:
# example/*/bench_* check vmrun's output there.
if(NOT GCLAB_SANITIZE)
  case(bench/runner_quick 0 - -
       env VMRUN=${VMRUN} python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/bench_runner_test.py)
endif()

# ---- a collector that cannot go on still leaves through vm_exit ------------------
# An agent breaks an object's header; --verify-heap stops the run (status 3),
# and the other agents still get JVM_SHUT_DOWN: the trace ends with it.  Only
# the collectors that keep a table of their objects: the bump-allocating ones
# step through a region by each header's size, so a header whose class is
# garbage cannot even be stepped over.
foreach(gc marksweep refcount)
  case(cli/fatal/verify_failure_shuts_agents_down/${gc} 3 - "^verify-heap: "
       sh -c "\"$0\" --gc=${gc} --heap=256k --verify-heap -agentpath:$1 -agentlib:trace=file=fatal_${gc}.jsonl \"$2\" 8\nstatus=$?\ntail -n 1 fatal_${gc}.jsonl | grep -q JVM_SHUT_DOWN || exit 99\nexit $status"
       ${VMRUN} ${agents}/libheap_corrupter.so ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl)
endforeach()

# ---- agents that hand VMPI bad arguments (vmpi/runtime/guard.c, docs/contracts.md) --
# Each misbehaviour of tests/agents/bad_args.c: the VM refuses the argument
# with the spec's result (the agent ends the run with 99 if not), warns once
# naming the agent, the function and the argument, and the program runs to
# the end with its normal output.  Under --vmpi-strict the same call is a
# contract breach: the breach is printed and the VM exits with status 1.
set(bad_args ${agents}/libbad_args.so)
set(hello_out ${CMAKE_SOURCE_DIR}/examples/hello.expected)
foreach(misuse
    "getenv_null@GetEnv: penv is NULL"
    "getenv_version@GetEnv: version is not VMPI_VERSION_1, a later JVMPI version or a JNI version"
    "call_trace_null@GetCallTrace: trace is NULL"
    "call_trace_null_frames@GetCallTrace: trace->frames is NULL"
    "call_trace_negative_depth@GetCallTrace: depth is negative"
    "method_class_garbage@GetMethodClass: method_id is not a method ID"
    "enable_event_out_of_range@EnableEvent: event_type is not an event number"
    "request_garbage_object@RequestEvent: arg is not a live object ID"
    "sampling_negative@SetHeapSamplingInterval: sampling_interval is negative"
    "monitor_null_name@RawMonitorCreate: lock_name is NULL"
    "monitor_destroyed@RawMonitorEnter: lock_id is not a live raw monitor"
    "monitor_not_owner@RawMonitorExit: the calling thread does not own lock_id"
    "thread_list_negative@SuspendThreadList: count is negative"
    "system_thread_null@CreateSystemThread: f is NULL"
    "system_thread_null_name@CreateSystemThread: name is NULL"
    "system_thread_priority@CreateSystemThread: priority is not a JVMPI priority \\(1 to 10, or 0 for normal\\)"
    "thread_garbage@GetThreadStatus: env is not a live thread"
    "thread_info_garbage@GetThreadInfo: env is not a live thread"
    "thread_info_null@GetThreadInfo: info is NULL"
    "monitor_usage_garbage@GetObjectMonitorUsage: object is not a live object ID"
    "monitor_usage_null@GetObjectMonitorUsage: usage is NULL")
  string(REPLACE "@" ";" misuse "${misuse}")
  list(GET misuse 0 option)
  list(GET misuse 1 warning)
  string(REPLACE "." "\\." warning "${warning}")
  case(cli/agent_guard/${option} 0 ${hello_out} "^vmpi: agent 'libbad_args\\.so': ${warning}$"
       ${VMRUN} -agentpath:${bad_args}=${option} ${hello})
  case(cli/agent_guard/strict/${option} 1 - "^vmpi: contract breach \\(bad argument\\): agent 'libbad_args\\.so', (NotifyEvent\\(JVM_INIT_DONE\\)|VMPI_OnLoad): ${warning}$"
       ${VMRUN} --vmpi-strict -agentpath:${bad_args}=${option} ${hello})
endforeach()
# A looping agent is warned once per (agent, function, problem).
case(cli/agent_guard/warned_once 0 - -
     sh -c "\"$0\" -agentpath:$1=call_trace_null $2 2>&1 >/dev/null | grep -c 'GetCallTrace: trace is NULL' | grep -qx 1"
     ${VMRUN} ${bad_args} ${hello})
# Under --vmpi-strict agents still get JVM_SHUT_DOWN: the trace agent's file is complete.
case(cli/agent_guard/strict_shuts_down 0 - -
     sh -c "\"$0\" --vmpi-strict -agentpath:$1=sampling_negative -agentlib:trace=file=t.trace $2\n[ $? -eq 1 ] && grep -q JVM_SHUT_DOWN t.trace"
     ${VMRUN} ${bad_args} ${hello})
# An agent that crashes gets a crash report naming the signal, the agent, the
# event and the VM's stack; the status is 128 + SIGSEGV (run_case.sh counts a
# status of 128 or more as a crash, so the wrapper checks it and exits 0).
case(cli/agent_guard/crash_report 0 - "^vmpi: fatal error: signal SIGSEGV \\(11\\)$@@^vmpi: in agent 'libbad_args\\.so', NotifyEvent\\(METHOD_ENTRY\\)$@@^    at linked_list\\.main \\(linked_list\\.gcl:[0-9]+\\)$"
     sh -c "\"$0\" -agentpath:$1=null_deref $2\n[ $? -eq 139 ]"
     ${VMRUN} ${bad_args} ${CMAKE_SOURCE_DIR}/examples/linked_list.gcl)
case(cli/agent_guard/crash_report_stack_overflow 0 - "^vmpi: fatal error: signal SIGSEGV \\(11\\)$@@^vmpi: in agent 'libbad_args\\.so', NotifyEvent\\(JVM_INIT_DONE\\)$"
     sh -c "\"$0\" -agentpath:$1=stack_overflow $2\n[ $? -eq 139 ]"
     ${VMRUN} ${bad_args} ${hello})
# A crash while the agent is inside a VMPI function names that function too.
case(cli/agent_guard/crash_report_in_vmpi_function 0 - "^vmpi: in agent 'libbad_args\\.so', NotifyEvent\\(HEAP_DUMP\\)$@@^vmpi: in the VMPI function RequestEvent$"
     sh -c "\"$0\" -agentpath:$1=crash_in_request $2\n[ $? -eq 139 ]"
     ${VMRUN} ${bad_args} ${hello})

# ---- strict mode: the agent contract (vmpi/runtime/strict.h, docs/contracts.md) ------
# Each option of tests/agents/contract_breaker.c breaks one rule.  Without
# --vmpi-strict the program runs to its end with its normal output and
# today's warning, or nothing ("" = stderr empty; the agent exits 99 if a
# call it makes does not get today's result).  With --vmpi-strict the breach
# is reported with the rule, the event being handled and the call, and the
# VM exits with status 1.  binary_trees under marksweep with a 64k heap
# collects, and marksweep sends OBJECT_FREE in thread-suspended mode.
set(breaker ${agents}/libcontract_breaker.so)
set(trees ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl)
set(trees_out ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.expected)
set(breaker_agent "agent 'libcontract_breaker\\.so'")
foreach(breach
    "malloc_in_gc@trees@@allocation in thread-suspended mode@NotifyEvent\\(OBJECT_FREE\\): [0-9]+ bytes allocated from the C heap"
    "enter_in_gc@trees@@blocking in thread-suspended mode@NotifyEvent\\(OBJECT_FREE\\): RawMonitorEnter: enters a monitor this thread does not hold \\(take it in GC_START\\)"
    "wait_in_gc@trees@@blocking in thread-suspended mode@NotifyEvent\\(OBJECT_FREE\\): RawMonitorWait: waits on a monitor"
    "run_gc_disabled@hello@^vmpi: RunGC refused: GC is disabled@RunGC with GC disabled or inside an event@NotifyEvent\\(JVM_INIT_DONE\\): RunGC: GC is disabled by DisableGC"
    "run_gc_in_event@hello@@RunGC with GC disabled or inside an event@NotifyEvent\\(JVM_INIT_DONE\\): RunGC: called inside an event handler"
    "thread_in_onload@hello@@CreateSystemThread before JVM_INIT_DONE or with GC disabled@VMPI_OnLoad: CreateSystemThread: called before JVM_INIT_DONE"
    "thread_gc_disabled@hello@@CreateSystemThread before JVM_INIT_DONE or with GC disabled@NotifyEvent\\(JVM_INIT_DONE\\): CreateSystemThread: GC is disabled \\(JVMPI 1\\.2 section 1\\.5\\)"
    "dump_in_gc@trees@^vmpi: ${breaker_agent}: RequestEvent: called inside a collection \\(between GC_START and GC_FINISH\\)$@request inside a collection@NotifyEvent\\(GC_START\\): RequestEvent: called inside a collection \\(between GC_START and GC_FINISH\\)"
    "stale_record@hello@@event record read after NotifyEvent returned@NotifyEvent\\(METHOD_ENTRY\\): read the record of an earlier JVM_INIT_DONE"
    "disable_gc@hello@@DisableGC not balanced at shutdown@outside any event: 1 DisableGC call not matched by EnableGC"
    "object_id_gc_enabled@hello@@object ID used with GC enabled@NotifyEvent\\(METHOD_EXIT\\): RequestEvent: an object ID passed with GC enabled \\(call DisableGC first\\)"
    "monitor_usage_gc_enabled@hello@@object ID used with GC enabled@NotifyEvent\\(METHOD_EXIT\\): GetObjectMonitorUsage: an object ID passed with GC enabled \\(call DisableGC first\\)"
    "run_gc_holding@trees@@deadlock@its system thread: RunGC: holds monitor '_contract_breaker' while it waits for the program to reach a safepoint, which a thread entering it would never reach"
    "gc_on_program_thread@trees@^vmpi: ${breaker_agent}: GetThreadLocalStorage: env is NULL: a collection's events come on the GC thread, which is no program thread$@bad argument@NotifyEvent\\(GC_START\\): GetThreadLocalStorage: env is NULL: a collection's events come on the GC thread, which is no program thread"
    "suspend_holding@trees@@deadlock@its system thread: SuspendThread: holds monitor '_contract_breaker' while it waits for the thread to stop at a safepoint, which a thread entering it would never reach")
  string(REPLACE "@" ";" breach "${breach}")
  list(GET breach 0 option)
  list(GET breach 1 program)
  list(GET breach 2 warning)
  list(GET breach 3 rule)
  list(GET breach 4 message)
  set(program_args ${hello})
  set(program_out ${hello_out})
  if(program STREQUAL "trees")
    set(program_args ${trees} 6)
    set(program_out ${trees_out})
  endif()
  # Without strict mode a stale read reads a dead stack record: undefined
  # behaviour that only the sanitizers see (and report, as they should).
  if(NOT (GCLAB_SANITIZE AND option STREQUAL "stale_record"))
    case(cli/strict/${option}/without 0 ${program_out} "${warning}"
         ${VMRUN} --gc=marksweep --heap=64k -agentpath:${breaker}=${option} ${program_args})
  endif()
  # The *_holding breaches are made by an agent's thread racing the
  # program's end: a program of 6 levels could end first on a loaded
  # machine, so the strict run, which the breach ends at once, gets one
  # that would last seconds.
  set(strict_args --heap=64k ${program_args})
  if(option MATCHES "_holding$")
    set(strict_args --heap=4m ${trees} 12)
  endif()
  case(cli/strict/${option} 1 - "^vmpi: contract breach \\(${rule}\\): ${breaker_agent}, ${message}$"
       ${VMRUN} --gc=marksweep --vmpi-strict -agentpath:${breaker}=${option} ${strict_args})
endforeach()
# A handler on the GC thread entering a monitor that a program thread, stopped
# for the collection, holds would hang the VM (as it hangs a JVM): it is
# named in every mode, and the run ends with status 1.
foreach(mode without strict)
  set(strict_flag)
  if(mode STREQUAL "strict")
    set(strict_flag --vmpi-strict)
  endif()
  case(cli/strict/held_into_gc/${mode} 1 - "^vmpi: contract breach \\(deadlock\\): ${breaker_agent}, NotifyEvent\\(GC_START\\): RawMonitorEnter: monitor '_contract_breaker' is held by program thread 0x[0-9a-f]+, which is stopped until this collection ends$"
       ${VMRUN} --gc=marksweep --heap=64k ${strict_flag} -agentpath:${breaker}=held_into_gc ${trees} 6)
endforeach()
# A handler that never returns ends a strict run after the hang limit, with
# what every thread in a handler is doing; a bad limit is refused.
case(cli/strict/hang_in_gc 1 - "^vmpi: hang: ${breaker_agent}, NotifyEvent\\(GC_START\\) on the GC thread, for 1\\.[0-9] s, inside RawMonitorWait$@@^vmpi: a collection is running: every program thread is stopped until it ends$@@^vmpi: the run is ended after 1 s \\(--vmpi-hang-limit\\)$"
     ${VMRUN} --gc=marksweep --heap=64k --vmpi-strict --vmpi-hang-limit=1 -agentpath:${breaker}=hang_in_gc ${trees} 6)
case(cli/strict/hang_limit_bad 2 - "invalid --vmpi-hang-limit=soon \\(seconds, 0 to 86400; 0: none\\)"
     ${VMRUN} --vmpi-strict --vmpi-hang-limit=soon ${hello})
# A breach in thread-suspended mode still ends through vmpi_exit: the trace
# agent's file is complete (it ends with JVM_SHUT_DOWN).
case(cli/strict/breach_in_collection_shuts_down 0 - -
     sh -c "\"$0\" --gc=marksweep --heap=64k --vmpi-strict -agentpath:$1=malloc_in_gc -agentlib:trace=file=strict_gc.trace $2 6\n[ $? -eq 1 ] && tail -n 1 strict_gc.trace | grep -q JVM_SHUT_DOWN"
     ${VMRUN} ${breaker} ${trees})
# Well-behaved agents break no rule: check, trace and hprof together under
# --vmpi-strict on a collecting program, under every collector (and under
# --gc-stress --verify-heap with the collector that is quick there).
foreach(gc marksweep markcompact semispace generational refcount)
  case(cli/strict/well_behaved/${gc} 0 ${trees_out} "^check: ok"
       ${VMRUN} --gc=${gc} --heap=64k --vmpi-strict -agentlib:check -agentlib:trace=file=strict_${gc}.trace
       -agentlib:hprof=heap=sites,file=strict_${gc}.hprof.txt ${trees} 6)
endforeach()
case(cli/strict/well_behaved/stress 0 ${trees_out} "^check: ok"
     ${VMRUN} --gc=marksweep --heap=64k --gc-stress --verify-heap --vmpi-strict -agentlib:check
     -agentlib:trace=file=strict_stress.trace -agentlib:hprof=heap=sites,file=strict_stress.hprof.txt ${trees} 6)
# Out of memory while an agent holds GC disabled: the message names the agent,
# under every collector.  Real memory is bounded with ulimit -v, which ASan's
# shadow memory cannot run under: release build only.
if(NOT GCLAB_SANITIZE)
  foreach(gc marksweep markcompact semispace generational refcount)
    case(cli/strict/oom_names_agent/${gc} 1 - "^error: out of memory: .*; garbage collection is disabled by ${breaker_agent} \\(DisableGC not matched by EnableGC\\)$"
         sh -c "ulimit -v 400000 && exec \"$0\" --gc=${gc} --heap=1m -agentpath:$1=disable_gc $2 16"
         ${VMRUN} ${breaker} ${trees})
  endforeach()
endif()

# ---- an agent that enables nothing changes nothing ------------------------------
# tests/agents/idle.c, under every collector with collections happening, with
# and without --vmpi-strict: same output, nothing on stderr.
foreach(gc ${GCLAB_COLLECTORS})
  foreach(strict "" --vmpi-strict)
    case(cli/agent/idle/${gc}${strict} 0 ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.expected ""
         ${VMRUN} --gc=${gc} --heap=256k ${strict} -agentpath:${agents}/libidle.so
         ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl 6)
  endforeach()
endforeach()
# vmpi_overhead.sh runs every way and their outputs agree (no timing asserted).
case(bench/vmpi_overhead 0 - -
     bash ${CMAKE_SOURCE_DIR}/examples/bench/vmpi_overhead.sh --build=${CMAKE_BINARY_DIR} --reps=1 --size=8)

# ---- late attach and heap dumps (tests/heap, tests/agents) ----------------------
# Heap dumps of levels 0, 1 and 2 of a known heap: every record, the root
# kinds and the counts (tests/agents/dump_levels.c), under every collector,
# also when every allocation collects.  The late-attach agent enables the
# heap events when the heap is built and learns exactly the live set by
# RequestEvent(ARENA_NEW), a level-0 dump and RequestEvent(OBJECT_ALLOC) per
# ID (tests/agents/late_attach.c; n + 4 objects, see late_attach.gcl); check
# beside it sees requested events reach only the agent that asked.  Its
# timing is tests/bench/late_attach.sh's, never a test's.
set(heap_tests ${CMAKE_CURRENT_SOURCE_DIR}/heap)
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/heap_dump/levels/${gc} 0 ${heap_tests}/known_heap.expected
       "^dump_levels: ok: 7 objects at levels 0, 1 and 2; roots: 3 JAVA_FRAME, 2 JNI_GLOBAL, 5 STICKY_CLASS, 0 NATIVE_STACK, 0 UNKNOWN$"
       ${VMRUN} --gc=${gc} -agentpath:${agents}/libdump_levels.so=objects=7,strings=2 ${heap_tests}/known_heap.gcl)
  case(cli/heap_dump/levels_stress/${gc} 0 ${heap_tests}/known_heap.expected "^dump_levels: ok: 7 objects"
       ${VMRUN} --gc=${gc} --gc-stress --verify-heap -agentpath:${agents}/libdump_levels.so=objects=7,strings=2
       ${heap_tests}/known_heap.gcl)
  case(cli/late_attach/learns_the_live_set/${gc} 0 ${heap_tests}/late_attach.expected
       "^late_attach: ok: learned 20004 objects in [1-4] arenas@@^check: ok: "
       ${VMRUN} --gc=${gc} --heap=2m -agentlib:check -agentpath:${agents}/liblate_attach.so=objects=20004
       ${heap_tests}/late_attach.gcl 20000)
  case(cli/late_attach/learns_the_live_set_stress/${gc} 0 ${heap_tests}/late_attach.expected
       "^late_attach: ok: learned 2004 objects in [1-4] arenas@@^check: ok: "
       ${VMRUN} --gc=${gc} --gc-stress --verify-heap -agentlib:check
       -agentpath:${agents}/liblate_attach.so=objects=2004 ${heap_tests}/late_attach.gcl 2000)
endforeach()

# ---- call sites enabled while threads run -------------------------------------------
# check=late=N,sites=4 enables call sites at its catch-up, when several
# threads are in the middle of calls: the VM gives every frame of every
# thread its context then, and each site's frames are the call trace from
# there on (rule 13; vm/interp/call_sites.h).
foreach(gc ${GCLAB_COLLECTORS})
  foreach(program threads_producer_consumer threads_contended_lock)
    read_side_file(${CMAKE_SOURCE_DIR}/examples/${program}.args "" args)
    case(cli/call_sites/enabled_mid_run/${gc}/${program} 0 ${CMAKE_SOURCE_DIR}/examples/${program}.expected
         "^check: late: attached at event@@^check: ok: "
         ${VMRUN} --gc=${gc} -agentlib:check=late=3000,sites=4,methods=y ${CMAKE_SOURCE_DIR}/examples/${program}.gcl
         ${args})
  endforeach()
endforeach()

# ---- check when the VM never starts -----------------------------------------------
# Another agent fails to load after check did: check gets JVM_SHUT_DOWN with
# no VM and no stream, and says nothing (vmrun names the failing agent).
case(cli/check/silent_when_the_vm_never_started 0 - -
     sh -c "\"$0\" -agentlib:check -agentpath:$1 $2 2>&1 >/dev/null | grep '^check:' && exit 1\nexit 0"
     ${VMRUN} ${agents}/libfailing_onload.so ${hello})

# ---- an agent ends the run from inside an event ---------------------------------
# tests/agents/exit_midstream.c calls ProfilerExit(3) in its 3000th
# OBJECT_ALLOC, after collections; check, loaded after it, still gets that
# allocation before JVM_SHUT_DOWN, so its final heap dump agrees (rule 7).
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/agent/exit_midstream/${gc} 3 - "^check: ok: "
       ${VMRUN} --gc=${gc} --heap=64k -agentpath:${agents}/libexit_midstream.so=n=3000 -agentlib:check
       ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl 6)
endforeach()

# ---- threads and monitors (docs/language.md "Threads", "Monitors") -------------------
set(threads_tests ${CMAKE_CURRENT_SOURCE_DIR}/threads)
# The same seed gives the same interleaving and so the same event stream,
# byte for byte: threads, contended monitors, waits and allocations.
foreach(program ${CMAKE_SOURCE_DIR}/examples/threads_contended_lock.gcl ${CMAKE_SOURCE_DIR}/examples/threads_producer_consumer.gcl
        ${CMAKE_SOURCE_DIR}/examples/threads_handoff.gcl ${threads_tests}/interrupt.gcl)
  get_filename_component(example ${program} NAME_WE)
  case(cli/threads/same_seed_same_stream/${example} 0 - -
       sh -c "for run in 1 2\ndo \"$0\" --seed=11 -agentlib:trace=file=$2_$run.jsonl,events=THREAD_START:THREAD_END:OBJECT_ALLOC:GC_START:GC_FINISH:MONITOR_CONTENDED_ENTER:MONITOR_CONTENDED_ENTERED:MONITOR_CONTENDED_EXIT:MONITOR_WAIT:MONITOR_WAITED $1 > /dev/null || exit 1\ndone\ncmp $2_1.jsonl $2_2.jsonl && grep -q THREAD_START $2_1.jsonl"
       ${VMRUN} ${program} ${example})
endforeach()
# The contended lock example does contend under --seed, and every
# CONTENDED_ENTER is followed by its ENTERED.
case(cli/threads/contended_lock_contends 0 - -
     sh -c "\"$0\" --seed=11 -agentlib:trace=file=contended.jsonl,events=MONITOR_CONTENDED_ENTER:MONITOR_CONTENDED_ENTERED:MONITOR_CONTENDED_EXIT $1 > /dev/null || exit 1\nenter=$(grep -c '\"MONITOR_CONTENDED_ENTER\"' contended.jsonl)\nentered=$(grep -c '\"MONITOR_CONTENDED_ENTERED\"' contended.jsonl)\nexit_=$(grep -c '\"MONITOR_CONTENDED_EXIT\"' contended.jsonl)\n[ \"$enter\" -gt 0 ] && [ \"$enter\" = \"$entered\" ] && [ \"$exit_\" -gt 0 ]"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/threads_contended_lock.gcl)
# Misuse is a runtime error with a stack trace.
case(cli/threads/wait_without_owning 1 - "^error: wait without owning the object's monitor@@    at wait_unowned.main \\(wait_unowned.gcl:8\\)"
     ${VMRUN} ${threads_tests}/wait_unowned.gcl)
# A notified waiter's entry count is restored (it was 0 for a thread that
# had never waited to enter, so it never gave the monitor up).
foreach(seed 1 2)
  case(cli/threads/notified_entry_count/seed${seed} 0 ${threads_tests}/notified_entry_count.expected ""
       ${VMRUN} --seed=${seed} ${threads_tests}/notified_entry_count.gcl)
endforeach()
case(cli/threads/notified_entry_count/unseeded 0 ${threads_tests}/notified_entry_count.expected ""
     ${VMRUN} ${threads_tests}/notified_entry_count.gcl)
# Two threads that take two locks in opposite orders: every thread blocked.
case(cli/threads/deadlock 1 - "^error: deadlock: every thread is blocked"
     ${VMRUN} --seed=1 ${threads_tests}/deadlock.gcl)
case(cli/threads/class_named_thread 1 - "the class name 'Thread' is reserved for threads"
     sh -c "printf 'class Thread {\\n    int n\\073\\n}\\nint main() {\\n    return 0\\073\\n}\\n' > thread_class.gcl\nexec \"$0\" thread_class.gcl" ${VMRUN})
# Every THREAD_* and MONITOR_* field and the thread functions, with an agent
# system thread suspending one VM thread while the others run
# (tests/agents/thread_checker.c), under every collector, with --gc-stress.
set(thread_checker_expected "^thread_checker: threads: starts=8 ends=8 named=8 groups=8 parents=7 objects=8 main_object=yes requested_by_object=7$@@^thread_checker: contended: enter/entered pairs ok, exits=yes, entrant waits=yes$@@^thread_checker: waits: timed=yes untimed=yes status=yes sleeps=1 \\(0 wrong\\)$@@^thread_checker: interrupt: woken early=yes, bit while set=yes, cleared=yes$@@^thread_checker: traces: every other thread's trace has frames$@@^thread_checker: cpu: the idle thread used less CPU than main$@@^thread_checker: suspension: others ran while spinner was suspended, its trace stable$@@^thread_checker: heap dump: every live thread's THREAD_BLOCK, the contended object's MONITOR_USED$@@^thread_checker: starting threads: 4 heap dumps, no root names a thread before its THREAD_START$@@^thread_checker: monitor dump: owners ok, entrants ok, notify waiters ok$")
foreach(gc ${GCLAB_GC_RUNS})
  gc_run_flags(${gc} gc_flags)
  # One handler at a time on the real clock (no --seed): the checker reads
  # other threads' traces and the monitor a thread waits to enter as they
  # are while its handler runs, which holds only when the others are stopped.
  case(cli/threads/thread_checker/${gc} 0 ${threads_tests}/agent_program.expected "${thread_checker_expected}"
       ${VMRUN} ${gc_flags} --vmpi-strict --one-at-a-time -agentpath:$<TARGET_FILE:test_agent_thread_checker>
       ${threads_tests}/agent_program.gcl)
  case(cli/threads/thread_checker_stress/${gc} 0 ${threads_tests}/agent_program.expected "${thread_checker_expected}"
       ${VMRUN} ${gc_flags} --gc-stress --verify-heap --seed=5 --vmpi-strict
       -agentpath:$<TARGET_FILE:test_agent_thread_checker> ${threads_tests}/agent_program.gcl)
endforeach()
# Collections run on the GC thread (docs/architecture.md "Threads"): with
# four threads allocating, every GC_START and GC_FINISH comes with no
# env_id and no call trace, and never while a program thread's handler
# runs; with --one-at-a-time the handlers themselves never overlap.
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/threads/gc_thread/${gc} 0 - "^overlap_counter: handlers=[1-9][0-9]* overlapped=0 most_at_once=1 gc_events=[1-9][0-9]* gc_on_program_thread=0 gc_beside_handler=0$"
       ${VMRUN} --gc=${gc} --one-at-a-time -agentpath:$<TARGET_FILE:test_agent_overlap_counter>
       ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees_threads.gcl 10)
endforeach()
# An agent's system thread is a thread of the VM (JVMPI 1.2,
# CreateSystemThread): THREAD_START and THREAD_END, its env from GetEnv on
# it, its thread object followed through three collections of a 128 KiB
# heap (tests/agents/system_thread.c, JVMPI's names only), with the check
# agent, under every collector.  Semispace and generational move it.
foreach(gc ${GCLAB_COLLECTORS})
  if(gc STREQUAL "semispace" OR gc STREQUAL "generational")
    set(moved "[1-9][0-9]*")
  else()
    set(moved "[0-9]+")
  endif()
  case(cli/threads/system_thread/${gc} 0 ${threads_tests}/binary_trees_8.expected
       "^system_thread: start: named, group main, parent main, thread object, env_id its own$@@^system_thread: on the thread: GetEnv\\(JNI_VERSION_1_2\\) is THREAD_START's env, storage, status, cpu time ok$@@^system_thread: suspend: refused at once, not suspended, has run$@@^system_thread: collections: [0-9]+ while it lived, its object moved ${moved} times, GetThreadObject follows$@@^system_thread: end: THREAD_END on the thread after its function returned$@@^check: ok: "
       ${VMRUN} --gc=${gc} --heap=128k --vmpi-strict -agentlib:check
       -agentpath:$<TARGET_FILE:test_agent_system_thread> ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl 8)
endforeach()
# interrupt(t) and interrupted(): a sleeper and a waiter woken early, a
# thread entering a monitor and one that has ended left alone; the same
# output under every collector, with and without --seed, under --gc-stress,
# and an event stream check accepts.
set(interrupt_program ${threads_tests}/interrupt.gcl)
foreach(gc ${GCLAB_GC_RUNS})
  gc_run_flags(${gc} gc_flags)
  case(cli/threads/interrupt/${gc} 0 ${threads_tests}/interrupt.expected ""
       ${VMRUN} ${gc_flags} ${interrupt_program})
  case(cli/threads/interrupt_seeded/${gc} 0 ${threads_tests}/interrupt.expected ""
       ${VMRUN} ${gc_flags} --seed=3 ${interrupt_program})
  case(cli/threads/interrupt_stress/${gc} 0 ${threads_tests}/interrupt.expected ""
       ${VMRUN} ${gc_flags} --gc-stress --verify-heap ${interrupt_program})
  case(cli/threads/interrupt_check/${gc} 0 ${threads_tests}/interrupt.expected "^check: ok: "
       ${VMRUN} ${gc_flags} -agentlib:check ${interrupt_program})
endforeach()
# INTERRUPT and INTERRUPTED survive vmc | vmdis | vmas byte for byte.
case(cli/threads/interrupt_roundtrip 0 - ""
     sh -c "\"$0\" \"$1\" -o interrupt.bc && \"$2\" interrupt.bc > interrupt.s && grep -q '^ *[0-9]*: interrupted$' interrupt.s && \"$3\" interrupt.s -o interrupt2.bc && cmp interrupt.bc interrupt2.bc"
     ${VMC} ${interrupt_program} ${VMDIS} ${VMAS})
# Misuse: a null Thread is a runtime error with a stack trace; an interrupt
# does not wake a thread entering a monitor, so that is still a deadlock.
case(cli/threads/interrupt_null 1 - "^error: null reference@@^    at interrupt_null.stop \\(interrupt_null.gcl:6\\)@@^    at interrupt_null.main \\(interrupt_null.gcl:13\\)"
     ${VMRUN} ${threads_tests}/interrupt_null.gcl)
case(cli/threads/interrupt_not_a_thread 1 - "interrupt_not_thread\\.gcl:3:15: type mismatch: argument 1 of 'interrupt' must be Thread, not string"
     ${VMRUN} ${threads_tests}/interrupt_not_thread.gcl)
foreach(seed 1 2)
  case(cli/threads/interrupt_entering_deadlock/seed${seed} 1 - "^error: deadlock: every thread is blocked@@interrupt_entering_deadlock.gcl:18"
       ${VMRUN} --seed=${seed} ${threads_tests}/interrupt_entering_deadlock.gcl)
endforeach()
