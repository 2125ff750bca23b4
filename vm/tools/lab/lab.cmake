# lab.cmake -- the browser build (docs/lab.md), included by CMakeLists.txt
# when GCLAB_WASM is on, after the core libraries.
#
# vmrun.js: vmrun itself (vm/tools/vmrun), as WebAssembly inside one
# script, with the gcstats, check, trace and heapdump agents linked in (a
# page cannot dlopen).  heapview.js: heapview (vmpi/tools/heapview), which
# draws the runs' recordings.  lab.html: the page, everything inline
# (make_page.py).

# Each agent's entry point is renamed so that three can live in one module;
# what they share (vmpi/agents/common) is linked once.
file(GLOB lab_agent_common CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/vmpi/agents/common/*.c)
add_library(lab_agent_common STATIC ${lab_agent_common})
target_include_directories(lab_agent_common PRIVATE ${CMAKE_SOURCE_DIR}/vmpi ${CMAKE_SOURCE_DIR}/vmpi/agents)
set(lab_agents gcstats check trace heapdump)
foreach(agent ${lab_agents})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/vmpi/agents/${agent}/*.c)
  add_library(lab_agent_${agent} STATIC ${sources})
  target_include_directories(lab_agent_${agent} PRIVATE ${CMAKE_SOURCE_DIR}/vmpi ${CMAKE_SOURCE_DIR}/vmpi/agents)
  target_compile_definitions(lab_agent_${agent} PRIVATE VMPI_OnLoad=gclab_${agent}_OnLoad)
  target_link_libraries(lab_agent_${agent} PUBLIC lab_agent_common)
  list(APPEND lab_agent_libraries lab_agent_${agent})
endforeach()

add_executable(vmrun vm/tools/vmrun/vmrun.c vm/tools/vmrun/options.c vm/tools/vmrun/heap_options.c
  vm/tools/lab/builtin_agents.c)
target_link_libraries(vmrun PRIVATE gclab_core ${lab_agent_libraries})
# heapview as it is natively, but without json-c and zlib, which Debian's
# emscripten has not: it reads the binary recordings only, and stores the
# page's data unpacked (vmpi/tools/heapview/deflate.h).
include(${CMAKE_SOURCE_DIR}/vmpi/tools/heapview/heapview_sources.cmake)
add_executable(heapview ${heapview_sources} ${heapview_dir}/trace_read_json_refused.c ${heapview_dir}/deflate_stored.c
  vmpi/tools/trace_binary/trace_binary_read.c)
target_include_directories(heapview PRIVATE ${heapview_include_dirs} ${CMAKE_SOURCE_DIR}/vmpi
  ${CMAKE_SOURCE_DIR}/vmpi/agents/common)
target_link_libraries(heapview PRIVATE gclab_config lab_agent_common)

# Each program is one script holding its module (SINGLE_FILE), made by
# EXPORT_NAME() in a worker, main run by callMain; a fresh module per run,
# as a fresh process.  A deep recursion needs the stack a native thread has.
function(lab_module target export_name)
  target_link_options(${target} PRIVATE -sMODULARIZE=1 -sEXPORT_NAME=${export_name} -sSINGLE_FILE=1
    -sENVIRONMENT=worker -sINVOKE_RUN=0 -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB
    -sTOTAL_STACK=8MB "-sEXPORTED_RUNTIME_METHODS=['callMain','FS']")
  # emscripten's optimizer runs under node and needs Debian's node modules,
  # which another node first on PATH does not look in.
  set_target_properties(${target} PROPERTIES RULE_LAUNCH_LINK "env NODE_PATH=/usr/share/nodejs")
endfunction()
lab_module(vmrun createVmrun)
lab_module(heapview createHeapview)

# The page: lab.html in the build's bin/, beside vmrun.js.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(lab_dir ${CMAKE_SOURCE_DIR}/vm/tools/lab)
file(GLOB lab_examples CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.gcl ${CMAKE_SOURCE_DIR}/examples/bench/*.gcl
  ${CMAKE_SOURCE_DIR}/examples/*.args ${CMAKE_SOURCE_DIR}/examples/bench/*.args ${CMAKE_SOURCE_DIR}/examples/*.vmargs)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/bin/lab.html
  COMMAND Python3::Interpreter ${lab_dir}/make_page.py $<TARGET_FILE:vmrun> $<TARGET_FILE:heapview> ${CMAKE_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/bin/lab.html
  DEPENDS vmrun heapview ${lab_dir}/make_page.py ${lab_dir}/lab.html ${lab_dir}/lab.js ${lab_dir}/lab.css ${lab_dir}/worker.js
          ${heapview_dir}/page.css ${heapview_dir}/scene.js ${heapview_dir}/page.js
          ${lab_examples}
  COMMENT "Writing the lab page, bin/lab.html")
add_custom_target(lab ALL DEPENDS ${CMAKE_BINARY_DIR}/bin/lab.html)
