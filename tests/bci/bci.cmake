# The instrumentation library (vmpi/vmpi_bci.h, docs/bci.md), included from
# tests/CMakeLists.txt (which defines case(), VMRUN and GCLAB_COLLECTORS, and
# calls bci_example_cases for each example):
#   bci/identity/NAME   every example's image, parsed and serialized with
#                       nothing inserted, comes back byte for byte
#   bci/all/GC/NAME     with calls at every method entry, exit and
#                       allocation, every example still verifies, prints
#                       what it prints and exits as it exits, under every
#                       collector; one that returns from main has run as
#                       many exits as entries
#   bci/too_big         a method the calls would take past the format's limit is
#                       refused with one line
# (tptp/bci/... compares the allocation calls with OBJECT_ALLOC, object for
# object, and fuzz/bci the library on hostile images.)
add_library(test_agent_bci MODULE ${CMAKE_CURRENT_SOURCE_DIR}/bci/bci_agent.c)
target_include_directories(test_agent_bci PRIVATE ${GCLAB_AGENT_INCLUDES})
target_link_libraries(test_agent_bci PRIVATE vmpi_bci)
set_target_properties(test_agent_bci PROPERTIES OUTPUT_NAME bci_agent C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/agents)
set(bci_agent ${CMAKE_CURRENT_BINARY_DIR}/agents/libbci_agent.so)

# One example's cases, called from the examples loop of tests/CMakeLists.txt:
# NAME, its exit status and expected output, then vmrun's options and the
# program with its arguments.
function(bci_example_cases name status expected)
  case(bci/identity/${name} ${status} ${expected} "^bci: identity: [0-9]+ bytes, unchanged$"
       ${VMRUN} -agentpath:${bci_agent}=identity ${ARGN})
  # One that returns from main has run as many exits as entries.
  set(exits "[0-9]+")
  if(status EQUAL 0)
    set(exits "\\1")
  endif()
  set(counts "^bci: all: ([1-9][0-9]*) entries, ${exits} exits, [0-9]+ allocations$")
  foreach(gc ${GCLAB_COLLECTORS})
    case(bci/all/${gc}/${name} ${status} ${expected} "${counts}"
         ${VMRUN} --gc=${gc} -agentpath:${bci_agent}=all ${ARGN})
  endforeach()
endfunction()

# A method the calls would make too long: refused with one line, status 1.
file(MAKE_DIRECTORY ${scratch}/bci/too_big)
add_test(NAME bci/too_big COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bci/too_big.sh ${VMRUN}
         WORKING_DIRECTORY ${scratch}/bci/too_big)
set_tests_properties(bci/too_big PROPERTIES PASS_REGULAR_EXPRESSION "^too_big: ok")
