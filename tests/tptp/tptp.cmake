# The tptp agent (docs/tptp.md), included from tests/CMakeLists.txt (which
# defines case(), VMRUN, scratch and GCLAB_COLLECTORS):
#   tptp/stream/GC/PROGRAM  its XML validates against docs/tptp-trace.xsd and
#                           agrees with the check-verified stream of the same
#                           run and with hprof's heap dump (tptp_check.py),
#                           single- and multi-threaded, every collector
#   tptp/bci/GC/PROGRAM     the same with alloc=bci: the instrumented program's
#                           allocations are the stream's OBJECT_ALLOCs from
#                           main's first instruction on, object for object,
#                           and the frees exactly those of these objects
#   tptp/select/GC          include= tracks one class: allocations and frees
#   tptp/signal/GC          a heap dump on SIGQUIT, and one at exit
#   tptp/odd_names          thread names that are not plain text stay well-formed
#   tptp/options/...        bad options are refused with one line
set(tptp_dir ${CMAKE_CURRENT_SOURCE_DIR}/tptp)
set(tptp_check python3 ${tptp_dir}/tptp_check.py)
set(tptp_xsd ${CMAKE_SOURCE_DIR}/docs/tptp-trace.xsd)

function(tptp_test name)
  file(MAKE_DIRECTORY ${scratch}/${name})
  add_test(NAME ${name} COMMAND ${ARGN} WORKING_DIRECTORY ${scratch}/${name})
  set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "^tptp_check: ok: ")
endfunction()

foreach(gc ${GCLAB_COLLECTORS})
  tptp_test(tptp/stream/${gc}/binary_trees
            ${tptp_check} ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl 6)
  tptp_test(tptp/stream/${gc}/producer_consumer
            ${tptp_check} --heap=256k ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/threads_producer_consumer.gcl)
  tptp_test(tptp/stream/${gc}/handoff
            ${tptp_check} ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/threads_handoff.gcl)
  tptp_test(tptp/bci/${gc}/binary_trees
            ${tptp_check} --bci ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl 6)
  tptp_test(tptp/bci/${gc}/producer_consumer
            ${tptp_check} --bci --heap=256k ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/threads_producer_consumer.gcl)
  tptp_test(tptp/bci/${gc}/signal_select
            ${tptp_check} --bci --signal --include=Node ${VMRUN} ${tptp_xsd} ${gc} ${tptp_dir}/tree_then_work.gcl)
  tptp_test(tptp/select/${gc}
            ${tptp_check} --include=Tree ${VMRUN} ${tptp_xsd} ${gc} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl 6)
  tptp_test(tptp/signal/${gc}
            ${tptp_check} --signal ${VMRUN} ${tptp_xsd} ${gc} ${tptp_dir}/tree_then_work.gcl)
endforeach()

file(MAKE_DIRECTORY ${scratch}/tptp/odd_names)
add_test(NAME tptp/odd_names COMMAND sh ${tptp_dir}/odd_names.sh ${VMRUN} ${tptp_xsd} ${tptp_dir}/odd_names.gcl
         WORKING_DIRECTORY ${scratch}/tptp/odd_names)
case(tptp/options/unknown 1 - "^tptp: bad option 'frob=1' \\(options: "
     ${VMRUN} -agentlib:tptp=frob=1 ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
case(tptp/options/dump_value 1 - "^tptp: bad option 'dump=maybe' "
     ${VMRUN} -agentlib:tptp=dump=maybe ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
case(tptp/options/alloc_value 1 - "^tptp: bad option 'alloc=jvmti' "
     ${VMRUN} -agentlib:tptp=alloc=jvmti ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
# --no-native refuses the instrumented program: its recorder is a native.
case(tptp/options/bci_no_native 1 - "refuses a program that declares native functions \\(the first: 'tptp_record_allocation'"
     ${VMRUN} --no-native -agentlib:tptp=alloc=bci,file=- ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
