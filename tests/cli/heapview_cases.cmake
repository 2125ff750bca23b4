# heapview (docs/heapview.md): its page in headless Chromium, and bad input.
set(HEAPVIEW $<TARGET_FILE:heapview>)

# The page loads with its CSP in force and shows the traces' own counts for
# every collector; a screenshot is taken (tests/heapview/page_in_chromium.sh).
add_test(NAME heapview/page_in_chromium
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/heapview/page_in_chromium.sh ${VMRUN} ${HEAPVIEW}
                 ${CMAKE_SOURCE_DIR} ${scratch}/heapview_page)

# gclab's mechanism events, when a trace has them, are what the step-through
# view plays (written into a trace until the collectors post them).
add_test(NAME heapview/mechanism_events
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/heapview/mechanism_events.sh ${VMRUN} ${HEAPVIEW}
                 ${CMAKE_SOURCE_DIR} ${scratch}/heapview_events)

# docs/heapview.md's step-through table: each page made with the command the
# docs show says the docs' words; README's page draws what it says.
add_test(NAME heapview/docs_images
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/heapview/docs_images.sh ${HEAPVIEW} ${CMAKE_SOURCE_DIR}
                 ${scratch}/heapview_docs)

# --run runs vmrun itself; the page holds one run per collector named.
case(cli/heapview/run_two_collectors 0 - ""
     sh -c "\"$0\" -o hv_run.html --run=semispace,generational -- --heap=64k --seed=1 \"$1\" 6 && grep -c '\"collector\":\"semispace\"' hv_run.html && grep -q '\"collector\":\"generational\"' hv_run.html"
     ${HEAPVIEW} ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl)

# refcount's two modes side by side (docs/heapview.md, docs/gcstats.md): each
# run is named by its mode on the page, and the page's own data shows the
# difference -- deferred frees the LRU cache's evictions in one batch,
# immediate two at a time, each eviction a collection of its own.  Standard
# error may say the runs are under way (they take over a second under ASan).
case(cli/heapview/run_refcount_modes 0 - -
     sh -c "\"$0\" -o hv_modes.html --run=refcount:deferred,refcount:immediate -- --heap=128k --seed=1 \"$1\" 3000 && python3 \"$2\" hv_modes.html"
     ${HEAPVIEW} ${CMAKE_CURRENT_SOURCE_DIR}/cli/lru_cache.gcl ${CMAKE_CURRENT_SOURCE_DIR}/heapview/refcount_modes.py)
case(cli/heapview/bad_mode 2 - "^heapview: --run: 'refcount:eager': refcount has no mode 'eager' \\(deferred or immediate\\)$"
     ${HEAPVIEW} -o hv_none.html --run=marksweep,refcount:eager -- ${CMAKE_SOURCE_DIR}/examples/hello.gcl)

# Bad input: one clear message naming the file and line, status 1, no page.
# heapview_bad(NAME STDERR LINE...) writes the lines as NAME.jsonl and draws it.
function(heapview_bad name stderr)
  case(cli/heapview/${name} 1 - "${stderr}"
       sh -c "trace=$1\nshift\nprintf '%s\\n' \"$@\" > $trace.jsonl\n\"$0\" -o $trace.html $trace.jsonl\nstatus=$?\n[ -e $trace.html ] && exit 99\nexit $status"
       ${HEAPVIEW} hv_${name} ${ARGN})
endfunction()
set(header "{\"format\":\"gclab-vmpi-trace\",\"version\":1,\"collector\":\"x\"}")
heapview_bad(not_json "^heapview: hv_not_json.jsonl:1: not a JSON object$" "not json")
heapview_bad(not_a_trace "^heapview: hv_not_a_trace.jsonl:1: not a gclab trace" "{\"format\":\"other\"}")
heapview_bad(unknown_version "^heapview: hv_unknown_version.jsonl:1: trace format version 99 \\(heapview reads 1\\)$"
             "{\"format\":\"gclab-vmpi-trace\",\"version\":99,\"collector\":\"x\"}")
heapview_bad(cut_short "^heapview: hv_cut_short.jsonl:1: no JVM_SHUT_DOWN: the trace is cut short" "${header}")
heapview_bad(free_outside_collection
             "^heapview: hv_free_outside_collection.jsonl:2: a free, move or arena delete outside GC_START..GC_FINISH$"
             "${header}" "{\"seq\":1,\"event\":\"OBJECT_FREE\",\"thread\":1,\"obj_id\":8}")
heapview_bad(free_of_unknown_object "^heapview: hv_free_of_unknown_object.jsonl:3: OBJECT_FREE of an ID not live$"
             "${header}" "{\"seq\":1,\"event\":\"GC_START\",\"thread\":1}"
             "{\"seq\":2,\"event\":\"OBJECT_FREE\",\"thread\":1,\"obj_id\":8}")
case(cli/heapview/missing_trace 1 - "^heapview: no_such.jsonl: No such file or directory$"
     ${HEAPVIEW} -o hv_none.html no_such.jsonl)
case(cli/heapview/bad_tiles 2 - "^heapview: --tiles takes 8 to 4096: --tiles=3$"
     ${HEAPVIEW} --tiles=3 -o hv_none.html no_such.jsonl)

# A binary recording draws the very page its JSON trace draws: both named
# run.trace (the page names its source), in directories of their own.
case(cli/heapview/binary_recording_same_page 0 - ""
     sh -c "mkdir -p json binary\ncd json && \"$0\" --seed=1 --gc=semispace --heap=64k -agentlib:trace=file=run.trace \"$2\" 6 > /dev/null && \"$1\" -o page.html run.trace || exit 1\ncd ../binary && \"$0\" --seed=1 --gc=semispace --heap=64k -agentlib:trace=file=run.trace,format=binary \"$2\" 6 > /dev/null && \"$1\" -o page.html run.trace || exit 1\ncd .. && ! cmp -s json/run.trace binary/run.trace && cmp json/page.html binary/page.html"
     ${VMRUN} ${HEAPVIEW} ${CMAKE_SOURCE_DIR}/examples/bench/binary_trees.gcl)

# The heapdump agent (vmpi/agents/heapdump): a bad option stops the run with
# one line naming it; a dump after each small collection, whose references
# name only objects of that dump and whose roots include main's frame.
case(cli/heapdump/bad_option 1 - "^heapdump: bad option 'max=x' \\(options: file=F,max=N\\)$"
     ${VMRUN} -agentlib:heapdump=max=x ${CMAKE_SOURCE_DIR}/examples/hello.gcl)
case(cli/heapdump/dumps 0 - ""
     sh -c "\"$0\" --gc=marksweep --heap=64k --seed=1 -agentlib:heapdump=file=q.dumps \"$1\" > /dev/null || exit 98\nhead -n 1 q.dumps | grep -qx 'gclab-heapdump 1' || exit 97\n[ \"$(grep -c '^dump ' q.dumps)\" -ge 2 ] || exit 96\ngrep -q '^root frame ' q.dumps || exit 95\nawk '/^dump / { n++ }\n/^object / { o[n \" \" $2] = 1\ni = 3\nwhile (i <= NF) { r[n \" \" $i] = 1\ni++ } }\nEND { for (k in r) if (!(k in o)) exit 1 }' q.dumps || exit 94"
     ${VMRUN} ${CMAKE_SOURCE_DIR}/examples/queue_churn.gcl)
