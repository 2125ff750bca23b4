#!/usr/bin/env python3
"""gccompare_check.py -- gccompare's table, CSV, JSON and merged timeline
agree with each other and with what every collector must share.

    gccompare_check.py GCCOMPARE DIR [GCCOMPARE_OPTIONS...] PROGRAM [ARGS...]

Runs gccompare with --csv, --json and --chrome into DIR, then requires:
  - a column per collector in the printed table, whose "objects allocated"
    row shows the JSON's figures;
  - the CSV to hold exactly the JSON's figures, metric by metric;
  - the same objects and bytes allocated under every collector (the same
    program with the same seed allocates the same, whatever collects it);
  - refcount's "unreclaimed, cycles off" to be what the --rc-cycles=off run
    left live beyond the run with cycle collection, and more than none (the
    program drops garbage cycles);
  - the merged Chrome trace to hold one process per collector, named after
    it, with one collection slice per collection.
"""
import csv
import json
import os
import subprocess
import sys

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def main():
    gccompare, workdir, *rest = sys.argv[1:]
    os.makedirs(workdir, exist_ok=True)
    paths = {kind: os.path.join(workdir, f"compare.{kind}.json" if kind != "csv" else "compare.csv")
             for kind in ("csv", "json", "chrome")}
    result = subprocess.run([gccompare, f"--csv={paths['csv']}", f"--json={paths['json']}",
                             f"--chrome={paths['chrome']}", *rest], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"gccompare failed (status {result.returncode}): {result.stderr}")
        return 1
    with open(paths["json"]) as f:
        report = json.load(f)
    table = report["collectors"]
    collectors = list(table)
    expect(len(collectors) >= 5, f"only {collectors} ran")

    lines = result.stdout.splitlines()
    header = next((line.split() for line in lines if line.split() == collectors), None)
    expect(header is not None, f"no table header naming {collectors}:\n{result.stdout}")
    allocated_row = next((line for line in lines if line.startswith("objects allocated")), "")
    expect(allocated_row.split()[2:] == [str(table[gc]["objects_allocated"]) for gc in collectors],
           f"the table's row '{allocated_row}' is not the JSON's figures")

    with open(paths["csv"], newline="") as f:
        rows = list(csv.reader(f))
    expect(rows[0] == ["metric"] + collectors, f"CSV header {rows[0]}")
    for row in rows[1:]:
        metric, cells = row[0], row[1:]
        for gc, cell in zip(collectors, cells):
            value = table[gc].get(metric)
            expect(cell == ("" if value is None else str(value)),
                   f"CSV {metric} for {gc} is '{cell}', the JSON says {value}")
    expect(len(rows) > 20, f"the CSV has only {len(rows)} rows")

    for key in ("objects_allocated", "bytes_allocated"):
        values = {gc: table[gc][key] for gc in collectors}
        expect(len(set(values.values())) == 1, f"{key} differs between collectors: {values}")

    # The rows under "collections" count kinds of the same collections: none
    # exceeds it, a structure is freed only by a collection that freed
    # objects, and collections freed objects exactly when objects were freed.
    kinds = ("collections_freeing", "collections_moving", "collections_renewing_arenas", "collections_copying",
             "collections_sliding", "collections_scavenging", "collections_freeing_survivors")
    for gc in collectors:
        s = table[gc]
        for key in kinds:
            expect(s[key] <= s["collections"], f"{gc}: {key} {s[key]} exceeds collections {s['collections']}")
        expect(s["collections_freeing_survivors"] <= s["collections_freeing"],
               f"{gc}: {s['collections_freeing_survivors']} collections freed a structure, "
               f"only {s['collections_freeing']} freed objects")
        expect((s["collections_freeing"] > 0) == (s["objects_freed"] > 0),
               f"{gc}: {s['collections_freeing']} collections freed objects, {s['objects_freed']} objects freed")

    refcount, cycles_off = table["refcount"], report["refcount_cycles_off"]
    unreclaimed = cycles_off["live_objects_at_exit"] - refcount["live_objects_at_exit"]
    expect(refcount["unreclaimed_cycles_off"] == unreclaimed,
           f"unreclaimed, cycles off is {refcount['unreclaimed_cycles_off']}, not {unreclaimed}")
    expect(unreclaimed > 0, "refcount without cycle collection left no more garbage than with it")
    expect(cycles_off["collector"] == "refcount", "the cycles-off run was not refcount's")

    with open(paths["chrome"]) as f:
        events = json.load(f)["traceEvents"]
    for pid, gc in enumerate(collectors, start=1):
        names = [e["args"]["name"] for e in events if e["pid"] == pid and e.get("name") == "process_name"]
        expect(names == [f"gclab {gc}"], f"chrome: process {pid} is named {names}, not gclab {gc}")
        slices = sum(1 for e in events if e["pid"] == pid and e["ph"] == "B" and e.get("tid") == 1)
        expect(slices == table[gc]["collections"],
               f"chrome: {gc} has {slices} collection slices for {table[gc]['collections']} collections")

    for failure in failures[:20]:
        print(failure)
    if failures:
        return 1
    print(f"gccompare: {len(collectors)} collectors; table, CSV, JSON and timeline agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
