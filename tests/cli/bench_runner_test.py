#!/usr/bin/env python3
"""bench_runner_test.py -- the benchmark runner, examples/bench/bench.py,
works: its quick mode runs every benchmark under every collector and every
peer this machine has, all of them print the same checksums, and the
Markdown table and the SVG it writes are well formed.  No timing is ever
asserted.  Also checks, on made-up runs, the parts that decide: a peer
printing one byte differently or failing is caught, and the --gc-log
summary line is read right.

Usage: VMRUN=build/bin/vmrun python3 tests/cli/bench_runner_test.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "bench"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import bench  # noqa: E402  (the runner under test, found through the path above)

SVG = "{http://www.w3.org/2000/svg}"


def peers_present():
    """The peer rows the runner must write on this machine."""
    peers = []
    if shutil.which("lua5.4"):
        peers.append("lua5.4")
    if shutil.which("luajit"):
        peers += ["luajit", "luajit-joff"]
    if shutil.which("python3"):
        peers.append("python3")
    if shutil.which("java") and shutil.which("javac"):
        peers += ["java-int", "java-serial"]
    return peers


def table_after(markdown, heading):
    """The rows (lists of cells) of the first Markdown table after heading,
    checking that every row has as many cells as the header."""
    lines = markdown[markdown.index(heading):].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| "))
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        assert line.endswith(" |") or line.endswith("|"), line
        rows.append([item.strip() for item in line.strip("|").split("|")])
    header, separator, body = rows[0], rows[1], rows[2:]
    assert all(item == "---" for item in separator), separator
    for row in body:
        assert len(row) == len(header), (header, row)
    return header, body


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


class QuickRun(unittest.TestCase):
    """bench.py --quick end to end, once for all the checks below."""

    @classmethod
    def setUpClass(cls):
        cls.vmrun = os.environ["VMRUN"]
        cls.collectors = bench.collectors_of(cls.vmrun)
        cls.out = tempfile.mkdtemp(prefix="bench-runner-test.")
        cls.done = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "bench", "bench.py"),
                                   "--quick", "--vmrun", cls.vmrun, "--out", cls.out],
                                  capture_output=True, text=True)
        with open(os.path.join(cls.out, "bench.md")) as markdown:
            cls.markdown = markdown.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out)

    def test_every_run_succeeded_and_agreed(self):
        self.assertEqual(self.done.returncode, 0, self.done.stderr[-2000:])
        self.assertEqual(self.done.stdout, self.markdown)

    def test_benchmark_table_has_every_runtime_agreeing(self):
        header, rows = table_after(self.markdown, "## Benchmarks")
        self.assertEqual(header[:3], ["benchmark", "runtime", "median s"])
        runtimes = self.collectors + peers_present()
        expected = [(name, runtime) for name in bench.BENCHMARKS for runtime in runtimes]
        self.assertEqual([(row[0], row[1]) for row in rows], expected)
        for row in rows:
            cells = dict(zip(header, row))
            self.assertEqual(cells["output"], "ok", row)
            self.assertTrue(is_number(cells["median s"]), row)
            low, _, high = cells["min-max s"].partition("-")
            self.assertLessEqual(float(low), float(high), row)
            self.assertTrue(is_number(row[4]), row)  # the ratio to the baseline
            self.assertTrue(is_number(cells["CPU s"]), row)
            gc_cells = [cells["GCs"], cells["GC total ms"], cells["max pause ms"]]
            if row[1] in self.collectors:
                self.assertTrue(all(is_number(value) for value in gc_cells), row)
            else:
                self.assertEqual(gc_cells, ["-", "-", "-"], row)
        # Allocation-heavy programs make refcount free objects: at least one collection.
        refcount = [dict(zip(header, row)) for row in rows if row[1] == "refcount" and row[0] == "binary_trees"]
        if refcount:
            self.assertGreater(int(refcount[0]["GCs"]), 0)

    def test_curve_table_has_every_point(self):
        header, rows = table_after(self.markdown, "## Pause and cost curves")
        live_sizes = bench.CURVE_LIVE_CELLS[1]
        self.assertEqual([(row[0], int(row[1])) for row in rows],
                         [(gc, live) for gc in self.collectors for live in live_sizes])
        for row in rows:
            self.assertEqual(row[-1], "ok", row)
            self.assertTrue(all(is_number(value) for value in row[2:-1]), row)

    def test_svg_is_well_formed_with_a_curve_per_collector(self):
        root = ElementTree.parse(os.path.join(self.out, "curves.svg")).getroot()
        self.assertEqual(root.tag, SVG + "svg")
        width, height = float(root.get("width")), float(root.get("height"))
        polylines = root.findall(SVG + "polyline")
        # Two panels (total GC time, longest pause), one curve per collector in each.
        self.assertEqual(sorted(line.get("class") for line in polylines), sorted(self.collectors * 2))
        for line in polylines:
            points = [tuple(map(float, point.split(","))) for point in line.get("points").split()]
            self.assertEqual(len(points), len(bench.CURVE_LIVE_CELLS[1]))
            xs = [x for x, _ in points]
            self.assertEqual(xs, sorted(xs), "live sizes increase along a curve")
            for x, y in points:
                self.assertTrue(0 <= x <= width and 0 <= y <= height, (x, y))
        texts = [text.text for text in root.iter(SVG + "text")]
        for gc in self.collectors:
            self.assertIn(gc, texts)


def made_up_run(stdout, status=0, stderr=""):
    return bench.Run(0.1, 0.1, 1000, status, stdout, stderr, bench.parse_gc_summary(stderr))


class Verdicts(unittest.TestCase):
    def test_agreeing_runs_are_ok(self):
        verdict = bench.verdicts({"marksweep": [made_up_run(b"fib(5) = 5\n")] * 2,
                                  "lua5.4": [made_up_run(b"fib(5) = 5\n")]})
        self.assertEqual(verdict, {"marksweep": "ok", "lua5.4": "ok"})

    def test_one_byte_of_difference_is_caught(self):
        verdict = bench.verdicts({"marksweep": [made_up_run(b"fib(5) = 5\n")],
                                  "python3": [made_up_run(b"fib(5) = 5\n"), made_up_run(b"fib(5) = 5 \n")]})
        self.assertEqual(verdict["python3"], "output differs")

    def test_a_failure_names_its_reason(self):
        failed = made_up_run(b"", 1, "[gc 1] semispace major\nvmrun: out of memory: heap of 262144 bytes\n")
        verdict = bench.verdicts({"marksweep": [made_up_run(b"x\n")], "semispace": [failed]})
        self.assertEqual(verdict["semispace"], "failed, status 1: vmrun: out of memory: heap of 262144 bytes")


class GcSummary(unittest.TestCase):
    LINE = ("[gc] semispace: 40 collections (0 minor, 40 major, 0 cycle), pause total 913.687 ms, "
            "longest 102.972 ms; 10800018 objects allocated (329.7 MiB), 9817600 freed, 32000440 moved "
            "(980.4 MiB); peak RSS 70012 KiB")

    def test_the_closing_line_is_read(self):
        stderr = "[gc 1] semispace major (alloc): 5 -> 3 objects\n" + self.LINE + "\n"
        self.assertEqual(bench.parse_gc_summary(stderr),
                         {"collections": 40, "pause_total_ms": 913.687, "pause_max_ms": 102.972,
                          "objects": 10800018, "allocated_mib": 329.7})

    def test_no_summary_means_no_figures(self):
        self.assertEqual(bench.parse_gc_summary("[gc 1] semispace major (alloc): 5 -> 3 objects\n"), {})


class Ticks(unittest.TestCase):
    def test_ticks_cover_the_top_in_round_steps(self):
        self.assertEqual(bench.nice_ticks(4.2), [0, 1, 2, 3, 4, 5])
        self.assertEqual(bench.nice_ticks(48.4), [0, 10, 20, 30, 40, 50])
        self.assertEqual(bench.nice_ticks(0), [0, 0.2, 0.4, 0.6, 0.8, 1.0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
