# Heap sizing (docs/heap-sizing.md): the heap grows with the live set and
# shrinks after it falls, stops at the maximum with a message naming the
# flag that raises it, and takes the JVM's spellings of the heap flags.
# Included from tests/CMakeLists.txt.
set(heap_phases ${CMAKE_CURRENT_SOURCE_DIR}/cli/heap_phases.gcl)
set(heap_sizing ${CMAKE_CURRENT_SOURCE_DIR}/cli/heap_sizing.sh)
foreach(gc ${GCLAB_COLLECTORS})
  # Up and back down, with a small nursery so that the old generation
  # holds the live set; the check agent and the heap verifier see every
  # capacity change in GC_FINISH.
  add_test(NAME heap_sizing/${gc}/grows_and_shrinks
           COMMAND sh ${heap_sizing} follows ${VMRUN} ${gc} ${heap_phases}
                   --gc-log -Xms1m -Xmn256k --verify-heap -agentlib:check)
  add_test(NAME heap_sizing/${gc}/verbose_gc_alias
           COMMAND sh ${heap_sizing} follows ${VMRUN} ${gc} ${heap_phases} -verbose:gc -Xmn256k)
  # -Xms equal to -Xmx: the heap of old, one size throughout.
  add_test(NAME heap_sizing/${gc}/fixed_with_xms_equal_to_xmx
           COMMAND sh ${heap_sizing} fixed ${VMRUN} ${gc} ${heap_phases} -Xlog:gc -Xms8m -Xmx8m -Xmn1m)
  # 100000 cells (3.1 MiB) cannot live in a 2 MiB heap: status 1 and the
  # message names the maximum and the flag.
  case(heap_sizing/${gc}/maximum_reached 1 - "^error: out of memory: maximum heap 2 MiB reached by a request of [0-9]+ bytes \\(${gc}, .*\\); raise it with --heap=SIZE \\(or -Xmx\\)$"
       ${VMRUN} --gc=${gc} -Xmx2m ${heap_phases} 100000)
  case(heap_sizing/${gc}/maximum_reached_heap 1 - "maximum heap 2 MiB reached"
       ${VMRUN} --gc=${gc} --heap=2m ${heap_phases} 100000)
  # The default maximum fits within ulimit -v (a quarter of it), so a
  # limited process still starts.  Not under ASan, whose shadow memory alone
  # is beyond any such limit.
  if(NOT GCLAB_SANITIZE)
    case(heap_sizing/${gc}/default_maximum_under_ulimit 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected ""
         sh -c "ulimit -v 300000 && exec \"$0\" --gc=$1 \"$2\"" ${VMRUN} ${gc} ${hello})
  endif()
endforeach()

# ---- the flags: strict values, one message, status 2 ----------------------------
case(heap_sizing/flags/xms_above_xmx 2 - "^vmrun: -Xms \\(8388608 bytes\\) must be at most the maximum heap, --heap or -Xmx \\(4194304 bytes\\)$"
     ${VMRUN} -Xmx4m -Xms8m ${hello})
case(heap_sizing/flags/xmx_bad_size 2 - "^vmrun: invalid size '12q' for -Xmx"
     ${VMRUN} -Xmx12q ${hello})
case(heap_sizing/flags/xmx_no_size 2 - "^vmrun: -Xmx needs a size"
     ${VMRUN} -Xmx ${hello})
case(heap_sizing/flags/xmn_too_large 2 - "^vmrun: --young or -Xmn \\(4194304 bytes\\) must be at most half of the maximum heap"
     ${VMRUN} -Xmx4m -Xmn4m ${hello})
case(heap_sizing/flags/xlog_other 2 - "^vmrun: unknown option '-Xlog:gc\\*'"
     ${VMRUN} -Xlog:gc* ${hello})
