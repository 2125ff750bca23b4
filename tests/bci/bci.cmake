# The instrumentation library (vmpi/vmpi_bci.h, docs/bci.md), included from
# tests/CMakeLists.txt (which defines case(), VMRUN and GCLAB_COLLECTORS):
#   bci/identity/NAME   every example's image, parsed and serialized with
#                       nothing inserted, comes back byte for byte
#   bci/all/GC/NAME     with calls at every method entry, exit and
#                       allocation, every example still verifies, prints
#                       what it prints and exits as it exits, under every
#                       collector; one that returns from main has run as
#                       many exits as entries
# (tptp/bci/... compares the allocation calls with OBJECT_ALLOC, object for
# object, and fuzz/bci the library on hostile images.)
add_library(test_agent_bci MODULE ${CMAKE_CURRENT_SOURCE_DIR}/bci/bci_agent.c)
target_include_directories(test_agent_bci PRIVATE ${GCLAB_AGENT_INCLUDES})
target_link_libraries(test_agent_bci PRIVATE vmpi_bci)
set_target_properties(test_agent_bci PROPERTIES OUTPUT_NAME bci_agent C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/agents)
set(bci_agent ${CMAKE_CURRENT_BINARY_DIR}/agents/libbci_agent.so)

file(GLOB bci_examples CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.gcl ${CMAKE_SOURCE_DIR}/examples/bench/*.gcl)
foreach(src ${bci_examples})
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(name ${src} NAME_WE)
  set(base ${dir}/${name})
  if(NOT EXISTS ${base}.expected)
    continue()
  endif()
  if(dir MATCHES "/bench$")
    set(name bench_${name})
  endif()
  read_side_file(${base}.args "" args)
  read_side_file(${base}.vmargs "" vmargs)
  read_side_file(${base}.status 0 status)
  case(bci/identity/${name} ${status} ${base}.expected "^bci: identity: [0-9]+ bytes, unchanged$"
       ${VMRUN} -agentpath:${bci_agent}=identity ${vmargs} ${src} ${args})
  if(status EQUAL 0)
    set(counts "^bci: all: ([1-9][0-9]*) entries, \\1 exits, [0-9]+ allocations$")
  else()
    set(counts "^bci: all: [1-9][0-9]* entries, [0-9]+ exits, [0-9]+ allocations$")
  endif()
  foreach(gc ${GCLAB_COLLECTORS})
    case(bci/all/${gc}/${name} ${status} ${base}.expected "${counts}"
         ${VMRUN} --gc=${gc} -agentpath:${bci_agent}=all ${vmargs} ${src} ${args})
  endforeach()
endforeach()
