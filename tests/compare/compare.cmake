# The comparison (docs/gcstats.md): the gcstats agent's figures and Chrome
# timeline checked against the trace of the same run, gccompare's table,
# CSV, JSON and merged timeline checked against each other, and bad input
# refused with one clear message.  Included from tests/CMakeLists.txt (which
# defines case(), VMRUN, scratch and GCLAB_COLLECTORS).
set(compare_dir ${CMAKE_CURRENT_SOURCE_DIR}/compare)
set(compare_cycles ${CMAKE_SOURCE_DIR}/examples/cycles.gcl)
set(gccompare ${CMAKE_BINARY_DIR}/bin/gccompare)

# Small and deterministic: 400 rings of 40 nodes at 128 KiB collect under
# every collector (semispace flips, generational minors, refcount frees and
# cycle collections); --gc-stress on a few rings collects at every
# allocation, which gives generational its majors.
foreach(gc ${GCLAB_COLLECTORS})
  add_test(NAME compare/gcstats/${gc}/small_heap
           COMMAND python3 ${compare_dir}/gcstats_check.py ${VMRUN} ${gc} ${scratch}/gcstats_${gc}_small
                   --heap=128k -- ${compare_cycles} 400)
  add_test(NAME compare/gcstats/${gc}/stress
           COMMAND python3 ${compare_dir}/gcstats_check.py ${VMRUN} ${gc} ${scratch}/gcstats_${gc}_stress
                   --gc-stress -- ${compare_cycles} 5 20)
endforeach()

# 512 KiB holds what refcount without cycle collection leaks (docs/gcstats.md).
add_test(NAME compare/gccompare/table
         COMMAND python3 ${compare_dir}/gccompare_check.py ${gccompare} ${scratch}/gccompare_table
                 --heap=512k ${compare_cycles} 400)
# At 128 KiB it does not: the cycles-off run runs out of memory, and
# gccompare fails, naming it, rather than print that run's figures.
case(compare/gccompare/cycles_off_failed 1 - "^gccompare: refcount --rc-cycles=off: the run failed \\(status 1\\) error: out of memory"
     ${gccompare} --heap=128k ${compare_cycles} 400)
# A run of the program that fails under every collector alike is no
# comparison either (out_of_memory.gcl keeps everything reachable).
case(compare/gccompare/every_run_failed 1 - "^gccompare: marksweep: the run failed \\(status 1\\) error: out of memory"
     ${gccompare} --heap=64k --gc=marksweep,semispace ${CMAKE_SOURCE_DIR}/examples/out_of_memory.gcl)
# An unknown collector in --gc= is refused before any run: the vmrun given
# logs its command lines, and only the listing (--gc=) may be there.
case(compare/gccompare/unknown_collector 2 - "^gccompare: --gc=marksweep,semispac: vmrun has no collector 'semispac' \\(it has marksweep, "
     sh -c "printf '#!/bin/sh\\necho \"$*\" >> runs.log\\nexec %s \"$@\"\\n' \"$1\" > logging_vmrun\nchmod +x logging_vmrun\nrm -f runs.log\n\"$0\" --vmrun=./logging_vmrun --gc=marksweep,semispac \"$2\"\nstatus=$?\n[ \"$(cat runs.log)\" = --gc= ] || exit 99\nexit $status"
     ${gccompare} ${VMRUN} ${hello})
# Without cycle collection refcount runs out of memory where marksweep does
# not (examples/cycles.gcl): the outputs differ and gccompare says which.
case(compare/gccompare/disagreement 1 - "^gccompare: refcount: output differs from marksweep's \\(status 1, marksweep's 0\\) error: out of memory"
     ${gccompare} --heap=256k --gc=marksweep,refcount --vm-option=--rc-cycles=off ${compare_cycles} 1000)
# refcount's modes are collectors of their own in --gc=, checked up front
# like the names: a mode refcount does not have, a mode on another
# collector, a name given twice.
case(compare/gccompare/bad_mode 2 - "^gccompare: --gc=marksweep,refcount:eager: 'refcount:eager': refcount has no mode 'eager' \\(deferred or immediate\\)$"
     ${gccompare} --gc=marksweep,refcount:eager ${hello})
case(compare/gccompare/mode_elsewhere 2 - "^gccompare: --gc=semispace:immediate: 'semispace:immediate': only refcount has modes \\(refcount:deferred, refcount:immediate\\)$"
     ${gccompare} --gc=semispace:immediate ${hello})
case(compare/gccompare/named_twice 2 - "^gccompare: --gc=refcount,marksweep,refcount: 'refcount' is named twice$"
     ${gccompare} --gc=refcount,marksweep,refcount ${hello})

# The lifetimes tables (docs/gcstats.md, "Lifetimes") against the traces of
# every collector's run, refcount's two modes apart: under --gc-stress,
# where the bytes lived must also agree between collectors, and on a small
# heap, where collections are few.
set(lifetimes_program ${compare_dir}/lifetimes.gcl)
add_test(NAME compare/gccompare/lifetimes/stress
         COMMAND python3 ${compare_dir}/lifetimes_check.py ${gccompare} ${scratch}/lifetimes_stress
                 --agree --gc-stress -- ${lifetimes_program})
add_test(NAME compare/gccompare/lifetimes/small_heap
         COMMAND python3 ${compare_dir}/lifetimes_check.py ${gccompare} ${scratch}/lifetimes_small
                 --heap=64k -- ${lifetimes_program} 3000)

case(compare/gccompare/unknown_option 2 - "^gccompare: unknown option '--frobnicate'$"
     ${gccompare} --frobnicate ${compare_cycles})
case(compare/gccompare/no_program 2 - "^gccompare: no program given$" ${gccompare} --heap=1m)
case(compare/gccompare/missing_program 2 - "^gccompare: no program nosuch\\.gcl$" ${gccompare} nosuch.gcl)
case(compare/gccompare/needs_value 2 - "^gccompare: --heap needs a value \\(--heap=\\.\\.\\.\\)$"
     ${gccompare} --heap ${compare_cycles})
case(compare/gccompare/bad_seed 2 - "^gccompare: --seed=1x is not a number" ${gccompare} --seed=1x ${compare_cycles})
case(compare/gccompare/no_vmrun 2 - "^gccompare: no vmrun at no/such/vmrun \\(build first, or give --vmrun\\)$"
     ${gccompare} --vmrun=no/such/vmrun ${compare_cycles})
# A program that does not compile fails the first run, with vmrun's message.
case(compare/gccompare/does_not_load 1 - "^gccompare: marksweep: vmrun wrote no statistics \\(status 1\\) .*bad_syntax\\.gcl:3:16: expected expression$"
     ${gccompare} --gc=marksweep,refcount ${CMAKE_CURRENT_SOURCE_DIR}/cli/bad_syntax.gcl)
# A file that cannot be written: one line, status 1.
case(compare/gccompare/unwritable 1 - "^gccompare: cannot write no/such/dir/table\\.csv: No such file or directory$"
     ${gccompare} --gc=marksweep --csv=no/such/dir/table.csv ${hello})
# The scratch directory is gone afterwards, whether the collectors agree or
# not (rmdir fails on a directory left non-empty).
set(gccompare_cleans "dir=$(mktemp -d) || exit 99\nTMPDIR=$dir \"$0\" --gc=marksweep,refcount \"$@\" >/dev/null 2>&1\nrmdir \"$dir\"")
case(compare/gccompare/scratch_removed 0 - "" sh -c "${gccompare_cleans}" ${gccompare} ${hello})
case(compare/gccompare/scratch_removed_on_failure 0 - "" sh -c "${gccompare_cleans}" ${gccompare}
     --heap=256k --vm-option=--rc-cycles=off ${compare_cycles} 1000)

# A run that never collects has no pauses to sort: its statistics say 0
# collections and no capacity, and the sanitizers stay quiet (qsort of an
# empty, NULL array was undefined behaviour).
set(gcstats_no_collection "\"$0\" -agentlib:gcstats=file=\"$2\" \"$1\" >/dev/null && grep -q '\"collections\": 0,' \"$2\" && grep -q '\"peak_capacity_bytes\": null' \"$2\"")
case(compare/gcstats/no_collection 0 - "" sh -c "${gcstats_no_collection}" ${VMRUN} ${hello} ${scratch}/gcstats_no_collection.json)

# A bad option: one line naming it and listing the options, status 1,
# nothing run and no statistics written (exit 99 if gcstats.json appears).
set(gcstats_refused "rm -f gcstats.json\n\"$0\" \"$1\" \"$2\"\nstatus=$?\nif [ -e gcstats.json ]\nthen exit 99\nfi\nexit $status")
foreach(bad
    "bogus=1@@^gcstats: bad option 'bogus=1' \\(options: file=F, chrome=F\\)$"
    "file=@@^gcstats: bad option 'file=' \\(options: file=F, chrome=F\\)$"
    "chrome@@^gcstats: bad option 'chrome' \\(options: file=F, chrome=F\\)$"
    "chrome=no/such/dir/run.json@@^gcstats: cannot open no/such/dir/run.json: No such file or directory$")
  string(REPLACE "@@" ";" parts "${bad}")
  list(GET parts 0 options)
  list(GET parts 1 message)
  string(MAKE_C_IDENTIFIER "${options}" id)
  case(compare/gcstats/refused/${id} 1 - "${message}@@agent 'gcstats': VMPI_OnLoad failed"
       sh -c "${gcstats_refused}" ${VMRUN} -agentlib:gcstats=${options} ${hello})
endforeach()
