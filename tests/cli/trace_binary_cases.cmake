# The binary event recording (docs/trace-format.md, "The binary recording"):
# for every example and benchmark program under every collector, format=binary
# converted by vmpi-trace2json is the JSON trace, byte for byte; bad
# recordings get one message and status 1.  Included from tests/CMakeLists.txt.
set(TRACE2JSON $<TARGET_FILE:vmpi-trace2json>)
set(trace_binary_same ${CMAKE_CURRENT_SOURCE_DIR}/cli/trace_binary_same.sh)
# trace_binary/same/GC/NAME, one per example and collector, are made in
# tests/CMakeLists.txt's loop over the examples.
# Every field kind the agent writes: methods, call frames (heap samples),
# monitors, threads, instructions, the class load hook's lengths, gclab's mechanism events.
file(MAKE_DIRECTORY ${scratch}/trace_binary/events)
add_test(NAME trace_binary/same/every_kind
         COMMAND sh ${trace_binary_same} ${VMRUN} ${TRACE2JSON} every_kind
                 "methods=y,mechanism=y,events=CLASS_LOAD_HOOK:INSTRUCTION_START:METHOD_ENTRY2:SAMPLED_OBJECT_ALLOC:MONITOR_CONTENDED_ENTER:MONITOR_CONTENDED_ENTERED:MONITOR_CONTENDED_EXIT:MONITOR_WAIT:MONITOR_WAITED"
                 -- ${CMAKE_SOURCE_DIR}/examples/threads_producer_consumer.gcl
         WORKING_DIRECTORY ${scratch}/trace_binary/events)

# Bad input: one line naming the file and the byte, status 1, no output.
case(cli/trace2json/not_a_recording 1 - "^vmpi-trace2json: .*hello.gcl: byte 0: not a gclab binary recording"
     ${TRACE2JSON} -o t2j_none.jsonl ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
case(cli/trace2json/cut_short 1 - "^vmpi-trace2json: cut.bin: byte [0-9]+: (no JVM_SHUT_DOWN: the recording is )?cut short"
     sh -c "rm -f cut.jsonl\n\"$0\" -agentlib:trace=file=whole.bin,format=binary \"$1\" > /dev/null\nhead -c $(($(wc -c < whole.bin) - 1)) whole.bin > cut.bin\n\"$2\" -o cut.jsonl cut.bin\nstatus=$?\n[ -e cut.jsonl ] && exit 99\nexit $status"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/hello.gcl ${TRACE2JSON})
case(cli/trace2json/missing 1 - "^vmpi-trace2json: no_such.bin: No such file or directory$"
     ${TRACE2JSON} no_such.bin)
case(cli/trace2json/no_recording 2 - "^vmpi-trace2json: no recording given"
     ${TRACE2JSON})
case(cli/trace/bad_format 1 - "format"
     ${VMRUN} -agentlib:trace=format=xml ${CMAKE_SOURCE_DIR}/examples/hello.gcl)

# The VM's own recorder (vmrun --record): with agents loaded beside it, which
# then get every event too, its file is still the trace agent's, byte for
# byte, and the check agent finds nothing wrong in the stream; bad paths get
# one message.
foreach(gc generational refcount)
  case(cli/record/beside_agents/${gc} 0 - "^check: ok: [0-9]+ events, [1-9][0-9]* collections"
       sh -c "\"$0\" --seed=1 --gc=$1 --heap=256k --record=vm.bin -agentlib:check -agentlib:trace=format=binary,file=agent.bin \"$2\" 6 > out.txt || exit 1\ncmp vm.bin agent.bin"
       ${VMRUN} ${gc} ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees_threads.gcl)
endforeach()
case(cli/record/cannot_open 1 - "^vmrun: --record: cannot open /nonexistent/run.bin: No such file or directory$"
     ${VMRUN} --record=/nonexistent/run.bin ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
case(cli/record/no_file 2 - "^vmrun: --record needs a file name"
     ${VMRUN} --record= ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
