#!/usr/bin/env python3
"""collect_patterns.py -- every example collects, under every collector, in
that collector's own pattern, at the flags examples/README.md shows for it.

    collect_patterns.py VMRUN SOURCE_DIR NAME [--table]

Reads NAME's row of the table "Watch them collect" in examples/README.md:
the vmrun options and arguments it shows, whether the example makes garbage
cycles, and what it does not show.  Runs that command (from SOURCE_DIR)
under every collector with the gcstats agent (docs/gcstats.md), and once
more under refcount with --rc-cycles=off, all with --seed=1.  All six runs
must print the same and end with NAME.status (0 if there is none).  Then,
from the agent's figures, which come from the event stream alone
(docs/event-mapping.md; docs/gcstats.md, "Kinds of collection"):

  marksweep     a collection that freed objects;
  markcompact   a collection that slid objects;
  semispace     two flips: collections that copied survivors into the other
                semispace and renewed only the one they left;
  generational  a minor collection (it renewed the young arenas and freed or
                moved nothing outside them) and a major one (it freed or
                slid objects in the old arena);
  refcount      a reconciliation that freed objects, a cascade (one that
                freed two or more objects that had survived an earlier
                reconciliation, one of them able to refer to the others),
                and, when the row says "collects cycles",
                more objects freed than with --rc-cycles=off; when it says
                "none to collect", exactly as many.

A row whose cycles column says "no garbage" (out_of_memory: everything
stays reachable) asks only that every collector collects.  The last column
lists, as "KEY: why", what the example honestly does not show (KEY as in
GAPS below); each such gap must really be missing, so the README cannot
claim less than the run shows.  Prints one line per collector; on a failure
names the example, the collector and what was missing, and exits 1.
--table prints the figures and checks nothing.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

COLLECTORS = ["marksweep", "markcompact", "semispace", "generational", "refcount"]


def side_file(base, ext, default):
    path = base + ext
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return f.read().strip()


# What each collector's pattern needs: KEY -> (collector, test, what is missing).
GAPS = {
    "marksweep free": ("marksweep", lambda s, off: s["collections_freeing"] >= 1,
                       "no collection freed an object"),
    "markcompact slide": ("markcompact", lambda s, off: s["collections_sliding"] >= 1,
                          "no collection slid an object"),
    "semispace flips": ("semispace", lambda s, off: min(s["collections_copying"], s["collections_scavenging"]) >= 2,
                        "fewer than 2 flips (collections that copied and renewed only what they left)"),
    "generational minor": ("generational", lambda s, off: s["collections_scavenging"] >= 1,
                           "no minor collection"),
    "generational major": ("generational", lambda s, off: s["collections"] - s["collections_scavenging"] >= 1,
                           "no major collection (none freed or slid objects in the old arena)"),
    "refcount free": ("refcount", lambda s, off: s["collections_freeing"] >= 1,
                      "no reconciliation freed an object"),
    "refcount cascade": ("refcount", lambda s, off: s["collections_freeing_survivors"] >= 1,
                         "no cascade (no reconciliation freed 2 objects that had survived an earlier one, "
                         "one able to refer to others)"),
}


def pattern_gaps(s, off, cycles):
    """{KEY: what is missing} for the pattern the run did not show."""
    gaps = {key: missing for key, (gc, shown, missing) in GAPS.items() if not shown(s[gc], off)}
    extra = s["refcount"]["objects_freed"] - off["objects_freed"]
    if cycles == "yes" and extra <= 0:
        gaps["refcount cycles"] = (f"no garbage cycle collected ({s['refcount']['objects_freed']} objects freed, "
                                   f"as many with --rc-cycles=off)")
    if cycles == "none" and extra != 0:
        gaps["refcount cycles"] = f"the README says none, but cycle collection freed {extra} more objects"
    return gaps


def summary(gc, s, off):
    if gc == "marksweep":
        return f"{s['collections']} collections, {s['collections_freeing']} freeing"
    if gc == "markcompact":
        return f"{s['collections']} collections, {s['collections_sliding']} sliding"
    if gc == "semispace":
        return f"{s['collections']} collections, {min(s['collections_copying'], s['collections_scavenging'])} flips"
    if gc == "generational":
        minor = s["collections_scavenging"]
        return f"{s['collections']} collections, {minor} minor, {s['collections'] - minor} major"
    return (f"{s['collections']} reconciliations, {s['collections_freeing']} freeing, "
            f"{s['collections_freeing_survivors']} with cascades, "
            f"{s['objects_freed'] - off['objects_freed']} objects freed by cycle collection")


def readme_row(source_dir, name):
    """NAME's row of the README's table: (command, cycles, not shown), or None."""
    with open(os.path.join(source_dir, "examples", "README.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0] == f"`{name}`":
                return cells[1].strip("`"), cells[2], cells[3]
    return None


def run(vmrun, source_dir, command, gc, extra, workdir):
    stats = os.path.join(workdir, f"{gc}{''.join(extra)}.json")
    argv = [vmrun, f"--gc={gc}", "--seed=1", f"-agentlib:gcstats=file={stats}", *extra, *shlex.split(command)]
    result = subprocess.run(argv, cwd=source_dir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    return result, stats


def main():
    vmrun, source_dir, name, *mode = sys.argv[1:]
    table = mode == ["--table"]
    vmrun = os.path.abspath(vmrun)
    row = readme_row(source_dir, name)
    if row is None:
        print(f"{name}: no row in examples/README.md's table \"Watch them collect\"")
        return 1
    command, cycles_cell, not_shown_cell = row
    if f"examples/{name}.gcl" not in shlex.split(command):
        print(f"{name}: the README's command `{command}` does not run examples/{name}.gcl")
        return 1
    cycles = {"collects cycles": "yes", "none to collect": "none", "no garbage": "no garbage"}.get(cycles_cell)
    if cycles is None:
        print(f"{name}: the README's cycles column says '{cycles_cell}', not one of "
              "'collects cycles', 'none to collect', 'no garbage'")
        return 1
    not_shown = {}
    for item in filter(None, (i.strip() for i in not_shown_cell.split(";"))):
        key, _, why = item.partition(":")
        if item != "-" and (key not in GAPS or not why.strip()):
            print(f"{name}: the README's last column lists '{item}', not 'KEY: why' with KEY one of {', '.join(GAPS)}")
            return 1
        if item != "-":
            not_shown[key] = why.strip()
    status = int(side_file(os.path.join(source_dir, "examples", name), ".status", "0"))
    failures, figures, outputs = [], {}, {}
    with tempfile.TemporaryDirectory() as workdir:
        for gc, extra in [(gc, []) for gc in COLLECTORS] + [("refcount", ["--rc-cycles=off"])]:
            result, path = run(vmrun, source_dir, command, gc, extra, workdir)
            key = gc + "".join(f" {e}" for e in extra)
            outputs[key] = result.stdout
            if result.returncode != status:
                failures.append(f"{name} under {key}: status {result.returncode}, expected {status}: "
                                f"{result.stderr[-300:]}")
                continue
            with open(path) as f:
                figures[key] = json.load(f)
    for key, output in outputs.items():
        if output != outputs["marksweep"]:
            failures.append(f"{name} under {key}: the output differs from marksweep's")
    if failures:
        print("\n".join(failures))
        return 1
    off = figures["refcount --rc-cycles=off"]
    for gc in COLLECTORS:
        print(f"{name} {gc}: {summary(gc, figures[gc], off)}")
    if table:
        return 0
    if cycles == "no garbage":
        failures = [f"{name} under {gc}: no collection" for gc in COLLECTORS if figures[gc]["collections"] < 1]
    else:
        gaps = pattern_gaps(figures, off, cycles)
        for key, missing in gaps.items():
            if key not in not_shown:
                failures.append(f"{name} under {key.split()[0]}: {missing}")
        for key, why in not_shown.items():
            if key not in gaps:
                failures.append(f"{name}: the README says it does not show '{key}' ({why}), but the run shows it")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"{name}: every collector collects in its pattern" +
          (f", except (as the README says) {', '.join(not_shown)}" if not_shown else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
