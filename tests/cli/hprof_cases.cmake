# hprof agent cases (docs/hprof.md): its options, parsed strictly, and its
# heap=sites and heap=dump profiles under every collector.  Included from
# tests/CMakeLists.txt (which defines case(), VMRUN and GCLAB_COLLECTORS).
set(hprof_onload_failed "VMPI_OnLoad failed")

# help: the manual's usage on standard output, and the VM exits with success
# before the program runs (hello would print "Hello").
case(cli/hprof/help 0 - ""
     sh -c "\"$0\" -agentlib:hprof=help \"$1\" > help.out || exit 98\ngrep -q '^hprof usage:' help.out || exit 97\n! grep -q Hello help.out"
     ${VMRUN} ${hello})

# A bad option or value: first one line naming the option, then a pointer
# to help (the usage itself is not printed: exit 97), status 1, nothing run
# and no profile written (exit 99 if java.hprof.txt appears; 98 if the
# first line is not the error).
set(hprof_refused "rm -f java.hprof.txt\n\"$0\" \"$1\" \"$2\" 2>refused.err\nstatus=$?\ncat refused.err >&2\nif [ -e java.hprof.txt ]\nthen exit 99\nfi\nhead -n 1 refused.err | grep -q '^hprof: ' || exit 98\n! grep -q '^hprof usage' refused.err || exit 97\nexit $status")
set(hprof_see_help "^hprof: -agentlib:hprof=help lists every option$")
foreach(bad
    "bogus=1@@option 'bogus=1': unknown option"
    "heap=sites,heap=some@@option 'heap=some': takes dump, sites or all"
    "heap=sites,depth=x@@option 'depth=x': takes a number of frames from 0 to 1024"
    "heap=sites,depth=1025@@option 'depth=1025': takes a number"
    "sample=-1@@option 'sample=-1': takes a sampling interval in bytes, from 0"
    "sample=lots@@option 'sample=lots': takes a sampling interval in bytes, from 0"
    "sample=4096,heap=sites@@option 'sample': cannot be used with heap=: it replaces heap=sites with estimates"
    "sample=4096,format=b@@option 'sample': cannot be used with format=b: its estimates have no binary record"
    "sample_live=y@@option 'sample_live': is for sample=<bytes>, not given"
    "sample=4096,sample_live=maybe@@option 'sample_live=maybe': takes y or n"
    "sample=4096,folded=f.folded,folded_value=inuse_space@@option 'folded_value=inuse_space': takes alloc_objects"
    "heap=sites,interval=0@@option 'interval=0': takes a positive number"
    "heap=sites,cutoff=2@@option 'cutoff=2': takes a ratio from 0 to 1"
    "heap=sites,lineno=maybe@@option 'lineno=maybe': takes y or n"
    "heap=sites,file=@@option 'file=': takes a file name"
    "heap=dump,pprof=p.pb.gz@@option 'pprof=p.pb.gz': has no table to write: give heap=sites, heap=all, sample=, cpu=samples or cpu=times"
    "cpu=old,folded=f.folded@@option 'folded=f.folded': has no table to write"
    "heap=sites,folded=@@option 'folded=': takes a file name"
    "heap=sites,folded=f.folded,folded_value=calls@@option 'folded_value=calls': takes alloc_objects, alloc_space"
    "cpu=times,folded=f.folded,folded_value=inuse_space@@option 'folded_value=inuse_space': takes alloc_objects"
    "cpu=samples,folded=f.folded,folded_value=calls@@option 'folded_value=calls': takes alloc_objects"
    "cpu=times,folded=f.folded,folded_value=samples@@option 'folded_value=samples': takes alloc_objects"
    "heap=sites,folded_value=alloc_space@@option 'folded_value=alloc_space': is for folded=<file>, not given"
    "heap=sites,pprof=java.hprof.txt@@option 'pprof=java.hprof.txt': names the file of file="
    "heap=sites,pprof=p,folded=p@@option 'folded=p': names the file of file= or pprof="
    "heap=sites,net=nohost@@option 'net=nohost': takes <host>:<port>"
    "heap=sites,cpu=often@@option 'cpu=often': takes samples, times or old"
    "heap=sites,format=c@@option 'format=c': takes a or b"
    "heap=sites,format=b,monitor=y@@option 'format=b': cannot be used with monitor=y"
    "heap=sites,format=b,cpu=old@@option 'format=b': cannot be used with cpu=old or cpu=times"
    "heap=sites,format=b,cpu=times@@option 'format=b': cannot be used with cpu=old or cpu=times")
  string(REPLACE "@@" ";" pair "${bad}")
  list(GET pair 0 options)
  list(GET pair 1 message)
  string(REGEX REPLACE "[^a-z0-9]+" "_" test_name "${options}")
  case(cli/hprof/refused_${test_name} 1 - "${hprof_see_help}@@^hprof: ${message}@@${hprof_onload_failed}"
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
# heap=sites reads allocation sites from the VM's call sites (EnableCallSites):
# its TRACE and SITES tables are byte for byte those of the hprof of before,
# which took GetCallTrace at every allocation (tests/hprof/sites_golden.sh).
case(cli/hprof/sites_as_before 0 - ""
     sh ${CMAKE_SOURCE_DIR}/tests/hprof/sites_golden.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples
        ${CMAKE_SOURCE_DIR}/tests/hprof/sites_golden)
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
# section, then the SITES table, both of the same 7 live objects.
set(hprof_all "rm -f java.hprof.txt
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
# doe=n and no request: no dump, so no file, and a word saying why.
case(cli/hprof/doe_n_no_request 0 - "^hprof: doe=n and no dump was requested: java.hprof.txt not written$"
     sh -c "rm -f java.hprof.txt\n\"$0\" -agentlib:hprof=doe=n \"$1\" > /dev/null || exit 98\n! [ -e java.hprof.txt ]"
     ${VMRUN} ${hello})
# cpu=times: exact call counts per method under every collector, with and
# without heap=sites, strict, and through a runtime error
# (cli/hprof_cpu_times.sh).
case(cli/hprof/cpu_times_every_collector 0 - ""
     sh ${cli}/hprof_cpu_times.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl
        ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl ${cli}/null_reference.gcl ${GCLAB_COLLECTORS})
# cpu=samples: a sampler thread suspends the program every `interval` ms and
# counts its traces; under every collector, strict, with heap=sites too
# (cli/hprof_cpu_samples.sh).
case(cli/hprof/cpu_samples_every_collector 0 - ""
     sh ${cli}/hprof_cpu_samples.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl
        ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl ${GCLAB_COLLECTORS})
# A program shorter than one interval: the sampler is stopped at exit all the
# same, and the table is there, empty.
case(cli/hprof/cpu_samples_short_run 0 ${CMAKE_SOURCE_DIR}/examples/hello.expected
     "^Dumping CPU usage by sampling running threads ... done.$"
     sh -c "\"$0\" --vmpi-strict -agentlib:hprof=cpu=samples,interval=60000,file=short.txt \"$1\" || exit 98\ngrep -q '^CPU SAMPLES BEGIN (total = 0) ' short.txt || exit 10\ntail -n 1 short.txt | grep -q '^CPU SAMPLES END$' || exit 11"
     ${VMRUN} ${hello})
# cpu=old: the older HPROF's prof lines, exact call counts by caller, under
# every collector, strict, and through a runtime error (cli/hprof_cpu_old.sh).
case(cli/hprof/cpu_old_every_collector 0 - ""
     sh ${cli}/hprof_cpu_old.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl ${cli}/null_reference.gcl
        ${GCLAB_COLLECTORS})
# format=b with cpu=samples, which the manual allows: one CPU SAMPLES record,
# its total the sum of its traces' samples and not 0, every trace written
# (tests/hprof/hprof_records.py checks the record), and CONTROL SETTINGS says
# CPU sampling on (0x2), no allocation traces, depth 4.
case(cli/hprof/format_b_cpu_samples 0 - "^Dumping CPU usage by sampling running threads ... done.$"
     sh -c "rm -f samples.hprof\n\"$0\" --vmpi-strict -agentlib:hprof=format=b,cpu=samples,interval=1,file=samples.hprof \"$2\" 34 > /dev/null || exit 98\npython3 \"$1\" samples.hprof > samples.records || exit 10\ngrep -q '^records 0d 1$' samples.records || exit 11\ngrep -q '^cpu_samples [1-9][0-9]* [1-9][0-9]*$' samples.records || exit 12\ngrep -q '^control 2 4$' samples.records || exit 13"
     ${VMRUN} ${CMAKE_CURRENT_SOURCE_DIR}/hprof/hprof_records.py ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl)
# format=b over net=, which the HPROF manual allows: the binary stream goes
# to the front end whole; a command answered in text is skipped
# (tests/hprof/format_b_net.sh).
case(cli/hprof/format_b_net 0 - ""
     sh ${CMAKE_CURRENT_SOURCE_DIR}/hprof/format_b_net.sh ${CMAKE_CURRENT_SOURCE_DIR}/hprof/hprof_records.py --
     ${VMRUN} ${CMAKE_CURRENT_SOURCE_DIR}/hprof/frontend_target.gcl)
# monitor=y: the MONITOR DUMP and MONITOR TIME sections, alone and with an
# agent's raw monitor contended (cli/hprof_monitor.sh).
case(cli/hprof/monitor_sections 0 - ""
     sh ${cli}/hprof_monitor.sh ${VMRUN} $<TARGET_FILE:test_agent_monitor_dump> ${hello})

# format=b (vmpi/agents/hprof/hprof_binary.h).  VisualVM's heap library, from
# Debian's visualvm (.ci/install-deps installs it and a JDK), reads the dump
# hprof writes under every collector: the classes and instance counts are
# the VM's heap walk, values read back are the program's, and every size,
# retained size and GC root path VisualVM's views ask for is answered, and
# is the VM's (tests/hprof/visualvm/visualvm_read.sh).
set(visualvm_heap_jar /usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
    CACHE FILEPATH "VisualVM's heap library (dpkg -L visualvm | grep jfluid-heap)")
set(visualvm_tests ${CMAKE_CURRENT_SOURCE_DIR}/hprof/visualvm)
case(cli/hprof/format_b_read_by_visualvm 0 - ""
     sh ${visualvm_tests}/visualvm_read.sh ${VMRUN} ${visualvm_heap_jar} ${visualvm_tests}/shapes.gcl
        ${GCLAB_COLLECTORS})
# The real VisualVM, under Xvfb, opens a dump's summary and classes view,
# computes retained sizes and shows the dominators, with the VM's figures
# and without an exception (tests/hprof/visualvm/visualvm_gui.sh).
case(cli/hprof/format_b_in_visualvm 0 - ""
     sh ${visualvm_tests}/visualvm_gui.sh ${VMRUN} ${visualvm_tests}/shapes.gcl)
# The manual's default name for format=b is java.hprof, and it starts with
# the 1.0.2 header, and no java.hprof.txt appears.
case(cli/hprof/format_b_default_file 0 - "the VM's heap agrees"
     sh -c "rm -f java.hprof java.hprof.txt\n\"$0\" -agentlib:hprof=format=b \"$1\" > /dev/null || exit 98\n[ \"$(head -c 18 java.hprof)\" = 'JAVA PROFILE 1.0.2' ] || exit 10\n! [ -e java.hprof.txt ]"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/tests/heap/known_heap.gcl)
# format=b on request: SIGQUIT appends a heap dump and ALLOC SITES to the
# binary profile, checked record by record, and VisualVM opens every dump
# (tests/hprof/format_b_signal.sh).
set(hprof_tests ${CMAKE_CURRENT_SOURCE_DIR}/hprof)
case(cli/hprof/format_b_dump_on_SIGQUIT 0 - ""
     sh ${hprof_tests}/format_b_signal.sh 2 heap=all ${visualvm_heap_jar} -- ${VMRUN} ${cli}/work_then_finish.gcl)
case(cli/hprof/format_b_dump_on_SIGQUIT_only_doe_n 0 - ""
     sh ${hprof_tests}/format_b_signal.sh 1 heap=all,doe=n ${visualvm_heap_jar} -- ${VMRUN} ${cli}/work_then_finish.gcl)
# Two threads running at SIGQUIT: their Thread handles are ROOT THREAD
# OBJECTs of started threads, and VisualVM finds them as thread objects.
case(cli/hprof/format_b_thread_objects 0 - ""
     sh ${hprof_tests}/format_b_signal.sh 1 heap=all,doe=n ${visualvm_heap_jar} 2 -- ${VMRUN}
     ${hprof_tests}/threads_then_finish.gcl)
# format=b,heap=sites in a small heap: well-formed records, no heap dump, and
# HEAP SUMMARY's live objects and bytes, and the ALLOC SITES listed with
# cutoff=0, are the VM's heap at exit (the level-0 count hprof checks);
# CONTROL SETTINGS says allocation traces on (0x1), no CPU sampling, depth 4.
set(hprof_binary_sites "rm -f sites.hprof
\"$0\" --heap=512k -agentlib:hprof=format=b,heap=sites,cutoff=0,file=sites.hprof \"$2\" 10 > /dev/null 2> sites.err || exit 98
cat sites.err >&2
python3 \"$1\" sites.hprof > sites.records || exit 10
live=$(awk '/^hprof: live at exit: / {print $5, $7}' sites.err)
[ -n \"$live\" ] && grep -q \"^summary $live$\" sites.records || exit 11
grep -q \"^sites [1-9][0-9]* \${live% *}$\" sites.records || exit 12
! grep -q '^records 1c ' sites.records || exit 13
grep -q '^control 1 4$' sites.records || exit 14")
case(cli/hprof/format_b_sites 0 - "the VM's heap agrees"
     sh -c "${hprof_binary_sites}" ${VMRUN} ${hprof_tests}/hprof_records.py ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl)
# format=b,heap=dump: a well-formed heap dump, every reference in it resolved,
# of the objects the VM's heap holds and a char[] per String (hprof_binary.h;
# the Strings counted in a text heap=dump of the same program), and no ALLOC
# SITES.
set(hprof_binary_dump "rm -f dump.hprof dump.txt
\"$0\" -agentlib:hprof=heap=dump,file=dump.txt \"$2\" > /dev/null 2>&1 || exit 97
\"$0\" -agentlib:hprof=format=b,heap=dump,file=dump.hprof \"$2\" > /dev/null 2> dump.err || exit 98
cat dump.err >&2
python3 \"$1\" dump.hprof > dump.records || exit 10
live=$(awk '/^hprof: live at exit: / {print $5}' dump.err)
strings=$(grep -c ' class=String@' dump.txt)
grep -q \"^heap_dump $((live + strings))$\" dump.records || exit 11
! grep -q '^records 06 ' dump.records || exit 12")
case(cli/hprof/format_b_heap_dump 0 - "the VM's heap agrees@@^Dumping Java heap ... done.$"
     sh -c "${hprof_binary_dump}" ${VMRUN} ${hprof_tests}/hprof_records.py ${CMAKE_SOURCE_DIR}/tests/heap/known_heap.gcl)
# format=b is complete or absent, as text is: doe=n with no request writes
# no java.hprof; a run killed while it writes leaves only its .partial file;
# a run that ends in a runtime error still writes a well-formed profile with
# its heap dump.
case(cli/hprof/format_b_doe_n_no_request 0 - "^hprof: doe=n and no dump was requested: java.hprof not written$"
     sh -c "rm -f java.hprof*\n\"$0\" -agentlib:hprof=format=b,doe=n \"$1\" > /dev/null || exit 98\n! [ -e java.hprof ]"
     ${VMRUN} ${hello})
set(hprof_binary_killed "rm -f java.hprof* out
\"$0\" -agentlib:hprof=format=b \"$1\" > out &
i=0
while [ ! -s out ] && [ $i -lt 600 ]
do sleep 0.1
i=$((i + 1))
done
kill -s KILL $! && wait $!
ls java.hprof.*.partial > /dev/null || exit 10
! [ -e java.hprof ]")
case(cli/hprof/format_b_killed_leaves_no_profile 0 - -
     sh -c "${hprof_binary_killed}" ${VMRUN} ${cli}/spin_forever.gcl)
case(cli/hprof/format_b_runtime_error 0 - "error: null reference"
     sh -c "rm -f java.hprof\n\"$0\" -agentlib:hprof=format=b \"$1\" > /dev/null\n[ $? -eq 1 ] || exit 98\npython3 \"$2\" java.hprof > records || exit 10\ngrep -q '^heap_dump 1$' records"
     ${VMRUN} ${cli}/null_reference.gcl ${hprof_tests}/hprof_records.py)

# ---- pprof= and folded= (docs/hprof.md, "pprof and folded stacks") -------------------
# go tool pprof reads the profile, and it and the folded stacks say what the
# SITES, CPU TIME and CPU SAMPLES tables of the same run say, under every
# collector (cli/hprof_pprof.sh).
case(cli/hprof/pprof_folded_every_collector 0 - ""
     sh ${cli}/hprof_pprof.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/binary_trees.gcl
        ${CMAKE_SOURCE_DIR}/examples/bench/fib.gcl ${GCLAB_COLLECTORS})
# A pprof= file that cannot be written stops the VM before the program runs,
# and leaves no text profile either.
case(cli/hprof/pprof_cannot_open 1 - "^hprof: cannot open no/such/dir/p.pb.gz: No such file or directory@@${hprof_onload_failed}"
     sh -c "${hprof_refused}" ${VMRUN} -agentlib:hprof=heap=sites,pprof=no/such/dir/p.pb.gz ${hello})
# ---- end of pprof= and folded= ------------------------------------------------------------

# sample=BYTES: sites estimated from heap sampling alone (hprof_sampled.h).
# Estimates within 10% of heap=sites' exact totals per site, the same table
# under every collector (cli/hprof_sampled.sh).  (Its bad values are refused
# with the others, above.)
case(cli/hprof/sampled_sites_every_collector 0 - ""
     sh ${cli}/hprof_sampled.sh ${VMRUN} ${cli}/sampled_mix.gcl ${GCLAB_COLLECTORS})

# ---- net=host:port (the front end over a socket, tests/hprof/frontend.c), force=n ------
# A loopback front end drives every command of the manual and checks the
# answers, the exit, EOF, a lost connection and a refused one, under every
# collector.
add_executable(hprof_frontend ${CMAKE_CURRENT_SOURCE_DIR}/hprof/frontend.c)
foreach(gc ${GCLAB_COLLECTORS})
  case(cli/hprof/frontend/${gc} 0 - ""
       $<TARGET_FILE:hprof_frontend> ${VMRUN} ${gc} ${CMAKE_CURRENT_SOURCE_DIR}/hprof/frontend_target.gcl
       ${CMAKE_CURRENT_SOURCE_DIR}/hprof/frontend_threads.gcl)
endforeach()
# force=n, as HPROF does it: a profile whose file exists goes to NAME.PID.txt
# (".txt" after the PID) and the file is left alone; force=y (the default)
# replaces it; with no file there, force=n writes the file itself.
set(hprof_force "vmrun=$0 prog=$1
rm -f *.txt
\"$vmrun\" -agentlib:hprof=heap=sites,force=n,file=sites.txt \"$prog\" > /dev/null 2> first.err || exit 10
[ -s sites.txt ] && ! grep -q exists first.err || exit 11
echo old > sites.txt
\"$vmrun\" -agentlib:hprof=heap=sites,force=n,file=sites.txt \"$prog\" > /dev/null 2> second.err || exit 12
[ \"$(cat sites.txt)\" = old ] || exit 13
set -- sites.*.txt
[ $# = 1 ] && [ -s \"$1\" ] || exit 14
grep -q \"^hprof: sites.txt exists (force=n): writing $1$\" second.err || exit 15
grep -q '^SITES END$' \"$1\" || exit 16
\"$vmrun\" -agentlib:hprof=heap=sites,force=y,file=sites.txt \"$prog\" > /dev/null 2>&1 || exit 17
grep -q '^SITES END$' sites.txt || exit 18")
case(cli/hprof/force_n 0 - "" sh -c "${hprof_force}" ${VMRUN} ${hello})

# ---- end of net= and force=n -----------------------------------------------------------

# hprof with threads (issue 11's sample agent): cpu=samples over every VM
# thread, thread=y traces, cpu=times per thread, and monitor=y with the
# language's monitors -- the thread examples under every collector, a known
# MONITOR DUMP, and --seed repeating it (cli/hprof_threads.sh).
case(cli/hprof/threads_every_collector 0 - ""
     sh ${cli}/hprof_threads.sh ${VMRUN} ${CMAKE_SOURCE_DIR}/examples ${CMAKE_CURRENT_SOURCE_DIR}/hprof
        ${GCLAB_COLLECTORS})
