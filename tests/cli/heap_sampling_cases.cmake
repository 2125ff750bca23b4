# Heap sampling cases (JVMTI 11, SetHeapSamplingInterval; vmpi/runtime/heap_sampling.h),
# modelled on OpenJDK's HeapMonitor tests, each under every collector, with
# the heap_monitor test agent (cli/heap_monitor.sh says what each checks).
# Included from tests/CMakeLists.txt (which defines case(), VMRUN and
# GCLAB_COLLECTORS).
foreach(check every_allocation rate toggle first_allocation trace same_seed)
  case(cli/heap_sampling/${check} 0 - ""
       sh ${cli}/heap_monitor.sh ${check} ${VMRUN} ${agents}/libheap_monitor.so
          ${CMAKE_SOURCE_DIR}/examples/bench/list_churn.gcl ${cli}/sampled_sites.gcl ${GCLAB_COLLECTORS})
endforeach()
