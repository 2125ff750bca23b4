#!/usr/bin/env python3
"""refcount_modes.py -- refcount's two modes side by side in one heapview
page (docs/heapview.md, `--run=refcount:deferred,refcount:immediate`).

    refcount_modes.py PAGE.html

The page's own data (the JSON block heapview-data) must hold the two runs,
named by their modes, and show the difference on the LRU cache: deferred
frees the evictions in a few batches, immediate two objects (an evicted
entry and its value) in each of its many collections.
"""
import json
import re
import sys

page = open(sys.argv[1]).read()
data = re.search(r'id="heapview-data">(.*?)</script>', page, re.S)
if not data:
    sys.exit("no heapview-data block in the page")
runs = [(r["collector"], len(r["gcs"]), r["totals"]["freed"][0]) for r in json.loads(data.group(1))["runs"]]
problems = []
if [name for name, _, _ in runs] != ["refcount:deferred", "refcount:immediate"]:
    problems.append(f"the runs are {runs}, not refcount:deferred and refcount:immediate")
else:
    (_, deferred_gcs, deferred_freed), (_, immediate_gcs, immediate_freed) = runs
    if not (0 < deferred_gcs < 5 and deferred_freed > 1000):
        problems.append(f"deferred: {deferred_gcs} collections freed {deferred_freed}, not a few large batches")
    if not (immediate_gcs > 1000 and immediate_freed == 2 * immediate_gcs):
        problems.append(f"immediate: {immediate_gcs} collections freed {immediate_freed}, not two in each")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
