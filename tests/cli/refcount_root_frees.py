#!/usr/bin/env python3
"""refcount_root_frees.py -- when reference counting frees an object whose
last reference was a local variable (docs/collectors/refcount.md, "Two
modes").

    refcount_root_frees.py VMRUN MODE PROGRAM

Runs PROGRAM (root_release.gcl) under --gc=refcount --rc-mode=MODE with the
trace agent's mechanism events, and checks each object of class Held:

- immediate: it is freed before the next object is allocated, with cause
  zero-count, in a collection of its own (GC_START, phase "release", its
  OBJECT_FREE_CAUSE and OBJECT_FREE and nothing else freed, GC_FINISH);
- deferred: it is not freed before the next allocation (the roots are
  counted only by a reconciliation).

The program must print 5.  Exits 1 with one line per problem.
"""
import json
import os
import subprocess
import sys
import tempfile


def read_trace(path):
    with open(path) as lines:
        next(lines)  # the header
        return [json.loads(line) for line in lines]


def bracket_around(events, at):
    """The indexes of the GC_START before `at` and the GC_FINISH after it."""
    start = max(i for i in range(at) if events[i]["event"] == "GC_START")
    finish = min(i for i in range(at, len(events)) if events[i]["event"] == "GC_FINISH")
    return start, finish


def check_held(events, alloc_at, mode):
    """Problems with the Held object allocated at events[alloc_at]."""
    obj = events[alloc_at]["obj_id"]
    next_alloc = next((i for i in range(alloc_at + 1, len(events)) if events[i]["event"] == "OBJECT_ALLOC"),
                      len(events))
    free_at = next((i for i in range(alloc_at + 1, next_alloc)
                    if events[i]["event"] == "OBJECT_FREE" and events[i]["obj_id"] == obj), None)
    if mode == "deferred":
        return [] if free_at is None else [f"Held {obj:#x} freed before the next allocation in deferred mode"]
    if free_at is None:
        return [f"Held {obj:#x} is not freed before the next allocation"]
    start, finish = bracket_around(events, free_at)
    inside = [e for e in events[start + 1:finish]
              if e["event"] not in ("REFCOUNT_CHANGE", "GC_PHASE_START", "GC_PHASE_END")]
    expected = [("OBJECT_FREE_CAUSE", obj, "zero-count"), ("OBJECT_FREE", obj, None)]
    got = [(e["event"], e.get("obj_id"), e.get("cause")) for e in inside]
    phases = [e["phase_name"] for e in events[start + 1:finish] if e["event"] == "GC_PHASE_START"]
    problems = []
    if got != expected:
        problems.append(f"Held {obj:#x}'s collection holds {got}, not only its own zero-count free")
    if phases != ["release"]:
        problems.append(f"Held {obj:#x}'s collection has phases {phases}, not release")
    return problems


def main():
    vmrun, mode, program = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.jsonl")
        run = subprocess.run([vmrun, "--gc=refcount", f"--rc-mode={mode}", "--seed=1",
                              f"-agentlib:trace=file={trace},mechanism=y", program],
                             capture_output=True, text=True)
        if run.returncode != 0 or run.stdout != "5\n":
            print(f"FAIL: vmrun exited {run.returncode}, printed {run.stdout!r}: {run.stderr.strip()}")
            return 1
        events = read_trace(trace)
    held_class = [e["class_id"] for e in events if e["event"] == "CLASS_LOAD" and e["class_name"] == "Held"]
    allocs = [i for i, e in enumerate(events)
              if e["event"] == "OBJECT_ALLOC" and held_class and e["class_id"] == held_class[0]]
    problems = [] if len(allocs) == 2 else [f"{len(allocs)} Held objects allocated, not 2"]
    for at in allocs:
        problems += check_held(events, at, mode)
    for text in problems:
        print(f"FAIL: {mode}: {text}")
    if not problems:
        print(f"{mode}: both Held objects {'freed at once' if mode == 'immediate' else 'left for a reconciliation'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
