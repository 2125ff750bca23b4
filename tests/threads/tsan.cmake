# The ThreadSanitizer build (GCLAB_TSAN; tests/run.sh runs these, and only
# these, in build-tsan): the threaded examples under every collector with
# the bundled agents and handlers overlapping, the concurrent conformance
# cells, and the unlocked agent whose race TSan must report.  TSan ends a
# run that saw a race with status 66, so each clean case asserts status 0.
# Suppressions, each with its reason: tests/threads/tsan.supp.
set(tsan_env "TSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/threads/tsan.supp")
add_custom_target(tsan_programs DEPENDS vmrun conform agent_check agent_trace agent_gcstats agent_hprof agent_tptp
                  test_agent_overlap_counter test_agent_racy_table)
function(tsan_case name status stderr)
  case(tsan/${name} ${status} - "${stderr}" env ${tsan_env} ${ARGN})
endfunction()

set(tsan_agents -agentlib:check -agentlib:trace=file=trace.jsonl -agentlib:gcstats=file=gcstats.txt
    -agentlib:hprof=heap=sites,file=hprof.txt -agentlib:tptp=file=tptp.xml)
foreach(gc ${GCLAB_GC_RUNS})
  gc_run_flags(${gc} gc_flags)
  tsan_case(trees/${gc} 0 "^check: ok: "
            ${VMRUN} ${gc_flags} --heap=256k ${tsan_agents}
            ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees_threads.gcl 7)
  foreach(example threads_contended_lock threads_producer_consumer threads_handoff)
    read_side_file(${CMAKE_SOURCE_DIR}/examples/${example}.args "" example_args)
    tsan_case(${example}/${gc} 0 "^check: ok: "
              ${VMRUN} ${gc_flags} -agentlib:check=methods=y
              -agentpath:$<TARGET_FILE:test_agent_overlap_counter>=events=methods
              ${CMAKE_SOURCE_DIR}/examples/${example}.gcl ${example_args})
  endforeach()
endforeach()
# The unlocked table (tests/agents/racy_table.c): TSan names the race, in
# the agent's count_class, and the event that ran it (the VM's
# on_object_alloc posted the OBJECT_ALLOC).
tsan_case(racy_table 66 "^WARNING: ThreadSanitizer: data race@@ count_class .*racy_table.c@@ on_object_alloc "
          ${VMRUN} -agentpath:$<TARGET_FILE:test_agent_racy_table>
          ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees_threads.gcl 7)
# The concurrent conformance cells (vmpi-conform's threads program: many
# threads allocating and calling, collections while others are in
# handlers, the driver's system thread calling RunGC, DisableGC and
# requests), every cell passing under TSan.
tsan_case(conform/threads 0 - ${CMAKE_BINARY_DIR}/bin/vmpi-conform --programs threads --timeout 300 check)
# The unlocked agent in the runner: its cell fails, and the message is TSan's.
tsan_case(conform/racy_table 0 -
          sh -c "\"$0\" --programs threads --gc marksweep --timeout 300 \"$1\" > matrix.txt\n[ $? = 1 ] || exit 1\ngrep -q '^threads under marksweep: exit status 66, expected 0: WARNING: ThreadSanitizer: data race' matrix.txt"
          ${CMAKE_BINARY_DIR}/bin/vmpi-conform $<TARGET_FILE:test_agent_racy_table>)
