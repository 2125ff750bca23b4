# Heap memory: growth while an agent holds collection disabled, and (below)
# repeatable runs with --seed.  Included from tests/CMakeLists.txt.

# ---- GC disabled: every collector grows past --heap (docs/contracts.md) ----------
# tests/agents/gc_disabler.c holds DisableGC from JVM_INIT_DONE on and checks
# that no collection starts, that the program allocated past the heap (else
# the case proves nothing), and with enable_after that a collection after
# EnableGC brings the heap back within it.  binary_trees 8 allocates 800 KB
# through a 128 KiB heap; its output must be the output without the agent,
# and --verify-heap and the check agent must stay clean.
set(gc_disabler ${agents}/libgc_disabler.so)
set(binary_trees ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl)
set(gc_disabled_run "\"$0\" \"$1\" 8 > $2.plain || exit 99\n\"$0\" --gc=$3 --heap=128k --verify-heap -agentpath:$4 -agentlib:check \"$1\" 8 > $2.out || exit\ncmp $2.plain $2.out")
foreach(gc ${GCLAB_COLLECTORS})
  case(gc_disabled/${gc}/never 0 - "^gc_disabler: ok: @@^check: ok: "
       sh -c "${gc_disabled_run}" ${VMRUN} ${binary_trees} disabled_never_${gc} ${gc} ${gc_disabler}=heap=131072)
  case(gc_disabled/${gc}/enabled_later 0 - "^gc_disabler: ok: .* [1-9][0-9]* collections after EnableGC@@^check: ok: "
       sh -c "${gc_disabled_run}" ${VMRUN} ${binary_trees} disabled_later_${gc} ${gc} ${gc_disabler}=heap=131072,enable_after=6000)
  # Real memory does run out (here: ulimit -v, 300 MB): the allocation fails
  # through the VM's out-of-memory path, status 1, no crash.  Not under ASan,
  # whose shadow memory alone is beyond any such limit.
  if(NOT GCLAB_SANITIZE)
    case(gc_disabled/${gc}/memory_exhausted 1 - "^error: out of memory: @@^gc_disabler: ok: "
         sh -c "ulimit -v 300000 && exec \"$0\" --gc=$1 --heap=1m -agentpath:$2 \"$3\" 20" ${VMRUN} ${gc}
         ${gc_disabler}=heap=1048576 ${binary_trees})
  endif()
endforeach()
