# heapview_sources.cmake -- heapview's sources and its embedded page assets,
# for the native build (CMakeLists.txt) and the lab page's (vm/tools/lab/lab.cmake).
# Each adds what reads JSON lines and packs the page: json-c and zlib natively,
# trace_read_json_refused.c and deflate_stored.c in the page.
set(heapview_dir ${CMAKE_SOURCE_DIR}/vmpi/tools/heapview)
set(heapview_assets_header ${CMAKE_BINARY_DIR}/generated/heapview/page_assets.h)
add_custom_command(OUTPUT ${heapview_assets_header}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated/heapview
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${heapview_assets_header}
          "-DASSETS=${heapview_dir}/page.css=heapview_page_css\;${heapview_dir}/scene.js=heapview_scene_js\;${heapview_dir}/page.js=heapview_page_js"
          -P ${heapview_dir}/embed_assets.cmake
  DEPENDS ${heapview_dir}/page.css ${heapview_dir}/scene.js ${heapview_dir}/page.js ${heapview_dir}/embed_assets.cmake
  COMMENT "Embedding heapview's page.css and page.js")
set(heapview_sources ${heapview_dir}/heapview.c ${heapview_dir}/heap_model.c ${heapview_dir}/live_map.c
  ${heapview_dir}/page_write.c ${heapview_dir}/json_write.c ${heapview_dir}/progress.c
  ${heapview_dir}/trace_read.c ${heapview_dir}/dump_read.c
  ${CMAKE_SOURCE_DIR}/vmpi/tools/common/collector_mode.c ${heapview_assets_header})
set(heapview_include_dirs ${CMAKE_BINARY_DIR}/generated/heapview ${CMAKE_SOURCE_DIR}/vmpi/agents ${CMAKE_SOURCE_DIR})
