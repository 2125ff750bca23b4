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

# ---- --seed: repeatable runs (gc/common/fixed.h) ---------------------------------
# Two runs of a program that collects many times (a 128 KiB heap), with the
# same --seed and flags, write byte-identical trace files under every
# collector: object, class, thread and method IDs are addresses in the
# fixed-address heap.  A run with other arguments must differ, or cmp could
# not fail; and the runs must have collected (GC_START), or they prove less.
set(seeded_runs "vmrun=$0 gc=$1 tag=$2 program=$3\nrun() { \"$vmrun\" --gc=$gc --seed=7 --heap=128k -agentlib:trace=file=$tag.$1.trace \"$program\" $2 > /dev/null || exit 99\n}\nrun a 8\nrun b 8\nrun c 7\ncmp $tag.a.trace $tag.b.trace || exit 1\n[ $(grep -c GC_START $tag.a.trace) -ge 3 ] || exit 2\n! cmp -s $tag.a.trace $tag.c.trace")
foreach(gc ${GCLAB_COLLECTORS})
  case(seed/${gc}/identical_traces 0 - "" sh -c "${seeded_runs}" ${VMRUN} ${gc} seeded_${gc} ${binary_trees})
endforeach()
# The fixed address already taken (here by an agent, as it loads): one
# message naming the option and the address, status 1.
case(seed/address_taken 1 - "^vmrun: --seed needs .* at 0x300000000000 .*already mapped there$"
     ${VMRUN} --seed=1 -agentpath:${agents}/libfixed_squatter.so ${hello})
