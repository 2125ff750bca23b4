#!/usr/bin/env python3
"""behaviours.py -- shows that vmpi-conform's cells really do what its top
comment says they do beside the agent, from the stderr its JUnit XML keeps
for each cell:

    behaviours.py XML CORPUS

- check attached late in every cell, mid-run (at a METHOD_ENTRY, not at
  JVM_SHUT_DOWN), and learned at least one object by its catch-up, the
  cells of a program with a NAME.concurrent side file in CORPUS (run with
  handlers overlapping) included;
- in those cells the driver's own thread had heap dumps answered (with
  the program threads stopped, which the driver checks itself);
- the driver held GC disabled in every cell, and under every collector at
  least one hold made the heap grow past its budget (peak bytes in use
  above the heap) and a collection then brought it back within it.
"""
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

AGENT_THREAD = re.compile(r"^conform_driver: agent thread: \d+ RunGC, \d+ DisableGC, \d+ data dumps answered, (\d+) heap dumps$", re.M)
LATE = re.compile(r"^check: late: attached at event #\d+ (\S+): learned (\d+) objects in (\d+) arenas$", re.M)
DRIVER = re.compile(r"^conform_driver: ok: (\d+) holds, (\d+) grew past the heap \(peak (\d+) bytes in use, "
                    r"heap (\d+)\), (\d+) brought back within it$", re.M)


def main(argv):
    if len(argv) != 3:
        print("usage: behaviours.py XML CORPUS")
        return 1
    corpus = argv[2]
    root = ElementTree.parse(argv[1]).getroot()
    problems = []
    suites = root.findall("./testsuite")
    if not suites:
        problems.append("no testsuites")
    for suite in suites:
        gc = suite.get("name")
        grown = back = 0
        for case in suite.findall("./testcase"):
            cell = "%s under %s" % (case.get("name"), gc)
            stderr = case.findtext("system-err") or ""
            late = LATE.search(stderr)
            if os.path.exists(os.path.join(corpus, case.get("name") + ".concurrent")):
                thread = AGENT_THREAD.search(stderr)
                if not thread or int(thread.group(1)) < 1:
                    problems.append("%s: the driver's agent thread had no heap dump answered" % cell)
            if not late:
                problems.append("%s: check did not attach late" % cell)
            elif late.group(1) != "METHOD_ENTRY" or int(late.group(2)) < 1 or int(late.group(3)) < 1:
                problems.append("%s: the late attach was not mid-run, or learned nothing: %s" % (cell, late.group(0)))
            driver = DRIVER.search(stderr)
            if not driver:
                problems.append("%s: the driver gave no verdict" % cell)
                continue
            holds, grew, peak, heap, came_back = (int(g) for g in driver.groups())
            if holds < 1:
                problems.append("%s: the driver never held GC disabled" % cell)
            if grew and peak <= heap:
                problems.append("%s: %d holds grew past the heap, but the peak %d is within it" % (cell, grew, peak))
            grown += grew
            back += came_back
        if grown < 1 or back < 1:
            problems.append("%s: no hold grew past the heap and came back (%d grew, %d came back)" % (gc, grown, back))
    for problem in problems:
        print("FAIL: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
