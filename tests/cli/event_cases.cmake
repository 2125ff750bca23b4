# Event cases (vmpi.h's event table): which events EnableEvent accepts and
# how the VM posts them.  Included from tests/CMakeLists.txt (which defines
# case(), VMRUN and the scratch directory).

# Every event EnableEvent accepts is posted by some run, and every request
# the VM accepts is answered (event_census.sh, tests/agents/event_census.c).
add_test(NAME cli/events/every_accepted_event_is_posted
         COMMAND sh ${cli}/event_census.sh ${VMRUN} $<TARGET_FILE:test_agent_event_census>
                 ${CMAKE_SOURCE_DIR}/examples ${CMAKE_SOURCE_DIR}/tests/native $<TARGET_FILE_DIR:gclabtest>
         WORKING_DIRECTORY ${scratch})

# SIGQUIT (DATA_DUMP_REQUEST and a stack trace) and SIGUSR2
# (DATA_RESET_REQUEST) never end the program, with or without an agent
# (data_signal_case.sh: status 0, all the output, the events in the trace).
foreach(agent "" -agentlib:trace)
  if(agent)
    set(with with_trace)
  else()
    set(with without_agents)
  endif()
  add_test(NAME cli/signal/QUIT_and_USR2_${with}
           COMMAND sh ${cli}/data_signal_case.sh "done 863789" -- ${VMRUN} ${agent} ${cli}/work_then_finish.gcl
           WORKING_DIRECTORY ${scratch})
endforeach()

# The trace agent writes any event it is asked for by name (events=...):
# METHOD_ENTRY2 with the receiver of an instance method, and null for a
# static one (exit 99 if either is missing); the check agent beside it.
case(cli/events/trace_method_entry2 0 ${CMAKE_SOURCE_DIR}/examples/hash_map.expected "^check: ok: "
     sh -c "\"$0\" -agentlib:check -agentlib:trace=file=entry2.jsonl,events=METHOD_ENTRY2 \"$1\" || exit\ngrep -q '\"event\":\"METHOD_ENTRY2\",.*\"obj_id\":[0-9]' entry2.jsonl || exit 99\ngrep -q '\"event\":\"METHOD_ENTRY2\",.*\"obj_id\":null' entry2.jsonl || exit 99"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/hash_map.gcl)
case(cli/events/trace_unknown_event 1 - "^trace: events=: no event is named 'NO_SUCH'$"
     ${VMRUN} -agentlib:trace=file=unknown.jsonl,events=NO_SUCH ${hello})
case(cli/events/trace_event_never_posted 1 - "^trace: events=: the VM cannot send CLASS_UNLOAD$"
     ${VMRUN} -agentlib:trace=file=unposted.jsonl,events=CLASS_UNLOAD ${hello})

# INSTRUCTION_START in the trace: every instruction, with is_true set on
# the branches that jump (exit 99 if there is none); check beside it.
case(cli/events/trace_instruction_start 0 ${CMAKE_SOURCE_DIR}/examples/sieve.expected "^check: ok: "
     sh -c "\"$0\" -agentlib:check -agentlib:trace=file=instructions.jsonl,events=INSTRUCTION_START \"$1\" || exit\ngrep -q '\"event\":\"INSTRUCTION_START\",.*\"is_true\":1,' instructions.jsonl || exit 99"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/sieve.gcl)

# CLASS_LOAD_HOOK (tests/agents/class_hook.c): the program's .bc image goes
# to the agent, whose replacement is loaded and verified like a .bc file --
# from source or from a .bc file, beside the check and trace agents; a
# replacement that fails is one message naming the agent, status 1.
set(class_hook $<TARGET_FILE:test_agent_class_hook>)
set(class_hook_says "^class_hook: [0-9]+ bytes$")
case(cli/class_hook/keep 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected "${class_hook_says}"
     ${VMRUN} -agentpath:${class_hook}=keep ${hello})
case(cli/class_hook/replace 0 ${cli}/class_hook_replaced.expected "${class_hook_says}@@^check: ok: "
     ${VMRUN} -agentlib:check -agentpath:${class_hook}=replace ${hello})
case(cli/class_hook/replace_bc_traced 0 ${cli}/class_hook_replaced.expected "${class_hook_says}"
     sh -c "\"$0\" \"$1\" -o hook_hello.bc || exit 98\n\"$2\" -agentpath:$3=replace -agentlib:trace=file=hook.jsonl,events=CLASS_LOAD_HOOK hook_hello.bc || exit\ngrep -q '\"event\":\"CLASS_LOAD_HOOK\",\"thread\":0,\"class_data_len\":[1-9]' hook.jsonl || exit 99"
     ${VMC} ${hello} ${VMRUN} ${class_hook})
foreach(bad
    "garbage@@the replacement program does not load: .*hello\\.gcl as replaced by agent 'libclass_hook\\.so': offset 0: bad magic"
    "truncate@@the replacement program does not load: .*: truncated file"
    "foreign@@new_class_data was not allocated with malloc_f")
  string(REPLACE "@@" ";" parts "${bad}")
  list(GET parts 0 mode)
  list(GET parts 1 why)
  case(cli/class_hook/${mode}_refused 1 /dev/null "^vmrun: agent 'libclass_hook\\.so': CLASS_LOAD_HOOK: ${why}"
       ${VMRUN} -agentpath:${class_hook}=${mode} ${hello})
endforeach()
# Enabled after VMPI_OnLoad, it could never come: EnableEvent refuses it (1).
case(cli/class_hook/late_is_refused 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected "^class_hook: late EnableEvent returned 1$"
     ${VMRUN} -agentpath:${class_hook}=late ${hello})

# MONITOR_DUMP (tests/agents/monitor_dump.c): the raw monitors with their
# owner, entry count and waiters, and the one VM thread's trace and status.
case(cli/events/monitor_dump 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected
     "^monitor_dump: held: held owner=me entries=2 entering=0 notified=0$@@^monitor_dump: held: threads=1 status=1 frames_env=me$@@^monitor_dump: held: free owner=none entries=0 entering=0 notified=0$@@^monitor_dump: entering: held owner=me entries=2 entering=1 notified=0$@@^monitor_dump: waiting: cond owner=none entries=0 entering=0 notified=1$"
     ${VMRUN} -agentpath:$<TARGET_FILE:test_agent_monitor_dump> ${hello})

# Thread suspension (tests/agents/suspender.c): a system thread stops the
# running program at its safepoints under every collector, reads a stable
# trace while it is parked, and sees ThreadHasRun false then, true after
# ResumeThread.  A SuspendThread of a thread that can no longer reach a
# safepoint (ended, or shutting down after a runtime error) gives up.
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/events/suspend_thread/${gc} 0 -
       "^suspender: first safepoint: status=suspended has_run=0 frames=1 stable$@@^suspender: resumed: status=runnable has_run=1$@@^suspender: running: 20 suspensions, every trace stable, has_run 0 while suspended, 1 after$@@^suspender: done$"
       ${VMRUN} --gc=${gc} --vmpi-strict -agentpath:$<TARGET_FILE:test_agent_suspender>
       ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl 17)
endforeach()
case(cli/events/suspend_thread_ended 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected
     "^suspender: at exit: SuspendThread returned, status=runnable$"
     ${VMRUN} --vmpi-strict -agentpath:$<TARGET_FILE:test_agent_suspender>=at_exit ${hello})
case(cli/events/suspend_thread_shutting_down 1 -
     "^error: null reference$@@^suspender: at exit: SuspendThread returned, status=runnable$"
     ${VMRUN} --vmpi-strict -agentpath:$<TARGET_FILE:test_agent_suspender>=at_exit ${cli}/null_reference.gcl)

# gclab's mechanism events (docs/mechanism-events.md): under each collector,
# the phases of every collection are the ones documented, in order, and the
# per-object events agree with the heap events (mechanism_events.py).  The
# last argument before the program names what the run must show at least
# once; the program is small and deterministic (--seed=1) and the heap small
# enough that every kind of collection happens.
set(mechanism_check python3 ${cli}/mechanism_events.py ${VMRUN})
set(small_trees ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl --heap=64k 7)
add_test(NAME cli/mechanism/marksweep COMMAND ${mechanism_check} marksweep phase:sweep,cause:unmarked ${small_trees})
add_test(NAME cli/mechanism/markcompact COMMAND ${mechanism_check} markcompact phase:relocate,cause:unmarked ${small_trees})
add_test(NAME cli/mechanism/semispace COMMAND ${mechanism_check} semispace phase:flip,phase:scan ${small_trees})
add_test(NAME cli/mechanism/generational
         COMMAND ${mechanism_check} generational phase:minor,phase:major,phase:remembered-set
                 ${cli}/lru_cache.gcl --heap=128k 20000)
add_test(NAME cli/mechanism/refcount_deferred_frees
         COMMAND ${mechanism_check} refcount cause:zero-count,cause:cascade,phase:free-zero-counts
                 ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl --heap=128k 8)
add_test(NAME cli/mechanism/refcount_deferred_cycles
         COMMAND ${mechanism_check} refcount cause:cycle,phase:trial-deletion,phase:mark-gray
                 ${CMAKE_SOURCE_DIR}/examples/cycles.gcl --heap=256k 300)
add_test(NAME cli/mechanism/refcount_immediate_frees
         COMMAND ${mechanism_check} refcount phase:release,cause:zero-count,cause:cascade
                 --rc-mode=immediate ${cli}/lru_cache.gcl --heap=128k 5000)
add_test(NAME cli/mechanism/refcount_immediate_cycles
         COMMAND ${mechanism_check} refcount cause:cycle,phase:trial-deletion
                 --rc-mode=immediate ${CMAKE_SOURCE_DIR}/examples/cycles.gcl --heap=256k 300)
add_test(NAME cli/mechanism/refcount_immediate_roots
         COMMAND ${mechanism_check} refcount phase:release,cause:zero-count
                 --rc-mode=immediate ${cli}/root_release.gcl)
# An object whose last reference is a local: immediate mode frees it before
# the next allocation, when the local is overwritten or its frame returns;
# deferred mode leaves it for a reconciliation.
foreach(mode immediate deferred)
  add_test(NAME cli/refcount_modes/root_frees_${mode}
           COMMAND python3 ${cli}/refcount_root_frees.py ${VMRUN} ${mode} ${cli}/root_release.gcl)
endforeach()

# The two reference-counting modes on the LRU cache (docs/mechanism-events.md,
# docs/collectors/refcount.md): deferred frees every evicted entry in a few
# large batches; immediate frees each one, with its value, in a collection
# of its own -- about two frees per collection -- and, counting the
# references in locals and operands too, also what only those held.
case(cli/refcount_modes/deferred 0 - "^\\[gc\\] refcount: 12 collections \\(0 minor, 0 major, 12 cycle\\).* 28440 freed"
     ${VMRUN} --gc=refcount --rc-mode=deferred --heap=128k --gc-log ${cli}/lru_cache.gcl)
case(cli/refcount_modes/immediate 0 - "^\\[gc\\] refcount: 15015 collections \\(0 minor, 15015 major, 0 cycle\\).* 30020 freed"
     ${VMRUN} --gc=refcount --rc-mode=immediate --heap=128k --gc-log ${cli}/lru_cache.gcl)
case(cli/refcount_modes/bad_mode 2 - "^vmrun: invalid --rc-mode=eager \\(immediate or deferred\\)"
     ${VMRUN} --gc=refcount --rc-mode=eager ${cli}/lru_cache.gcl)
