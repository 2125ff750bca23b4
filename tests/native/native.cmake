# Native calls (docs/language.md "Native functions"): the C library the
# programs here call, each program under every collector (also with
# --gc-stress --verify-heap and the check agent), and the load errors and
# --no-native as command-line cases.  Included from tests/CMakeLists.txt
# (which defines case(), the tool paths and GCLAB_COLLECTORS).
set(native_src ${CMAKE_CURRENT_SOURCE_DIR}/native)
set(native_lib_dir ${CMAKE_CURRENT_BINARY_DIR}/native)
add_library(gclabtest SHARED ${native_src}/gclabtest.c)
set_target_properties(gclabtest PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${native_lib_dir})
# The programs name "libgclabtest.so"; dlopen finds it through the path.
set(with_test_lib env LD_LIBRARY_PATH=${native_lib_dir})

foreach(name numbers strings arrays)
  foreach(gc ${GCLAB_COLLECTORS})
    case(native/${gc}/${name} 0 ${native_src}/${name}.expected ""
         ${with_test_lib} ${VMRUN} --gc=${gc} ${native_src}/${name}.gcl)
    case(native_stress/${gc}/${name} 0 ${native_src}/${name}.expected ""
         ${with_test_lib} ${VMRUN} --gc=${gc} --gc-stress --verify-heap ${native_src}/${name}.gcl)
    case(native_check/${gc}/${name} 0 ${native_src}/${name}.expected "^check: ok: "
         ${with_test_lib} ${VMRUN} --gc=${gc} -agentlib:check ${native_src}/${name}.gcl)
  endforeach()
  # Compiled to a .bc file (a 1.1 file with a natives table) and run from it.
  case(native/compiled/${name} 0 ${native_src}/${name}.expected ""
       sh -c "\"$0\" \"$1\" -o native_${name}.bc && exec env LD_LIBRARY_PATH=\"$2\" \"$3\" native_${name}.bc"
       ${VMC} ${native_src}/${name}.gcl ${native_lib_dir} ${VMRUN})
endforeach()

# ---- errors when the program loads: status 1, one message naming the native ----------
case(cli/native/missing_library 1 /dev/null
     "^vmrun: .*missing_library\\.gcl: native 'gt_nothing' \\(libgclab-no-such-library\\.so\\): cannot open the library: "
     ${VMRUN} ${native_src}/missing_library.gcl)
case(cli/native/missing_symbol 1 /dev/null
     "^vmrun: .*missing_symbol\\.gcl: native 'gclab_no_such_symbol' \\(libm\\.so\\.6\\): no such symbol in the library: .*gclab_no_such_symbol"
     ${VMRUN} ${native_src}/missing_symbol.gcl)
case(cli/native/bad_signature_source 1 /dev/null
     "^.*bad_signature\\.gcl:4:30: C can be passed only numbers, bools, strings and arrays of numbers or bools, not Point$"
     ${VMC} ${native_src}/bad_signature.gcl -o bad_signature.bc)
case(cli/native/bad_signature_bytecode 1 /dev/null
     "^bad_signature\\.bc: offset [0-9]+: native free: parameter 1 has type C: C can be passed only numbers, bools, strings and arrays of those$"
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
