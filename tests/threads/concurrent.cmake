# Handlers that overlap (vmrun; docs/contracts.md,
# "Handlers that overlap"; docs/architecture.md "Threads").
set(trees_threads ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees_threads.gcl)
set(fib_threads ${CMAKE_SOURCE_DIR}/examples/bench/fib_threads.gcl)
set(overlap_counter -agentpath:$<TARGET_FILE:test_agent_overlap_counter>)
set(overlap_gc "gc_on_program_thread=0 gc_beside_handler=0$")

# Four threads allocating: handlers overlap (the counter sees another of its
# handlers running), every GC event comes on the GC thread and none while a
# program thread's handler runs -- the drain -- under every collector, and
# the program's output is unchanged.  refcount's immediate mode keeps one
# handler at a time.
foreach(gc ${GCLAB_GC_RUNS})
  gc_run_flags(${gc} gc_flags)
  # (immediate mode's one-object releases come on the program thread)
  set(expected "overlapped=[1-9][0-9]* most_at_once=[2-5] gc_events=[1-9][0-9]* ${overlap_gc}")
  if(gc STREQUAL "refcount_immediate")
    set(expected "overlapped=0 most_at_once=1 gc_events=[1-9][0-9]* gc_on_program_thread=[0-9]+ gc_beside_handler=0$")
  endif()
  case(cli/threads/handlers_overlap/alloc/${gc} 0 - "^overlap_counter: handlers=[0-9]+ ${expected}"
       sh -c "\"$0\" --seed=1 $1 > plain.txt || exit 1\nshift\n\"$@\" > concurrent.txt || exit 1\ncmp plain.txt concurrent.txt"
       ${VMRUN} "${trees_threads} 10" ${VMRUN} ${gc_flags} ${overlap_counter} ${trees_threads} 10)
endforeach()
# Under --seed one handler runs at a time, whatever the flag says.
case(cli/threads/handlers_overlap/alloc_seeded 0 - "^overlap_counter: handlers=[0-9]+ overlapped=0 most_at_once=1 gc_events=[1-9][0-9]* ${overlap_gc}"
     ${VMRUN} --seed=3 ${overlap_counter} ${trees_threads} 10)
# Four threads calling: METHOD_ENTRY and METHOD_EXIT handlers overlap.
case(cli/threads/handlers_overlap/methods 0 - "^overlap_counter: handlers=[0-9]+ overlapped=[1-9][0-9]* most_at_once=[2-5] "
     ${VMRUN} ${overlap_counter}=events=methods ${fib_threads} 20)
case(cli/threads/handlers_overlap/methods_seeded 0 - "^overlap_counter: handlers=[0-9]+ overlapped=0 most_at_once=1 "
     ${VMRUN} --seed=3 ${overlap_counter}=events=methods ${fib_threads} 20)
# The threads benchmark runs: examples/bench/threads_overhead.sh --quick
# (cli/threads_overhead_quick.sh); no timing is asserted.
case(cli/threads/overhead_script_quick 0 - -
     sh ${CMAKE_SOURCE_DIR}/tests/cli/threads_overhead_quick.sh
     ${CMAKE_SOURCE_DIR}/examples/bench/threads_overhead.sh ${CMAKE_BINARY_DIR})
# --seed keeps its byte-identical streams with the flag given.
case(cli/threads/handlers_overlap/seeded_stream_repeats 0 - -
     sh -c "for run in 1 2\ndo \"$0\" --seed=11 -agentlib:trace=file=seeded_$run.jsonl,events=THREAD_START:THREAD_END:OBJECT_ALLOC:GC_START:GC_FINISH:METHOD_ENTRY $1 10 > /dev/null || exit 1\ndone\ncmp seeded_1.jsonl seeded_2.jsonl"
     ${VMRUN} ${trees_threads})

# The bundled agents with handlers overlapping: check's stream rules beside
# trace, gcstats and hprof heap=sites, on a small heap (collections while
# other threads are in handlers), every collector, and the program's
# output unchanged; check alone in strict mode (slower: it guards every
# record); and the threaded examples with check.
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/threads/concurrent_agents/${gc} 0 - "^check: ok: "
       sh -c "\"$0\" --seed=1 $1 > plain.txt || exit 1\nshift\n\"$@\" > concurrent.txt || exit 1\ncmp plain.txt concurrent.txt"
       ${VMRUN} "${trees_threads} 10" ${VMRUN} --gc=${gc} --heap=1m
       -agentlib:check -agentlib:trace=file=trace.jsonl -agentlib:gcstats=file=gcstats.txt -agentlib:hprof=heap=sites,file=hprof.txt
       ${trees_threads} 10)
  case(cli/threads/concurrent_strict/${gc} 0 - "^check: ok: "
       ${VMRUN} --gc=${gc} --heap=256k --vmpi-strict -agentlib:check ${trees_threads} 8)
  foreach(example threads_contended_lock threads_producer_consumer threads_handoff)
    read_side_file(${CMAKE_SOURCE_DIR}/examples/${example}.args "" example_args)
    case(cli/threads/concurrent_examples/${example}/${gc} 0 ${CMAKE_SOURCE_DIR}/examples/${example}.expected "^check: ok: "
         ${VMRUN} --gc=${gc} --vmpi-strict -agentlib:check=methods=y ${CMAKE_SOURCE_DIR}/examples/${example}.gcl ${example_args})
  endforeach()
endforeach()

# Deliberately broken agents: strict mode's hang watch names each hang.
# A handler that never returns, on a worker thread:
case(cli/threads/broken/blocking_handler 1 - "^vmpi: hang: agent 'libblocking_handler.so', NotifyEvent\\(OBJECT_ALLOC\\) on thread 'thread-[0-9]+', for [0-9.]+ s$@@^vmpi: the run is ended after 2 s \\(--vmpi-hang-limit\\)$"
     ${VMRUN} --vmpi-strict --vmpi-hang-limit=2 -agentpath:$<TARGET_FILE:test_agent_blocking_handler> ${trees_threads} 10)
# Its own lock held on its own thread across a heap dump, which waits for
# the program threads to stop, while a handler waits for the lock:
case(cli/threads/broken/lock_order 1 - "^vmpi: hang: agent 'liblock_order.so', NotifyEvent\\(OBJECT_ALLOC\\) on thread '[^']+', for [0-9.]+ s$@@^vmpi: an agent's thread waits in RequestEvent for the program threads to stop at a safepoint$@@^vmpi: the run is ended after 2 s"
     ${VMRUN} --vmpi-strict --vmpi-hang-limit=2 -agentpath:$<TARGET_FILE:test_agent_lock_order> ${CMAKE_SOURCE_DIR}/examples/threads_contended_lock.gcl)
