#!/usr/bin/env python3
"""The tptp agent's XML trace against the event stream of the same run.

    tptp_check.py [--heap=SIZE] [--include=P:P] [--signal] [--tptp=OPTIONS] [--bci] VMRUN XSD GC PROGRAM [ARGS...]

runs PROGRAM once under --gc=GC with --vmpi-strict and --one-at-a-time,
a small heap (64 KiB
unless --heap says otherwise, so that every collector collects) and four agents: check (the stream keeps the contract),
trace (the stream, as JSON lines, with the monitor events), hprof
heap=dump (the heap at exit, as text) and tptp dump=y, with include=P:P
when given (selectivity) and any further OPTIONS.  With --signal it sends
the run SIGQUIT once the program has printed its first line: every agent
dumps the heap there too.  Then:

- the XML validates against the XSD (xmllint --schema);
- objAlloc N is the Nth selected OBJECT_ALLOC of the stream (all of them
  without --include), with its class, size and is_array, and the objFrees
  between two gcFinish are exactly the selected objects the stream frees
  there (OBJECT_FREE, or left in an arena ARENA_DELETE deletes): selection
  decided at allocation applies to both;
- at each gcFinish the trace's live set is the stream's (selected part),
  and gcFinish carries the stream's GC_FINISH values, which without
  --include are the trace's live count and bytes;
- each heap dump (at SIGQUIT, at exit) lists exactly the live set
  (dumpObject), and its roots and references are those of hprof's dump of
  the same moment, object for object, through the allocation order;
- threadStart, threadEnd, gcStart and the monitor elements come once per
  stream event, with the stream's thread names and parent names, in order,
  with the waits' timeouts; monContendedEnter names an owner other than the
  entering thread, and monWaited a measured time.
With --bci, tptp runs with alloc=bci (the program, instrumented, reports
its allocations: docs/tptp.md) and the trace agent with methods=y: the
allocations tptp must write are then exactly the stream's OBJECT_ALLOCs
from main's first METHOD_ENTRY on, those the program's instructions make,
object for object (not the VM's own before: the interned strings, main's
thread object and argument array); its frees, exactly those of these
objects.  gcFinish then keeps the VM's figures, for the whole heap.
--one-at-a-time because the comparison goes by order: with handlers that
overlap (docs/contracts.md, "Handlers that overlap") two agents may number
the same threads' allocations in different orders, both right.  tptp under
overlapping handlers is held to the contract by check in its conformance
cells and by the ThreadSanitizer cases.
Prints one line of counts; exits 1 with the first difference.
"""
import collections
import json
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

MONITOR_EVENTS = "MONITOR_CONTENDED_ENTER:MONITOR_CONTENDED_ENTERED:MONITOR_WAIT:MONITOR_WAITED"
MONITOR_TAGS = {"MONITOR_CONTENDED_ENTER": "monContendedEnter", "MONITOR_CONTENDED_ENTERED": "monContendedEntered",
                "MONITOR_WAIT": "monWait", "MONITOR_WAITED": "monWaited"}


def fail(message):
    print("tptp_check: " + message)
    sys.exit(1)


def run(vmrun, gc, heap, program, args, tptp_options, send_signal, bci):
    command = [vmrun, "--gc=" + gc, "--heap=" + heap, "--vmpi-strict", "--one-at-a-time", "-agentlib:check",
               "-agentlib:trace=file=trace.jsonl,events=" + MONITOR_EVENTS + (",methods=y" if bci else ""),
               "-agentlib:hprof=heap=dump,file=heap.txt",
               "-agentlib:tptp=file=tptp.xml,dump=y" + tptp_options, program] + args
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if send_signal:
        process.stdout.readline()
        process.send_signal(signal.SIGQUIT)
    out, err = process.communicate()
    if process.returncode != 0 or "check: ok:" not in err:
        fail("the run failed (status %d): %s" % (process.returncode, err.strip()))


def validate(xsd):
    result = subprocess.run(["xmllint", "--noout", "--schema", xsd, "tptp.xml"], capture_output=True, text=True)
    if result.returncode != 0:
        fail("tptp.xml does not validate: " + result.stderr.strip())


def matches(patterns, name):
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns)


class Stream:
    """The trace agent's stream, replayed: what tptp should have written.
    Objects are named by their number among the selected allocations."""

    def __init__(self, include, bci):
        self.include = include
        self.program_running = not bci  # with --bci: since main's first METHOD_ENTRY
        self.number = {}          # live VM ID -> number, selected objects only
        self.arena = {}           # live VM ID -> arena, every object
        self.classes = {}         # class ID -> name
        self.threads = []         # THREAD_STARTs
        self.allocs = []          # (class name, size, is_array) of the selected, in order
        self.windows = []         # per collection: (numbers freed, live numbers at its finish, GC_FINISH)
        self.freed = set()
        self.snapshots = []       # VM ID -> number at each DATA_DUMP_REQUEST and at JVM_SHUT_DOWN
        self.counts = collections.Counter()
        self.monitor = []         # (event, thread, timeout) in order

    def selected(self, class_name, is_array):
        if not self.program_running:
            return False
        if self.include is None:
            return True
        return matches(self.include, class_name + "[]" if is_array == 2 else class_name)

    def free(self, vm_id):
        del self.arena[vm_id]
        if vm_id in self.number:
            self.freed.add(self.number.pop(vm_id))

    def feed(self, e):
        name = e["event"]
        if e.get("requested"):
            return
        self.counts[name] += 1
        if name == "METHOD_ENTRY":
            self.program_running = True
        elif name == "CLASS_LOAD":
            self.classes[e["class_id"]] = e["class_name"]
        elif name == "THREAD_START":
            self.threads.append(e)
        elif name == "OBJECT_ALLOC":
            self.arena[e["obj_id"]] = e["arena_id"]
            class_name = self.classes.get(e["class_id"])
            if self.selected(class_name, e["is_array"]):
                self.allocs.append((class_name, e["size"], e["is_array"]))
                self.number[e["obj_id"]] = len(self.allocs)
        elif name == "OBJECT_FREE":
            self.free(e["obj_id"])
        elif name == "OBJECT_MOVE":
            self.arena[e["new_obj_id"]] = e["new_arena_id"]
            del self.arena[e["obj_id"]]
            if e["obj_id"] in self.number:
                self.number[e["new_obj_id"]] = self.number.pop(e["obj_id"])
        elif name == "ARENA_DELETE":
            for vm_id in [i for i, a in self.arena.items() if a == e["arena_id"]]:
                self.free(vm_id)
        elif name == "GC_FINISH":
            self.windows.append((self.freed, set(self.number.values()), e))
            self.freed = set()
        elif name in ("DATA_DUMP_REQUEST", "JVM_SHUT_DOWN"):
            self.snapshots.append(dict(self.number))
        elif name in MONITOR_TAGS:
            self.monitor.append((name, e["thread"], e.get("timeout")))


def read_stream(include, bci):
    stream = Stream(include, bci)
    with open("trace.jsonl") as f:
        f.readline()  # the header
        for line in f:
            stream.feed(json.loads(line))
    return stream


def read_hprof_dumps():
    """hprof's text HEAP DUMPs: each one's root object IDs (a class's
    reference statics included) and references, by VM ID."""
    dumps = []
    owner = None
    with open("heap.txt") as f:
        for line in f:
            if line.startswith("HEAP DUMP BEGIN"):
                dumps.append((collections.Counter(), collections.Counter()))
            elif line.startswith("HEAP DUMP END"):
                owner = None
            elif not dumps or owner is None and not line.startswith(("ROOT ", "CLS ", "OBJ ", "ARR ")):
                continue
            elif line.startswith("ROOT "):
                if "kind=<system class>" not in line:
                    dumps[-1][0][int(line.split()[1], 16)] += 1
                owner = None
            elif line.startswith("CLS "):
                owner = "class"
            elif line.startswith(("OBJ ", "ARR ")):
                owner = int(line.split()[1], 16)
            elif line.startswith("\t"):
                target = int(line.rsplit("\t", 1)[1], 16)
                if owner == "class":
                    if line.startswith("\tstatic "):
                        dumps[-1][0][target] += 1
                else:
                    dumps[-1][1][(owner, target)] += 1
    return dumps


def map_counter(counter, number, key):
    """hprof's counts by VM ID as counts by number, for the selected only."""
    mapped = collections.Counter()
    for item, n in counter.items():
        k = key(item, number)
        if k is not None:
            mapped[k] += n
    return mapped


def root_key(vm_id, number):
    return number.get(vm_id)


def edge_key(edge, number):
    owner, target = number.get(edge[0]), number.get(edge[1])
    return (owner, target) if owner and target else None


def main():
    options = [a for a in sys.argv[1:] if a.startswith("--")]
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    vmrun, xsd, gc, program = positional[:4]
    args = positional[4:]
    include = None
    tptp_options = ""
    heap = "64k"
    for option in options:
        if option.startswith("--heap="):
            heap = option.split("=", 1)[1]
        elif option.startswith("--include="):
            include = option.split("=", 1)[1].split(":")
            tptp_options += ",include=" + option.split("=", 1)[1]
        elif option.startswith("--tptp="):
            tptp_options += "," + option.split("=", 1)[1]
    bci = "--bci" in options
    if bci:
        tptp_options += ",alloc=bci"
    run(vmrun, gc, heap, program, args, tptp_options, "--signal" in options, bci)
    validate(xsd)
    stream = read_stream(include, bci)
    elements = list(ET.parse("tptp.xml").getroot())

    classes, threads = {}, []
    live, allocs, frees = {}, 0, set()
    window = 0
    monitor = []
    dumps = []
    counts = collections.Counter(el.tag for el in elements)
    source = elements[0].get("allocSource")
    if source != ("bci" if bci else "event"):
        fail("traceStart says allocSource=%s" % source)
    for el in elements:
        a = el.attrib
        tag = el.tag
        if tag == "classDef":
            classes[a["classId"]] = a["name"]
        elif tag == "threadStart":
            threads.append(a)
        elif tag == "objAlloc":
            allocs += 1
            number = int(a["objId"])
            if number != allocs:
                fail("objAlloc %d has objId %d" % (allocs, number))
            if allocs > len(stream.allocs):
                fail("more objAllocs than selected OBJECT_ALLOCs (%d)" % len(stream.allocs))
            got = (classes.get(a.get("classIdRef")), int(a["size"]), int(a["isArray"]))
            if got != stream.allocs[allocs - 1]:
                fail("objAlloc %d is %s, OBJECT_ALLOC %s" % (number, got, stream.allocs[allocs - 1]))
            live[number] = int(a["size"])
        elif tag == "objFree":
            number = int(a["objIdRef"])
            if number not in live:
                fail("objFree of %d, which is not live" % number)
            del live[number]
            frees.add(number)
        elif tag == "gcFinish":
            if window >= len(stream.windows):
                fail("more gcFinish than GC_FINISH")
            freed, stream_live, finish = stream.windows[window]
            window += 1
            if frees != freed:
                fail("collection %d: the trace frees %d objects, the stream %d (%d differ)"
                     % (window, len(frees), len(freed), len(frees ^ freed)))
            if set(live) != stream_live:
                fail("collection %d: live sets differ in %d objects" % (window, len(set(live) ^ stream_live)))
            used = (int(a["usedObjects"]), int(a["usedObjSpace"]), int(a["totalObjSpace"]))
            if used != (finish["used_objects"], finish["used_object_space"], finish["total_object_space"]):
                fail("gcFinish %d says %s, GC_FINISH %s" % (window, used, finish))
            if include is None and not bci and used[:2] != (len(live), sum(live.values())):
                fail("gcFinish %d says %s, the trace's live set is %d objects, %d bytes"
                     % (window, used, len(live), sum(live.values())))
            frees = set()
        elif tag in MONITOR_TAGS.values():
            monitor.append(el)
        elif tag == "heapDumpDef":
            dumps.append({"live": set(live), "objects": set(), "roots": collections.Counter(),
                          "edges": collections.Counter()})
        elif tag == "dumpObject":
            dumps[-1]["objects"].add(int(a["objIdRef"]))
        elif tag == "gcRoot":
            dumps[-1]["roots"][int(a["objIdRef"])] += 1
        elif tag == "objectReference":
            dumps[-1]["edges"][(int(a["ownerObjIdRef"]), int(a["targetObjIdRef"]))] += 1

    if set(live) != set(stream.number.values()) or frees != stream.freed:
        fail("at exit: the live sets differ in %d objects, the frees since the last collection in %d"
             % (len(set(live) ^ set(stream.number.values())), len(frees ^ stream.freed)))
    if allocs != len(stream.allocs):
        fail("%d objAlloc, %d selected OBJECT_ALLOC" % (allocs, len(stream.allocs)))
    if window != len(stream.windows):
        fail("%d gcFinish, %d GC_FINISH" % (window, len(stream.windows)))
    for tag, event in (("gcStart", "GC_START"), ("threadStart", "THREAD_START"), ("threadEnd", "THREAD_END"),
                       ("monContendedEnter", "MONITOR_CONTENDED_ENTER"),
                       ("monContendedEntered", "MONITOR_CONTENDED_ENTERED"),
                       ("monWait", "MONITOR_WAIT"), ("monWaited", "MONITOR_WAITED")):
        if counts[tag] != stream.counts[event]:
            fail("%d %s, %d %s" % (counts[tag], tag, stream.counts[event], event))

    # Threads: both number them in THREAD_START order.
    for number, (mine, start) in enumerate(zip(threads, stream.threads), 1):
        if int(mine["threadId"]) != number or mine.get("threadName") != start["thread_name"] or \
                mine.get("parentName") != start["parent_name"] or mine.get("groupName") != start["group_name"]:
            fail("thread %d: threadStart %s, THREAD_START %s" % (number, mine, start))
    for el, (event, thread, timeout) in zip(monitor, stream.monitor):
        if el.tag != MONITOR_TAGS[event] or int(el.get("threadIdRef", 0)) != thread:
            fail("%s of thread %s where the stream has %s of thread %d" % (el.tag, el.get("threadIdRef"), event, thread))
        if el.tag == "monWait" and int(el.get("timeout")) != timeout:
            fail("monWait timeout %s, MONITOR_WAIT %d" % (el.get("timeout"), timeout))
        if el.tag == "monWaited" and el.get("timeout") is None:
            fail("monWaited without the time waited")
        if el.tag == "monContendedEnter" and el.get("threadOwner") in (None, el.get("threadIdRef")):
            fail("monContendedEnter of thread %s names owner %s" % (el.get("threadIdRef"), el.get("threadOwner")))

    # The heap dumps, against the live set and against hprof's of the same moment.
    hprof_dumps = read_hprof_dumps()
    if not len(dumps) == len(hprof_dumps) == len(stream.snapshots):
        fail("%d heap dumps, hprof %d, data dump requests and exit %d"
             % (len(dumps), len(hprof_dumps), len(stream.snapshots)))
    for i, (dump, (hprof_roots, hprof_edges), number) in enumerate(zip(dumps, hprof_dumps, stream.snapshots), 1):
        if dump["objects"] != dump["live"]:
            fail("heap dump %d lists %d objects, the live set has %d (%d differ)"
                 % (i, len(dump["objects"]), len(dump["live"]), len(dump["objects"] ^ dump["live"])))
        if dump["roots"] != map_counter(hprof_roots, number, root_key):
            fail("heap dump %d: the gcRoots are not hprof's roots" % i)
        if dump["edges"] != map_counter(hprof_edges, number, edge_key):
            fail("heap dump %d: the objectReferences are not hprof's references" % i)
    if not dumps[-1]["edges"]:
        fail("the heap dump at exit has no references")
    print("tptp_check: ok: %s: %d objAlloc, %d objFree, %d gcFinish, %d threads, %d monitor events, "
          "%d heap dumps; at exit %d objects, %d roots, %d references"
          % (gc, allocs, counts["objFree"], window, counts["threadStart"], len(monitor), len(dumps),
             len(dumps[-1]["objects"]), sum(dumps[-1]["roots"].values()), sum(dumps[-1]["edges"].values())))


if __name__ == "__main__":
    main()
