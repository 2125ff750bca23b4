# Native calls (docs/language.md "Native functions"): the C library the
# programs here call, each program under every collector (also with
# --gc-stress --verify-heap and the check agent), and the load errors and
# --no-native as command-line cases.  Included from tests/CMakeLists.txt
# (which defines case(), the tool paths and GCLAB_COLLECTORS).
set(native_src ${CMAKE_CURRENT_SOURCE_DIR}/native)
set(native_lib_dir ${CMAKE_CURRENT_BINARY_DIR}/native)
add_library(gclabtest SHARED ${native_src}/gclabtest.c ${native_src}/gclabtest_env.c)
target_include_directories(gclabtest PRIVATE ${CMAKE_SOURCE_DIR})
set_target_properties(gclabtest PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${native_lib_dir})
# The programs name "libgclabtest.so"; dlopen finds it through the path.
set(with_test_lib env LD_LIBRARY_PATH=${native_lib_dir})

foreach(name numbers strings arrays callbacks)
  foreach(gc ${GCLAB_GC_RUNS})
    gc_run_flags(${gc} gc_flags)
    case(native/${gc}/${name} 0 ${native_src}/${name}.expected ""
         ${with_test_lib} ${VMRUN} ${gc_flags} ${native_src}/${name}.gcl)
    case(native_stress/${gc}/${name} 0 ${native_src}/${name}.expected ""
         ${with_test_lib} ${VMRUN} ${gc_flags} --gc-stress --verify-heap ${native_src}/${name}.gcl)
    case(native_check/${gc}/${name} 0 ${native_src}/${name}.expected "^check: ok: "
         ${with_test_lib} ${VMRUN} ${gc_flags} -agentlib:check ${native_src}/${name}.gcl)
  endforeach()
  # Compiled to a .bc file (a 1.1 file with a natives table) and run from it.
  case(native/compiled/${name} 0 ${native_src}/${name}.expected ""
       sh -c "\"$0\" \"$1\" -o native_${name}.bc && exec env LD_LIBRARY_PATH=\"$2\" \"$3\" native_${name}.bc"
       ${VMC} ${native_src}/${name}.gcl ${native_lib_dir} ${VMRUN})
endforeach()

# ---- weak global references, global reference events, heap dumps ---------------------
# weak.gcl's churn makes collections of every kind (old generations too);
# under --gc-stress a shorter churn (30 rounds, 200 kept) is enough.
foreach(gc ${GCLAB_GC_RUNS})
  gc_run_flags(${gc} gc_flags)
  case(native/${gc}/weak 0 ${native_src}/weak.expected ""
       ${with_test_lib} ${VMRUN} ${gc_flags} --heap=1m ${native_src}/weak.gcl)
  case(native_stress/${gc}/weak 0 ${native_src}/weak.expected ""
       ${with_test_lib} ${VMRUN} ${gc_flags} --heap=256k --gc-stress --verify-heap ${native_src}/weak.gcl 30 200)
  case(native_events/${gc}/callbacks 0 ${native_src}/callbacks.expected
       "^globalref_events: ok: 1 global \\(1 freed\\), 0 weak \\(0 freed\\), objects: Node$"
       ${with_test_lib} ${VMRUN} ${gc_flags} --heap=256k -agentpath:${agents}/libglobalref_events.so
       ${native_src}/callbacks.gcl)
  case(native_events/${gc}/weak 0 ${native_src}/weak.expected
       "^globalref_events: ok: 0 global \\(0 freed\\), 2 weak \\(2 freed\\), objects: Node Node$"
       ${with_test_lib} ${VMRUN} ${gc_flags} --heap=1m -agentpath:${agents}/libglobalref_events.so
       ${native_src}/weak.gcl)
endforeach()
foreach(gc ${GCLAB_COLLECTORS})
  add_test(NAME native/${gc}/dump_global
           COMMAND ${with_test_lib} sh ${native_src}/dump_global.sh ${VMRUN} ${native_src}/dump_global.gcl ${gc})
endforeach()
# Misuse of the callback API: a runtime error naming the native, status 1.
case(cli/native/misuse_null 1 /dev/null "^error: native gt_misuse: get_int: the object is null$@@at misuse\\.main"
     ${with_test_lib} ${VMRUN} ${native_src}/misuse.gcl 0)
case(cli/native/misuse_field_kind 1 /dev/null "^error: native gt_misuse: get_double: field Node\\.value has type J$"
     ${with_test_lib} ${VMRUN} ${native_src}/misuse.gcl 1)
case(cli/native/misuse_no_field 1 /dev/null "^error: native gt_misuse: get_int: field 99 is not a field of a Node$"
     ${with_test_lib} ${VMRUN} ${native_src}/misuse.gcl 2)
case(cli/native/misuse_not_global 1 /dev/null
     "^error: native gt_misuse: delete_global_ref: not a live reference of that kind$"
     ${with_test_lib} ${VMRUN} ${native_src}/misuse.gcl 3)

# ---- errors when the program loads: status 1, one message naming the native ----------
case(cli/native/missing_library 1 /dev/null
     "^vmrun: .*missing_library\\.gcl: native 'gt_nothing' \\(libgclab-no-such-library\\.so\\): cannot open the library: "
     ${VMRUN} ${native_src}/missing_library.gcl)
case(cli/native/missing_symbol 1 /dev/null
     "^vmrun: .*missing_symbol\\.gcl: native 'gclab_no_such_symbol' \\(libm\\.so\\.6\\): no such symbol in the library: .*gclab_no_such_symbol"
     ${VMRUN} ${native_src}/missing_symbol.gcl)
case(cli/native/bad_signature_source 1 /dev/null
     "^.*bad_signature\\.gcl:4:30: only a 'native env' function can be given or return objects \\(Point\\)$"
     ${VMC} ${native_src}/bad_signature.gcl -o bad_signature.bc)
case(cli/native/bad_signature_bytecode 1 /dev/null
     "^bad_signature\\.bc: offset [0-9]+: native free: parameter 1 has type C: only a native that takes the env can be given or return objects$"
     sh -c "\"$0\" --no-verify \"$1\" -o bad_signature.bc && exec \"$2\" bad_signature.bc"
     ${VMAS} ${native_src}/bad_signature.s ${VMRUN})
# --no-native refuses a program with natives, before it prints anything, from
# source and from bytecode, and runs one without natives as before.
case(cli/native/no_native_refuses 1 /dev/null
     "^vmrun: .*natives\\.gcl: --no-native refuses a program that declares native functions \\(the first: 'cos' from libm\\.so\\.6\\)$"
     ${VMRUN} --no-native ${CMAKE_SOURCE_DIR}/examples/natives.gcl)
case(cli/native/no_native_refuses_bytecode 1 /dev/null
     "^vmrun: no_native\\.bc: --no-native refuses"
     sh -c "\"$0\" \"$1\" -o no_native.bc && exec \"$2\" --no-native no_native.bc"
     ${VMC} ${CMAKE_SOURCE_DIR}/examples/natives.gcl ${VMRUN})
case(cli/native/no_native_runs_others 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected ""
     ${VMRUN} --no-native ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
