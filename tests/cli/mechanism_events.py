#!/usr/bin/env python3
"""mechanism_events.py -- each collector's mechanism events come in the order
docs/mechanism-events.md gives, and agree with its heap events.

    mechanism_events.py VMRUN COLLECTOR MUSTS PROGRAM [ARGS...]

MUSTS: what the run must show, ',' between them ("-": nothing more):
phase:NAME (some collection has that phase), cause:NAME (some object is
freed for that cause).  ARGS beginning with "--" go to vmrun, the others to
the program.

Runs PROGRAM under COLLECTOR with the trace agent's mechanism events on
(--seed=1, a small heap, so that it collects), then checks over the trace:

- every collection's phases, as a nested list, are one the page documents
  for COLLECTOR (e.g. markcompact: mark, compute-addresses,
  update-references, relocate), and no phase event falls outside a
  collection;
- tracing (marksweep, markcompact, generational's major collection): within
  "mark" each object is greyed once and blackened once, after it was greyed;
  the objects the collection frees are exactly the live objects it did not
  grey, each with cause "unmarked";
- Lisp-2 (markcompact, major): the survivors are forwarded in address order,
  and the OBJECT_MOVEs in "relocate" are exactly the forwards that change an
  address;
- Cheney (semispace, generational's evacuations): each OBJECT_FORWARDED is
  followed at once by the OBJECT_MOVE of the same copy, and the objects
  blackened in "scan" are exactly the copies;
- generational: each REMEMBERED_SET_ADD names an object in "old";
- reference counting: each count changes by one from 0 at allocation, every
  free has a cause of zero-count, cascade or cycle, with a count of 0, and
  "cycle" frees come only in "collect-white".

Exits 1 with one line per problem, or prints a summary and exits 0.
"""
import json
import os
import subprocess
import sys
import tempfile

# A collection's phases as nested tuples: (name, (children...)).
MARK = ("mark", ())
LISP2 = (MARK, ("compute-addresses", ()), ("update-references", ()), ("relocate", ()))
EVACUATION = (("flip", ()), ("remembered-set", ()), ("scan", ()))
RECONCILE = (("count-roots", ()), ("free-zero-counts", ()))
RECONCILE_COUNTED = (("free-zero-counts", ()),)  # immediate mode: the roots are counted already
TRIAL_DELETION = ("trial-deletion", (("mark-gray", ()), ("scan", ()), ("collect-white", ())))
DOCUMENTED = {
    "marksweep": [(MARK, ("sweep", ()))],
    "markcompact": [LISP2],
    "semispace": [(("flip", ()), ("scan", ()))],
    "generational": [(("minor", EVACUATION),), (("major", (("promote", EVACUATION),) + LISP2),)],
    # Immediate mode adds a collection of its own per free at a zero count,
    # and its reconciliations count no roots.
    "refcount": [(("reconcile", RECONCILE),), (("reconcile", RECONCILE + (TRIAL_DELETION,)),),
                 (("reconcile", RECONCILE_COUNTED),), (("reconcile", RECONCILE_COUNTED + (TRIAL_DELETION,)),),
                 (("release", ()),)],
}
REFCOUNT_CAUSES = {"zero-count", "cascade", "cycle"}


class Checker:
    def __init__(self, collector):
        self.collector = collector
        self.problems = []
        self.live = {}         # object ID -> arena ID
        self.counts = {}       # refcount: object ID -> its count
        self.in_gc = False
        self.collections = 0
        self.kinds = {}        # phase structure -> collections that had it
        self.events = {}       # mechanism event name -> how many
        self.causes = {}       # OBJECT_FREE_CAUSE's cause -> how many
        self.phases_seen = set()
        self.arena_names = {}  # arena ID -> its ARENA_NEW name

    def problem(self, seq, text):
        if len(self.problems) < 20:
            self.problems.append(f"event #{seq}: {text}")

    # ---- one collection at a time ----------------------------------------------

    def start_collection(self):
        self.in_gc = True
        self.collections += 1
        self.stack = [("", [])]      # the open phases, with their children so far
        self.greyed, self.blackened = [], []
        self.freed = {}               # object -> cause
        self.cause = None             # the OBJECT_FREE_CAUSE awaiting its OBJECT_FREE
        self.forwards = []            # (old, new) in order, in Lisp-2's compute-addresses
        self.moves = []               # (old, new) in relocate
        self.copies = set()           # Cheney copies (new IDs)
        self.scanned = set()          # blackened in a Cheney scan
        self.pending_copy = None      # an OBJECT_FORWARDED of a Cheney copy awaiting its move
        self.frees_in_release = 0     # immediate refcount: frees so far in this collection's release
        self.marking = False

    def phase_path(self):
        return [name for name, _ in self.stack[1:]]

    def finish_collection(self, seq):
        self.in_gc = False
        if len(self.stack) != 1:
            self.problem(seq, f"GC_FINISH with phases open: {self.phase_path()}")
            return
        shape = tuple(self.stack[0][1])
        if shape not in DOCUMENTED[self.collector]:
            self.problem(seq, f"phases {shape} are not a {self.collector} collection's")
        self.kinds[shape] = self.kinds.get(shape, 0) + 1
        if self.greyed:
            self.check_marking(seq)
        if self.forwards:
            self.check_lisp2(seq)
        if self.copies != self.scanned:
            self.problem(seq, f"{len(self.copies ^ self.scanned)} copies were not blackened once by the scan")

    def check_marking(self, seq):
        greyed = set(self.greyed)
        if len(greyed) != len(self.greyed):
            self.problem(seq, "an object was greyed twice in one mark phase")
        if set(self.blackened) != greyed or len(self.blackened) != len(greyed):
            self.problem(seq, "the blackened objects are not the greyed ones, each once")
        # Tracing frees exactly what it did not mark (in the arena it marked).
        marked_arenas = {self.live_at_mark.get(o) for o in greyed} - {None}
        unmarked = {o for o, arena in self.live_at_mark.items() if arena in marked_arenas and o not in greyed}
        freed = set(self.freed)
        if unmarked != freed:
            self.problem(seq, f"{len(unmarked)} objects were not greyed but {len(freed)} were freed "
                              f"({len(unmarked ^ freed)} differ)")
        if any(cause != "unmarked" for cause in self.freed.values()):
            self.problem(seq, "a tracing collector freed an object for a cause other than \"unmarked\"")

    def check_lisp2(self, seq):
        olds = [old for old, _ in self.forwards]
        if olds != sorted(olds):
            self.problem(seq, "compute-addresses does not forward the survivors in address order")
        news = [new for _, new in self.forwards]
        if news != sorted(news):
            self.problem(seq, "the planned addresses do not slide the survivors down in order")
        changed = [(old, new) for old, new in self.forwards if old != new]
        if changed != self.moves:
            self.problem(seq, f"relocate moved {len(self.moves)} objects, but {len(changed)} forwards change an address")

    # ---- events --------------------------------------------------------------

    def feed(self, e):
        name, seq = e["event"], e["seq"]
        if name in MECHANISM:
            self.events[name] = self.events.get(name, 0) + 1
            if name not in ("REFCOUNT_CHANGE", "REMEMBERED_SET_ADD") and not self.in_gc:
                self.problem(seq, f"{name} outside a collection")
                return
        handler = getattr(self, "on_" + name.lower(), None)
        if handler:
            handler(e, seq)

    def on_object_alloc(self, e, seq):
        self.live[e["obj_id"]] = e["arena_id"]
        self.counts[e["obj_id"]] = 0

    def on_arena_new(self, e, seq):
        self.arena_names[e["arena_id"]] = e["arena_name"]

    def on_remembered_set_add(self, e, seq):
        arena = self.live.get(e["obj_id"])
        if self.arena_names.get(arena) != "old":
            self.problem(seq, f"object {e['obj_id']} is remembered, but it is not in the old generation")

    def on_arena_delete(self, e, seq):
        for obj in [o for o, arena in self.live.items() if arena == e["arena_id"]]:
            del self.live[obj]

    def on_gc_start(self, e, seq):
        self.start_collection()

    def on_gc_finish(self, e, seq):
        self.finish_collection(seq)

    def on_gc_phase_start(self, e, seq):
        name = e["phase_name"]
        self.stack.append((name, []))
        self.phases_seen.add(name)
        if name == "mark":
            self.marking = True
            self.live_at_mark = dict(self.live)
            self.greyed, self.blackened = [], []

    def on_gc_phase_end(self, e, seq):
        name = e["phase_name"]
        if len(self.stack) == 1 or self.stack[-1][0] != name:
            self.problem(seq, f"GC_PHASE_END {name} does not end the innermost open phase {self.phase_path()}")
            return
        _, children = self.stack.pop()
        self.stack[-1][1].append((name, tuple(children)))
        if name == "mark":
            self.marking = False

    def on_object_greyed(self, e, seq):
        if not self.marking or e["obj_id"] not in self.live:
            self.problem(seq, "OBJECT_GREYED outside mark or of an object not live")
        self.greyed.append(e["obj_id"])

    def on_object_blackened(self, e, seq):
        obj = e["obj_id"]
        if self.marking:
            if obj not in self.greyed:
                self.problem(seq, f"object {obj} is blackened before it was greyed")
            self.blackened.append(obj)
        elif "scan" in self.phase_path():
            if obj in self.scanned:
                self.problem(seq, f"copy {obj} is scanned twice")
            self.scanned.add(obj)
        else:
            self.problem(seq, f"OBJECT_BLACKENED outside mark and scan, in {self.phase_path()}")

    def on_object_forwarded(self, e, seq):
        old, new = e["obj_id"], e["new_obj_id"]
        if old not in self.live:
            self.problem(seq, f"object {old} is forwarded but not live")
        if self.phase_path()[-1:] == ["compute-addresses"]:
            self.forwards.append((old, new))
        else:
            self.pending_copy = (old, new)

    def on_object_move(self, e, seq):
        old, new = e["obj_id"], e["new_obj_id"]
        if self.phase_path()[-1:] == ["relocate"]:
            self.moves.append((old, new))
        else:
            if self.pending_copy != (old, new):
                self.problem(seq, f"the copy {old} -> {new} does not follow its OBJECT_FORWARDED {self.pending_copy}")
            self.pending_copy = None
            self.copies.add(new)
        arena = self.live.pop(old, None)
        self.live[new] = e["new_arena_id"] if arena is not None else None

    def on_object_free_cause(self, e, seq):
        self.cause = (e["obj_id"], e["cause"])
        if self.collector == "refcount":
            if e["cause"] not in REFCOUNT_CAUSES:
                self.problem(seq, f"refcount frees for an unknown cause {e['cause']}")
            if self.counts.get(e["obj_id"]) != 0:
                self.problem(seq, f"object {e['obj_id']} is freed with a count of {self.counts.get(e['obj_id'])}")
            if e["cause"] == "cycle" and self.phase_path()[-1:] != ["collect-white"]:
                self.problem(seq, "a cycle member is freed outside collect-white")
            if self.phase_path() == ["release"] and self.frees_in_release == 0 and e["cause"] != "zero-count":
                self.problem(seq, "a release does not begin with the object whose count reached zero")

    def on_object_free(self, e, seq):
        obj = e["obj_id"]
        if self.phase_path() == ["release"]:
            self.frees_in_release += 1
        if self.cause is None or self.cause[0] != obj:
            self.problem(seq, f"object {obj} is freed without its OBJECT_FREE_CAUSE just before")
        else:
            self.freed[obj] = self.cause[1]
            self.causes[self.cause[1]] = self.causes.get(self.cause[1], 0) + 1
        self.cause = None
        self.live.pop(obj, None)

    def on_refcount_change(self, e, seq):
        obj, count = e["obj_id"], e["count"]
        before = self.counts.get(obj)
        if before is None or abs(count - before) != 1:
            self.problem(seq, f"object {obj}'s count goes from {before} to {count}")
        self.counts[obj] = count


MECHANISM = {"GC_PHASE_START", "GC_PHASE_END", "OBJECT_GREYED", "OBJECT_BLACKENED", "OBJECT_FORWARDED",
             "REMEMBERED_SET_ADD", "REFCOUNT_CHANGE", "OBJECT_FREE_CAUSE"}
# What each collector must have shown at least once on the test's program.
EXPECTED_EVENTS = {
    "marksweep": {"OBJECT_GREYED", "OBJECT_BLACKENED", "OBJECT_FREE_CAUSE"},
    "markcompact": {"OBJECT_GREYED", "OBJECT_BLACKENED", "OBJECT_FORWARDED", "OBJECT_FREE_CAUSE"},
    "semispace": {"OBJECT_FORWARDED", "OBJECT_BLACKENED"},
    "generational": {"OBJECT_FORWARDED", "OBJECT_BLACKENED", "OBJECT_GREYED", "OBJECT_FREE_CAUSE",
                     "REMEMBERED_SET_ADD"},
    "refcount": {"REFCOUNT_CHANGE", "OBJECT_FREE_CAUSE"},
}


def main():
    vmrun, collector, musts, program = sys.argv[1:5]
    musts = set() if musts == "-" else set(musts.split(","))
    args = sys.argv[5:]
    vm_options = [a for a in args if a.startswith("--")]
    program_args = [a for a in args if not a.startswith("--")]
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.jsonl")
        run = subprocess.run([vmrun, f"--gc={collector}", "--seed=1", *vm_options,
                              f"-agentlib:trace=file={trace},mechanism=y", program, *program_args],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            print(f"FAIL: vmrun exited {run.returncode}: {run.stderr.strip()}")
            return 1
        checker = Checker(collector)
        with open(trace) as lines:
            header = json.loads(next(lines))
            if header.get("collector") != collector:
                print(f"FAIL: the trace is of {header.get('collector')}, not {collector}")
                return 1
            for line in lines:
                checker.feed(json.loads(line))
    missing = EXPECTED_EVENTS[collector] - set(checker.events)
    if missing:
        checker.problems.append(f"never posted: {sorted(missing)}")
    shown = {f"cause:{cause}" for cause in checker.causes} | {f"phase:{name}" for name in checker.phases_seen}
    if not musts <= shown:
        checker.problems.append(f"the run never showed {sorted(musts - shown)}: give the program more work")
    if checker.problems:
        for text in checker.problems:
            print(f"FAIL: {collector}: {text}")
        return 1
    print(f"{collector}: {checker.collections} collections, phases as documented; "
          + ", ".join(f"{n} {name}" for name, n in sorted(checker.events.items()))
          + "; frees by cause: " + ", ".join(f"{n} {cause}" for cause, n in sorted(checker.causes.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
