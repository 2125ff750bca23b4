#!/usr/bin/env python3
"""gcstats_check.py -- the gcstats agent's figures and timeline, checked
against the trace of the same run.

    gcstats_check.py VMRUN GC DIR [VMRUN_OPTIONS...] -- PROGRAM [ARGS...]

Runs PROGRAM once under collector GC with, in this order, the check agent
(the stream is sound), the trace agent (every event, docs/trace-format.md,
as a binary recording, which vmpi-trace2json beside VMRUN turns into the
JSON lines read here) and gcstats (its JSON and its Chrome trace,
docs/gcstats.md), in DIR.  Then:

  - recounts every figure gcstats derives from events, from the trace's own
    lines (collections and what they did, objects and bytes allocated,
    moved and freed, arenas created and deleted, peak used and capacity,
    what is live at exit) and requires gcstats's JSON to say the same;
  - requires the timing figures to be consistent with each other (never
    their values: timing is no pass/fail matter);
  - requires the Chrome trace to be well formed: every slice closed on its
    own track and properly nested, every collection's phases inside it,
    timestamps that never go back, one collection slice per GC_START whose
    arguments add up to gcstats's totals, and "heap used" and "heap
    capacity" after each collection equal to that GC_FINISH's figures.

Prints one line per failed check and exits 1 if any failed.
"""
import json
import os
import subprocess
import sys

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def run(vmrun, gc, workdir, vm_options, program):
    command = [vmrun, f"--gc={gc}", "--seed=7", "--vmpi-strict", *vm_options,
               "-agentlib:check", "-agentlib:trace=file=run.bin,format=binary",
               "-agentlib:gcstats=file=stats.json,chrome=run.chrome.json", *program]
    result = subprocess.run(command, cwd=workdir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0 or "check: ok:" not in result.stderr:
        sys.exit(f"the run failed (status {result.returncode}):\n{result.stderr[-2000:]}")
    trace2json = os.path.join(os.path.dirname(vmrun), "vmpi-trace2json")
    converted = subprocess.run([trace2json, "-o", "run.jsonl", "run.bin"], cwd=workdir, capture_output=True, text=True)
    if converted.returncode != 0:
        sys.exit(f"vmpi-trace2json failed (status {converted.returncode}): {converted.stderr}")


def recount(trace_path):
    """Every figure gcstats derives from events, from the trace's lines."""
    with open(trace_path) as f:
        header = json.loads(f.readline())
        events = [json.loads(line) for line in f]
    assert header["format"] == "gclab-vmpi-trace" and header["version"] == 1, header
    n = dict.fromkeys(["collections", "collections_freeing", "collections_moving",
                       "collections_renewing_arenas", "collections_copying", "collections_sliding",
                       "collections_scavenging", "collections_freeing_survivors", "objects_allocated",
                       "bytes_allocated", "objects_moved", "bytes_moved", "objects_freed", "bytes_freed",
                       "arenas_created", "arenas_deleted", "peak_used_bytes"], 0)
    objects = {}  # ID -> (arena, size)
    born = {}     # ID -> collections finished before its allocation
    refers = {}   # ID -> whether it can hold references (a reference array, or a class with reference fields)
    referring_classes = set()
    referrer_freed = False
    used = 0
    did = None    # what the collection in progress did
    touched, deleted, survivors = set(), set(), 0  # arenas freed or moved out of, arenas deleted, old objects freed
    freed = False  # the collection in progress freed an object, one by one or with its arena
    finishes = []  # (used_object_space, total_object_space) of each GC_FINISH
    for e in events:
        kind = e["event"]
        if kind == "OBJECT_ALLOC":
            objects[e["obj_id"]] = (e["arena_id"], e["size"])
            born[e["obj_id"]] = n["collections"]
            refers[e["obj_id"]] = e["is_array"] == 2 or (e["is_array"] == 0 and e["class_id"] in referring_classes)
            n["objects_allocated"] += 1
            n["bytes_allocated"] += e["size"]
            used += e["size"]
            n["peak_used_bytes"] = max(n["peak_used_bytes"], used)
        elif kind == "OBJECT_FREE":
            arena, size = objects.pop(e["obj_id"])
            touched.add(arena)
            if born.pop(e["obj_id"]) < n["collections"]:
                survivors += 1
                referrer_freed |= refers[e["obj_id"]]
            del refers[e["obj_id"]]
            n["objects_freed"] += 1
            n["bytes_freed"] += size
            used -= size
            did.add("free")
            freed = True
        elif kind == "OBJECT_MOVE":
            arena, size = objects.pop(e["obj_id"])
            objects[e["new_obj_id"]] = (e["new_arena_id"], size)
            born[e["new_obj_id"]] = born.pop(e["obj_id"])
            refers[e["new_obj_id"]] = refers.pop(e["obj_id"])
            touched.add(arena)
            did.add("slide" if arena == e["new_arena_id"] else "copy")
            n["objects_moved"] += 1
            n["bytes_moved"] += size
            did.add("move")
        elif kind == "ARENA_DELETE":
            dead = [i for i, (arena, _) in objects.items() if arena == e["arena_id"]]
            deleted.add(e["arena_id"])
            freed |= bool(dead)
            for i in dead:
                if born.pop(i) < n["collections"]:
                    survivors += 1
                    referrer_freed |= refers[i]
                del refers[i]
                n["objects_freed"] += 1
                n["bytes_freed"] += objects[i][1]
                used -= objects.pop(i)[1]
            n["arenas_deleted"] += 1
            did.add("renew")
        elif kind == "ARENA_NEW":
            n["arenas_created"] += 1
            if did is not None:
                did.add("renew")
        elif kind == "CLASS_LOAD":
            if any(f["field_signature"][:1] in ("L", "[") for f in e["instances"]):
                referring_classes.add(e["class_id"])
        elif kind == "GC_START":
            did = set()
            touched, deleted, survivors, referrer_freed, freed = set(), set(), 0, False, False
        elif kind == "GC_FINISH":
            n["collections"] += 1
            n["collections_freeing"] += freed  # one by one or with their arena
            n["collections_moving"] += "move" in did
            n["collections_renewing_arenas"] += "renew" in did
            n["collections_copying"] += "copy" in did
            n["collections_sliding"] += "slide" in did
            n["collections_scavenging"] += "renew" in did and touched <= deleted
            n["collections_freeing_survivors"] += survivors >= 2 and referrer_freed
            finishes.append((e["used_object_space"], e["total_object_space"], did))
            did = None
    n["peak_capacity_bytes"] = max((total for _, total, _ in finishes), default=None)
    n["live_objects_at_exit"] = len(objects)
    n["live_bytes_at_exit"] = used
    return header["collector"], n, finishes


def check_stats(stats, collector, counts):
    expect(stats["format"] == "gclab-gcstats" and stats["version"] == 2, "stats: not gcstats version 2")
    expect(stats["collector"] == collector, f"stats: collector {stats['collector']}, trace says {collector}")
    for key, value in counts.items():
        expect(stats[key] == value, f"stats: {key} is {stats[key]}, the trace says {value}")
    expect(stats["untracked_objects"] == 0, "stats: objects went untracked")
    expect(stats["gc_finish_disagreements"] == 0, "stats: disagreed with a GC_FINISH")
    p50, p95, top, total, run_ns = (stats[k] for k in
                                    ["pause_p50_ns", "pause_p95_ns", "pause_max_ns", "gc_time_ns", "run_time_ns"])
    expect(p50 <= p95 <= top <= total <= run_ns, f"stats: pauses out of order: {p50} {p95} {top} {total} {run_ns}")
    expect(top > 0 or counts["collections"] == 0, "stats: collections without pause time")
    expect(abs(stats["throughput"] - (1 - total / run_ns if run_ns else 1)) < 1e-5, "stats: throughput")


def check_chrome(chrome, stats, finishes):
    records = chrome["traceEvents"]
    open_slices = {}  # tid -> stack of (name, ts)
    gc_slices = []    # (begin, end, args)
    last_ts = 0.0
    after_gc = None   # the GC_FINISH whose counters come next: index into finishes
    seen_after = {}
    for r in records:
        for field in ("ph", "pid", "ts"):
            expect(field in r, f"chrome: a record without {field}: {r}")
        ph, ts, tid = r["ph"], r["ts"], r.get("tid")
        if ph == "M":
            continue
        expect(ts >= last_ts, f"chrome: time goes back at {r}")
        last_ts = max(last_ts, ts)
        if ph == "B":
            if tid != 1:
                expect(open_slices.get(1), f"chrome: a phase outside any collection: {r}")
            open_slices.setdefault(tid, []).append((r["name"], ts))
        elif ph == "E":
            stack = open_slices.get(tid)
            expect(bool(stack), f"chrome: an E with no open slice on track {tid}: {r}")
            if not stack:
                continue
            name, begin = stack.pop()
            if tid == 1:
                expect(not any(open_slices.get(t) for t in (2, 3, 4)), "chrome: a phase outlives its collection")
                gc_slices.append((begin, ts, r.get("args", {})))
                after_gc = len(gc_slices) - 1
                seen_after = {}
        elif ph == "C":
            if after_gc is not None and r["name"] in ("heap used", "heap capacity") and r["name"] not in seen_after:
                seen_after[r["name"]] = r["args"]["bytes"]
                if len(seen_after) == 2:
                    used, total, _ = finishes[after_gc]
                    expect(seen_after == {"heap used": used, "heap capacity": total},
                           f"chrome: after collection {after_gc + 1} the counters say {seen_after}, "
                           f"GC_FINISH said used {used} of {total}")
                    after_gc = None
        else:
            expect(False, f"chrome: unexpected record {r}")
    for tid, stack in open_slices.items():
        expect(not stack, f"chrome: {len(stack)} slices left open on track {tid}")
    expect(len(gc_slices) == stats["collections"],
           f"chrome: {len(gc_slices)} collection slices for {stats['collections']} collections")
    for key in ("objects_moved", "bytes_moved"):
        total = sum(args.get(key, 0) for _, _, args in gc_slices)
        expect(total == stats[key], f"chrome: the slices' {key} add up to {total}, not {stats[key]}")
    # Frees outside a collection do not exist (docs/event-mapping.md).
    for key in ("objects_freed", "bytes_freed"):
        total = sum(args.get(key, 0) for _, _, args in gc_slices)
        expect(total == stats[key], f"chrome: the slices' {key} add up to {total}, not {stats[key]}")
    for i, ((_, _, args), (_, _, did)) in enumerate(zip(gc_slices, finishes)):
        kind = "+".join(part for part in ("free", "move", "renew") if part in did) or "none"
        expect(args.get("kind") == kind, f"chrome: collection {i + 1} is '{args.get('kind')}', its events say {kind}")
    counters = {}
    for r in records:
        if r["ph"] == "C":
            expect(r["ts"] >= counters.get(r["name"], 0.0), f"chrome: counter {r['name']} goes back in time")
            counters[r["name"]] = r["ts"]
    expect(any(name.startswith("arena ") for name in counters), "chrome: no arena counters")


def main():
    vmrun, gc, workdir, *rest = sys.argv[1:]
    split = rest.index("--")
    vm_options, program = rest[:split], rest[split + 1:]
    vmrun, program[0] = os.path.abspath(vmrun), os.path.abspath(program[0])  # the run's directory is workdir
    os.makedirs(workdir, exist_ok=True)
    run(vmrun, gc, workdir, vm_options, program)
    collector, counts, finishes = recount(os.path.join(workdir, "run.jsonl"))
    with open(os.path.join(workdir, "stats.json")) as f:
        stats = json.load(f)
    with open(os.path.join(workdir, "run.chrome.json")) as f:
        chrome = json.load(f)
    expect(counts["collections"] > 0, "the run never collected: it checks nothing about collections")
    check_stats(stats, collector, counts)
    check_chrome(chrome, stats, finishes)
    for failure in failures[:20]:
        print(failure)
    if failures:
        return 1
    print(f"{gc}: {counts['collections']} collections, {counts['objects_allocated']} objects allocated, "
          f"{counts['objects_moved']} moved, {counts['objects_freed']} freed: gcstats and its timeline agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
