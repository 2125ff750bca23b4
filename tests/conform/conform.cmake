# The conformance runner (vmpi/tools/conform/vmpi-conform), included from
# tests/CMakeLists.txt:
#   conform/passes/AGENT   every bundled agent passes the whole matrix, and its
#                          JUnit XML is well-formed and complete (expect.sh)
#   conform/fails/...      broken agents fail in the right cells, with the
#                          right message, and the runner itself never breaks
#   conform/usage/...      a bad command line is refused with status 2
#   conform/behaviours     in every cell check attaches late and the driver
#                          holds GC disabled, and holds grow the heap
#                          (behaviours.py)
#   conform/driver/...     the driver agent's options
#   late/GC/EXAMPLE        every example, under every collector, with check
#                          attaching late and the driver holding GC disabled
#   conform/installed      cmake --install lays out a runner that works
set(conform_runner ${CMAKE_BINARY_DIR}/bin/vmpi-conform)
set(conform_expect sh ${CMAKE_CURRENT_SOURCE_DIR}/conform/expect.sh)
file(GLOB conform_programs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/vmpi/tools/conform/corpus/*.gcl)
list(LENGTH conform_programs conform_program_count)
list(LENGTH GCLAB_COLLECTORS conform_collector_count)
math(EXPR conform_cells "${conform_program_count} * ${conform_collector_count}")
set(breaker ${CMAKE_CURRENT_BINARY_DIR}/agents/libconform_breaker.so)

function(conform_test name)
  add_test(NAME conform/${name} COMMAND ${ARGN} WORKING_DIRECTORY ${scratch})
endfunction()

conform_test(passes/trace ${conform_expect} 0 ${conform_cells} -- ${conform_runner} trace)
conform_test(passes/check ${conform_expect} 0 ${conform_cells} -- ${conform_runner} check)
conform_test(passes/hprof ${conform_expect} 0 ${conform_cells} -- ${conform_runner} hprof heap=sites)
conform_test(passes/tptp ${conform_expect} 0 ${conform_cells} -- ${conform_runner} tptp file=/dev/null,dump=y)
conform_test(passes/tptp_bci ${conform_expect} 0 ${conform_cells} -- ${conform_runner} tptp file=/dev/null,dump=y,alloc=bci)

# Breaks under semispace only: that column fails, every other cell passes.
set(semispace_fails)
foreach(src ${conform_programs})
  get_filename_component(program ${src} NAME_WE)
  list(APPEND semispace_fails "semispace:${program}:RequestEvent.*not a live object ID")
endforeach()
conform_test(fails/one_collector ${conform_expect} 1 ${conform_cells} ${semispace_fails}
             -- ${conform_runner} ${breaker} gc=semispace)
conform_test(fails/crash ${conform_expect} 1 2 "marksweep:id_reuse:^killed by SIGSEGV: vmpi: fatal error"
             "refcount:id_reuse:^killed by SIGSEGV"
             -- ${conform_runner} --programs id_reuse --gc marksweep,refcount ${breaker} how=crash)
conform_test(fails/hang ${conform_expect} 1 1 "generational:survivors:^timed out after 2 s"
             -- ${conform_runner} --timeout 2 --programs survivors --gc generational ${breaker} how=hang)
conform_test(fails/onload ${conform_expect} 1 1 "markcompact:nursery:VMPI_OnLoad failed"
             -- ${conform_runner} --programs nursery --gc markcompact ${CMAKE_CURRENT_BINARY_DIR}/agents/libfailing_onload.so)
# Control characters, bytes that are not UTF-8 and markup on stderr: the XML
# stays well-formed.
conform_test(fails/noise ${conform_expect} 1 1 "refcount:mass_free:^exit status 3, expected 0: noise: "
             -- ${conform_runner} --programs mass_free --gc refcount ${breaker} how=noise)
# A path with a space and XML's markup characters, which the XML must escape.
conform_test(fails/odd_path ${conform_expect} 1 1 "marksweep:cycles:dlopen: .*/no such <dir> & 'x'/lib\\.so"
             -- ${conform_runner} --programs cycles --gc marksweep "${scratch}/no such <dir> & 'x'/lib.so")

# The late attach (but in the concurrent cells) and the GC holds happen in
# every cell, beside any agent.
add_test(NAME conform/behaviours
         COMMAND sh -c "\"$0\" --junit results.xml trace >/dev/null && python3 \"$1\" results.xml \"$2\""
                 ${conform_runner} ${CMAKE_CURRENT_SOURCE_DIR}/conform/behaviours.py ${CMAKE_SOURCE_DIR}/vmpi/tools/conform/corpus
         WORKING_DIRECTORY ${scratch})
add_test(NAME conform/driver/bad_option COMMAND sh ${run_case} 1 - "^conform_driver: options are heap=BYTES" --
         ${VMRUN} -agentlib:conform_driver=heap=131072,hold=1 ${CMAKE_SOURCE_DIR}/vmpi/tools/conform/corpus/cycles.gcl)
add_test(NAME conform/driver/no_heap COMMAND sh ${run_case} 1 - "^conform_driver: options are heap=BYTES" --
         ${VMRUN} -agentlib:conform_driver=seed=3 ${CMAKE_SOURCE_DIR}/vmpi/tools/conform/corpus/cycles.gcl)

add_test(NAME conform/usage/no_agent COMMAND sh ${run_case} 2 - "^usage: vmpi-conform" -- ${conform_runner})
add_test(NAME conform/usage/bad_option COMMAND sh ${run_case} 2 - "^vmpi-conform: unknown option '--nosuch'" --
         ${conform_runner} --nosuch trace)
add_test(NAME conform/usage/bad_seed COMMAND sh ${run_case} 2 - "^vmpi-conform: --seed takes a whole number, not 'x'" --
         ${conform_runner} --seed x trace)
add_test(NAME conform/usage/unknown_program COMMAND sh ${run_case} 2 - "^vmpi-conform: no program 'nosuch' in " --
         ${conform_runner} --programs nosuch trace)
add_test(NAME conform/installed
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/conform/installed.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                 "${scratch}/conform install" ${CMAKE_SOURCE_DIR}/vmpi/tools/conform/corpus)
# cmake --install rewrites the build's install_manifest.txt: one such test at a time.
set_tests_properties(conform/installed PROPERTIES RESOURCE_LOCK install_manifest)

# What the runner does beside an agent, on every example (example_sources,
# from tests/CMakeLists.txt): check attaches late, mid-run where the example
# enters 20 methods, and the driver holds GC disabled for stretches.
foreach(src ${example_sources})
  get_filename_component(dir ${src} DIRECTORY)
  get_filename_component(name ${src} NAME_WE)
  set(base ${dir}/${name})
  if(dir MATCHES "/bench$" OR NOT EXISTS ${base}.expected)
    continue()
  endif()
  read_side_file(${base}.args "" args)
  read_side_file(${base}.vmargs "" vmargs)
  read_side_file(${base}.status 0 status)
  foreach(gc ${GCLAB_COLLECTORS})
    case(late/${gc}/${name} ${status} ${base}.expected "^check: late: attached at event #@@^check: ok: @@^conform_driver: ok: "
         ${VMRUN} --gc=${gc} --heap=256k -agentlib:check=seed=2,dump_every=200,toggle_every=100,late=20
         -agentlib:conform_driver=heap=262144,seed=2,hold_every=200 ${vmargs} ${src} ${args})
  endforeach()
endforeach()
