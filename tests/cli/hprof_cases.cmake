# hprof agent cases (docs/hprof.md): its options, parsed strictly, and its
# heap=sites and heap=dump profiles under every collector.  Included from
# tests/CMakeLists.txt (which defines case(), VMRUN and GCLAB_COLLECTORS).
set(hprof_usage "^hprof usage: vmrun -agentlib:hprof=")
set(hprof_onload_failed "VMPI_OnLoad failed")

# help: the manual's usage on standard output, and the VM exits with success
# before the program runs (hello would print "Hello").
case(cli/hprof/help 0 - ""
     sh -c "\"$0\" -agentlib:hprof=help \"$1\" > help.out || exit 98\ngrep -q '^hprof usage:' help.out || exit 97\n! grep -q Hello help.out"
     ${VMRUN} ${hello})

# A bad option or value: the usage, one line naming the option, status 1,
# nothing run and no profile written (exit 99 if java.hprof.txt appears).
set(hprof_refused "rm -f java.hprof.txt\n\"$0\" \"$1\" \"$2\"\nstatus=$?\nif [ -e java.hprof.txt ]\nthen exit 99\nfi\nexit $status")
foreach(bad
    "bogus=1@@option 'bogus=1': unknown option"
    "heap=sites,heap=some@@option 'heap=some': takes dump, sites or all"
    "heap=sites,depth=x@@option 'depth=x': takes a number of frames from 0 to 1024"
    "heap=sites,depth=1025@@option 'depth=1025': takes a number"
    "heap=sites,interval=0@@option 'interval=0': takes a positive number"
    "heap=sites,cutoff=2@@option 'cutoff=2': takes a ratio from 0 to 1"
    "heap=sites,lineno=maybe@@option 'lineno=maybe': takes y or n"
    "heap=sites,file=@@option 'file=': takes a file name"
    "heap=sites,net=nohost@@option 'net=nohost': takes <host>:<port>"
    "heap=sites,cpu=often@@option 'cpu=often': takes samples, times or old"
    "heap=sites,format=c@@option 'format=c': takes a or b"
    "heap=sites,format=b,monitor=y@@option 'format=b': cannot be used with monitor=y"
    "heap=sites,format=b,cpu=old@@option 'format=b': cannot be used with cpu=old or cpu=times"
    "heap=sites,format=b,cpu=times@@option 'format=b': cannot be used with cpu=old or cpu=times"
    "heap=sites,format=b@@option 'format=b': not implemented yet"
    "heap=sites,net=localhost:5000@@option 'net=localhost:5000': not implemented yet"
    "heap=sites,cpu=samples@@option 'cpu=samples': not implemented yet"
    "heap=sites,cpu=old@@option 'cpu=old': not implemented yet"
    "heap=sites,monitor=y@@option 'monitor=y': not implemented yet"
    "heap=sites,force=n@@option 'force=n': not implemented yet")
  string(REPLACE "@@" ";" pair "${bad}")
  list(GET pair 0 options)
  list(GET pair 1 message)
  string(REGEX REPLACE "[^a-z0-9]+" "_" test_name "${options}")
  case(cli/hprof/refused_${test_name} 1 - "${hprof_usage}@@^hprof: ${message}@@${hprof_onload_failed}"
       sh -c "${hprof_refused}" ${VMRUN} -agentlib:hprof=${options} ${hello})
endforeach()

# msa is Solaris-only: accepted, with a word that it does nothing.
case(cli/hprof/msa_no_effect 0 - "^hprof: msa=y has no effect"
     ${VMRUN} -agentlib:hprof=heap=sites,msa=y,file=msa.txt ${hello})

# The text layout of the HPROF agent manual, in order: the header, the main
# thread's START and END, TRACEs with Class.method(File:line) frames at most
# `depth` deep, and the SITES table; file= names the file.
set(hprof_layout "rm -f layout.txt
\"$0\" -agentlib:hprof=heap=sites,depth=2,file=layout.txt \"$1\" 6 > /dev/null || exit 98
head -n 1 layout.txt | grep -q '^JAVA PROFILE 1.0.1, created ' || exit 10
grep -q '^THREAD START (obj=[0-9a-f]*, id = 200001, name=\"main\", group=\"main\")$' layout.txt || exit 11
grep -q '^THREAD END (id = 200001)$' layout.txt || exit 12
grep -q '^TRACE 300001:$' layout.txt || exit 13
grep -q '^	Tree.make(binary_trees.gcl:[0-9]*)$' layout.txt || exit 14
awk '/^TRACE /{n=0} /^\t/{if (++n > 2) bad=1} END{exit bad}' layout.txt || exit 15
grep -q '^SITES BEGIN (ordered by live bytes) ' layout.txt || exit 16
grep -q '^ rank   self  accum     bytes objs     bytes  objs trace name$' layout.txt || exit 17
grep -Eq '^ +1 +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ 3[0-9]+ Tree$' layout.txt || exit 18
tail -n 1 layout.txt | grep -q '^SITES END$' || exit 19")
case(cli/hprof/sites_layout 0 - "the VM's heap agrees"
     sh -c "${hprof_layout}" ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl)

# heap=sites under every collector: the same allocated totals per site, and
# live counts at exit equal to the VM's heap (cli/hprof_sites.sh).
case(cli/hprof/sites_every_collector 0 - ""
     sh ${cli}/hprof_sites.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl 10 ${GCLAB_COLLECTORS})
# The overhead benchmark runs: examples/bench/hprof_overhead.sh --quick
# (cli/hprof_overhead_quick.sh); no timing is asserted.
case(cli/hprof/overhead_script_quick 0 - -
     sh ${cli}/hprof_overhead_quick.sh ${CMAKE_SOURCE_DIR}/examples/bench/hprof_overhead.sh ${CMAKE_BINARY_DIR})

# heap=dump under every collector, in strict mode: the HEAP DUMP section of
# tests/heap/known_heap.gcl has its known records, a known reference chain,
# and the same records (IDs left out) under each (cli/hprof_dump.sh).
case(cli/hprof/dump_every_collector 0 - ""
     sh ${cli}/hprof_dump.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/tests/heap/known_heap.gcl ${GCLAB_COLLECTORS})

# A bare -agentlib:hprof is heap=all, the manual's default: the HEAP DUMP
# section, then the SITES table, both of the same 7 live objects.  In a
# directory of its own: the refused cases check that no java.hprof.txt appears.
set(hprof_all "mkdir -p heap_all && cd heap_all || exit 97
rm -f java.hprof.txt
\"$0\" -agentlib:hprof \"$1\" > /dev/null || exit 98
grep -q '^HEAP DUMP BEGIN (7 objects, ' java.hprof.txt || exit 10
awk '/^HEAP DUMP END/{dump=NR} /^SITES BEGIN /{sites=NR} END{exit !(dump && sites > dump)}' java.hprof.txt || exit 11
awk '/^SITES BEGIN/{on=1} /^SITES END/{on=0} on && $1 ~ /^[0-9]+$/ {n += $5} END{exit n != 7}' java.hprof.txt || exit 12
tail -n 1 java.hprof.txt | grep -q '^SITES END$' || exit 13")
case(cli/hprof/default_heap_all 0 - "the VM's heap agrees@@^Dumping allocation sites ... done.$"
     sh -c "${hprof_all}" ${VMRUN} ${CMAKE_SOURCE_DIR}/tests/heap/known_heap.gcl)

# Dumps on demand: SIGQUIT (DATA_DUMP_REQUEST) appends a dump, heap and
# sites, to the one at exit; with doe=n it is the only one
# (cli/hprof_signal.sh).
case(cli/hprof/dump_on_SIGQUIT 0 - ""
     sh ${cli}/hprof_signal.sh 2 heap=all -- ${VMRUN} ${cli}/work_then_finish.gcl)
case(cli/hprof/dump_on_SIGQUIT_only_doe_n 0 - ""
     sh ${cli}/hprof_signal.sh 1 heap=all,doe=n -- ${VMRUN} ${cli}/work_then_finish.gcl)
# doe=n and no request: no dump, so no file, and a word saying why (in a
# directory of its own, as above).
case(cli/hprof/doe_n_no_request 0 - "^hprof: doe=n and no dump was requested: java.hprof.txt not written$"
     sh -c "mkdir -p doe_n && cd doe_n || exit 97\nrm -f java.hprof.txt\n\"$0\" -agentlib:hprof=doe=n \"$1\" > /dev/null || exit 98\n! [ -e java.hprof.txt ]"
     ${VMRUN} ${hello})
# cpu=times: exact call counts per method under every collector, with and
# without heap=sites, strict, and through a runtime error
# (cli/hprof_cpu_times.sh).
case(cli/hprof/cpu_times_every_collector 0 - ""
     sh ${cli}/hprof_cpu_times.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl
        ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl ${cli}/null_reference.gcl ${GCLAB_COLLECTORS})
