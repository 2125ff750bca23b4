# Every top-level example collects under every collector in that collector's
# own pattern, at the flags examples/README.md shows for it ("Watch them
# collect"), read from the event stream by the gcstats agent
# (tests/examples/collect_patterns.py).  Included from tests/CMakeLists.txt
# (which defines VMRUN).
file(GLOB collect_examples CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/*.gcl)
foreach(src ${collect_examples})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME examples/collect/${name}
           COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/examples/collect_patterns.py ${VMRUN} ${CMAKE_SOURCE_DIR} ${name})
endforeach()
