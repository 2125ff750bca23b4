#!/usr/bin/env python3
"""lifetimes_check.py -- gccompare's lifetimes tables, checked against a
computation of their own from the trace of each collector's run
(docs/gcstats.md, "Lifetimes").

    lifetimes_check.py GCCOMPARE DIR [--agree] [VMRUN_OPTIONS...] -- PROGRAM [ARGS...]

For each collector, refcount's two modes apart (marksweep, markcompact,
semispace, generational, refcount:deferred, refcount:immediate), runs
PROGRAM with the trace agent (its JSON lines) and the gcstats agent, and
counts from the trace alone, per class: the objects allocated, their deaths
by collections survived (the GC_FINISHes between an object's allocation and
the OBJECT_FREE or ARENA_DELETE that ended it) and by bytes allocated in
their lives, and those live at exit.  Then:

  - the gcstats agent's "lifetimes" of that run must be the same, field for
    field;
  - gccompare, run on the same program with the same options and every
    collector, must print the same first table (ages in its first column's
    collections) and the same mean bytes lived per class and collector, and
    its JSON must hold each collector's lifetimes as computed;
  - with --agree (for a run under --gc-stress, where every allocation
    collects), the mean bytes lived must be the same under every collector
    but generational, whose old generation only its major collections (one
    in eight) look at.

Prints one line per failed check and exits 1 if any failed.
"""
import json
import os
import subprocess
import sys

COLLECTORS = ["marksweep", "markcompact", "semispace", "generational", "refcount:deferred", "refcount:immediate"]
AGES, SPANS = 8, 10
SHOWN = 8  # classes gccompare shows, the rest summed (when two or more)

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def vmrun_options(collector):
    gc, _, mode = collector.partition(":")
    return [f"--gc={gc}"] + ([f"--rc-mode={mode}"] if mode else [])


def traced_run(vmrun, collector, workdir, vm_options, program):
    label = collector.replace(":", "-")
    trace, stats = os.path.join(workdir, label + ".jsonl"), os.path.join(workdir, label + ".json")
    command = [vmrun, *vmrun_options(collector), "--seed=1", *vm_options, f"-agentlib:trace=file={trace}",
               f"-agentlib:gcstats=file={stats}", *program]
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{collector}: the run failed (status {result.returncode}):\n{result.stderr[-2000:]}")
    with open(stats) as f:
        return trace, json.load(f)


def span_bucket(lived):
    bucket, limit = 0, 256
    while bucket < SPANS - 1 and lived >= limit:
        bucket, limit = bucket + 1, limit * 4
    return bucket


def lifetimes_from_trace(path):
    """Per class name: allocated, allocated_bytes, died_at, span, bytes_lived, live_at_exit."""
    class_names, lives, live = {}, {}, {}  # live: obj_id -> [class, size, arena, born_gc, born_clock]
    finished = clock = 0
    with open(path) as f:
        f.readline()
        for line in f:
            e = json.loads(line)
            kind = e["event"]
            if kind == "CLASS_LOAD":
                class_names.setdefault(e["class_id"], e["class_name"])
            elif kind == "OBJECT_ALLOC":
                if not e["class_id"]:
                    name = "(no class)"
                elif e["class_id"] not in class_names:
                    name = "(class not loaded)"
                else:
                    name = class_names[e["class_id"]] + ("[]" if e["is_array"] == 2 else "")
                life = lives.setdefault(name, {"allocated": 0, "allocated_bytes": 0, "died_at": [0] * AGES,
                                               "span": [0] * SPANS, "bytes_lived": 0, "live_at_exit": 0})
                life["allocated"] += 1
                life["allocated_bytes"] += e["size"]
                live[e["obj_id"]] = [name, e["size"], e["arena_id"], finished, clock]
                clock += e["size"]
            elif kind == "OBJECT_MOVE":
                obj = live.pop(e["obj_id"])
                obj[2] = e["new_arena_id"]
                live[e["new_obj_id"]] = obj
            elif kind in ("OBJECT_FREE", "ARENA_DELETE"):
                dead = [e["obj_id"]] if kind == "OBJECT_FREE" else \
                    [i for i, obj in live.items() if obj[2] == e["arena_id"]]
                for obj_id in dead:
                    name, _, _, born_gc, born_clock = live.pop(obj_id)
                    life = lives[name]
                    life["died_at"][min(finished - born_gc, AGES - 1)] += 1
                    life["span"][span_bucket(clock - born_clock)] += 1
                    life["bytes_lived"] += clock - born_clock
            elif kind == "GC_FINISH":
                finished += 1
    for name, _, _, _, _ in live.values():
        lives[name]["live_at_exit"] += 1
    return lives


def mean_lived(lives, names):
    lived = sum(lives[n]["bytes_lived"] for n in names if n in lives)
    deaths = sum(lives[n]["allocated"] - lives[n]["live_at_exit"] for n in names if n in lives)
    return str(lived // deaths) if deaths else "-"


def expected_tables(collectors, computed):
    """gccompare's two lifetimes tables, as lists of rows of words."""
    first = computed[collectors[0]]
    order = sorted(first, key=lambda n: (-first[n]["allocated"], list(first).index(n)))
    shown = order if len(order) <= SHOWN + 1 else order[:SHOWN]
    rest = order[len(shown):]
    lines = [(n, [n]) for n in shown] + ([(f"({len(rest)} more classes)", rest)] if rest else [])
    ages = []
    for label, names in lines:
        died = [sum(first[n]["died_at"][k] for n in names) for k in range(AGES)]
        row = [sum(first[n]["allocated"] for n in names), died[0], died[1], died[2], sum(died[3:]),
               sum(first[n]["live_at_exit"] for n in names)]
        ages.append(label.split() + [str(v) for v in row])
    spans = [label.split() + [mean_lived(computed[c], names) for c in collectors] for label, names in lines]
    return ages, spans, order


def printed_tables(text):
    """The rows under the two tables' headings in gccompare's output."""
    blocks = text.split("\n\n")
    ages = [b for b in blocks if b.startswith("lifetimes per class")]
    spans = [b for b in blocks if b.startswith("mean bytes")]
    if len(ages) != 1 or len(spans) != 1:
        sys.exit("gccompare printed no lifetimes tables:\n" + text)
    rows = lambda block, skip: [line.split() for line in block.strip().splitlines()[skip:]]
    return ages[0], rows(ages[0], 3), rows(spans[0], 2)


def main():
    args = sys.argv[1:]
    if len(args) < 4 or "--" not in args:
        sys.exit(__doc__)
    gccompare, workdir = args[0], args[1]
    cut = args.index("--")
    vm_options, program = args[2:cut], args[cut + 1:]
    agree = "--agree" in vm_options
    vm_options = [o for o in vm_options if o != "--agree"]
    vmrun = os.path.join(os.path.dirname(gccompare), "vmrun")
    os.makedirs(workdir, exist_ok=True)

    computed = {}
    for collector in COLLECTORS:
        trace, stats = traced_run(vmrun, collector, workdir, vm_options, program)
        computed[collector] = lifetimes_from_trace(trace)
        agent = {entry.pop("class"): entry for entry in stats["lifetimes"]}
        expect(agent == computed[collector],
               f"{collector}: gcstats's lifetimes {agent} are not the trace's {computed[collector]}")

    json_path = os.path.join(workdir, "compare.json")
    result = subprocess.run([gccompare, f"--gc={','.join(COLLECTORS)}", f"--json={json_path}",
                             *[f"--vm-option={o}" for o in vm_options], *program],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"gccompare failed (status {result.returncode}): {result.stderr}")
    heading, ages, spans = printed_tables(result.stdout)
    expect(f"counted in {COLLECTORS[0]}'s collections" in heading, f"the table does not say whose ages: {heading}")
    want_ages, want_spans, order = expected_tables(COLLECTORS, computed)
    expect(sorted(ages) == sorted(want_ages), f"the ages table says {ages}, the traces {want_ages}")
    expect(sorted(spans) == sorted(want_spans), f"the bytes-lived table says {spans}, the traces {want_spans}")
    with open(json_path) as f:
        document = json.load(f)
    for collector in COLLECTORS:
        written = {e["class"]: {k: v for k, v in e.items() if k != "class"}
                   for e in document["collectors"][collector]["lifetimes"]}
        expect(written == computed[collector], f"{collector}: gccompare's JSON lifetimes are not the trace's")

    # The demographics must show something: objects that died, of more than one age.
    first = computed[COLLECTORS[0]]
    expect(sum(sum(l["died_at"]) for l in first.values()) > 0, "no object died")
    if agree:
        agreed = 0
        for row in want_spans:
            means = [m for c, m in zip(COLLECTORS, row[-len(COLLECTORS):]) if c != "generational"]
            expect(len(set(means)) == 1, f"bytes lived differ between collectors under --gc-stress: {row}")
            agreed += means[0] != "-"
        expect(agreed >= 2, "fewer than two classes had deaths to agree on")

    for failure in failures:
        print("FAIL:", failure)
    if failures:
        return 1
    print(f"lifetimes_check: {len(COLLECTORS)} collectors, {len(order)} classes, tables and JSON agree with the traces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
