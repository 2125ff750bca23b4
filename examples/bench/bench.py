#!/usr/bin/env python3
"""bench.py -- gclab's benchmark instrument: every benchmark under every
collector and every peer runtime present, and pause and cost curves.

Each benchmark is one program written five times, NAME.gcl, NAME.lua (run
by lua5.4, luajit and `luajit -joff`), NAME.py and NAME.java (run by
`java -Xint` and by `java -XX:+UseSerialGC`), the same algorithm printing
the same checksum; a run whose output differs from the others' by one byte
counts as a failure, and so does a run that fails.  The runs take turns
(one of each runtime, then again), so that a slow moment of a shared
machine hits them all alike.  The results go to OUT/bench.md, a Markdown
table: median wall time, min-max, the ratio to a baseline runtime's median,
peak RSS (the child's ru_maxrss), and for gclab the collections and the
total and longest GC pause from vmrun's own `--gc-log` summary line.

The curves run pause_curve.gcl (a live set of a chosen size, a fixed
volume of garbage around it) at several live sizes under every collector,
and draw the total GC time and the longest pause against the live data in
OUT/curves.svg, with the points in OUT/bench.md.

No timing is ever a pass or fail: the exit status is 0 when every run
succeeded and agreed, 1 otherwise (the table is written either way), 2 for
a usage error.  See README.md beside this script for the commands.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (full-size arguments, --quick arguments).  The full sizes are the
# programs' own defaults; gcbench's are the published GCBench constants.
BENCHMARKS = {
    "binary_trees": (["16"], ["10"]),
    "gcbench": (["16", "500000"], ["10", "20000"]),
    "fib": (["37"], ["22"]),
    "loop": (["100000000"], ["200000"]),
    "list_churn": (["1000000"], ["20000"]),
    "cycles": (["200000"], ["2000"]),
}

# The curves: live sizes (cells of 32 bytes) and the garbage around them.
CURVE_LIVE_CELLS = ([0, 100000, 200000, 400000, 600000, 800000], [0, 15000, 30000, 60000])
CURVE_GARBAGE_CELLS = (10000000, 400000)
# A fixed heap, so that a point's cost depends on its live size alone (the
# default heap may follow the live set); --curve-heap changes it.
CURVE_HEAP = ("64m", "8m")

PEERS = ["lua5.4", "luajit", "luajit-joff", "python3", "java-int", "java-serial"]
DEFAULT_BASELINE = "lua5.4"


@dataclass
class Runtime:
    name: str                 # as in the table and in --runtimes
    prefix: list              # the command before the program
    kind: str                 # gcl, lua, py or java
    collector: str = None     # gclab's collector, None for a peer

    def command(self, benchmark, args, workdir):
        if self.kind == "gcl":
            return self.prefix + [os.path.join(workdir, benchmark + ".bc")] + args
        if self.kind == "java":
            return self.prefix + ["-cp", os.path.join(workdir, "java"), java_class(benchmark)] + args
        return self.prefix + [os.path.join(HERE, benchmark + "." + self.kind)] + args


@dataclass
class Run:
    seconds: float            # wall time
    cpu_seconds: float        # user + system time of the process and its children
    rss_kib: int              # None without GNU time
    status: int
    stdout: bytes
    stderr: str
    gc: dict = field(default_factory=dict)

    def failure(self):
        """One line saying why the run failed, or None."""
        if self.status == 0:
            return None
        lines = [line for line in self.stderr.splitlines() if line and not line.startswith("[gc")]
        reason = next((line for line in lines if "out of memory" in line), lines[-1] if lines else "")
        return f"status {self.status}: {reason}".strip()


def java_class(benchmark):
    """binary_trees.java holds class BinaryTrees."""
    return "".join(part.capitalize() for part in benchmark.split("_"))


def parse_gc_summary(stderr):
    """The figures of vmrun --gc-log's closing summary line (gc/common/
    collect.c), e.g. "[gc] semispace: 40 collections (0 minor, 40 major,
    0 cycle), pause total 913.687 ms, longest 102.972 ms; 10800018 objects
    allocated (329.7 MiB), ...".  Each figure is looked for on its own, so
    that new figures on the line do not break the others; a missing one is
    left out of the result."""
    summaries = [line for line in stderr.splitlines() if line.startswith("[gc] ")]
    if not summaries:
        return {}
    line = summaries[-1]
    patterns = {
        "collections": (r"(\d+) collections", int),
        "pause_total_ms": (r"pause total ([0-9.]+) ms", float),
        "pause_max_ms": (r"longest ([0-9.]+) ms", float),
        "objects": (r"(\d+) objects allocated", int),
        "allocated_mib": (r"objects allocated \(([0-9.]+) MiB\)", float),
    }
    figures = {}
    for key, (pattern, convert) in patterns.items():
        match = re.search(pattern, line)
        if match:
            figures[key] = convert(match.group(1))
    return figures


# Peak RSS comes from GNU time (%M, the child's ru_maxrss), not from this
# process's own wait4: Linux keeps a process's high-water RSS across exec,
# so a child forked from this Python would report Python's size as its own
# for a program smaller than that; GNU time forks from a process of ~2 MiB.
GNU_TIME = "/usr/bin/time"


def have_gnu_time():
    return os.access(GNU_TIME, os.X_OK) and subprocess.run(
        [GNU_TIME, "-f", "%M", "-o", os.devnull, "true"], capture_output=True).returncode == 0


def measure(command, rss_file):
    """Runs command once: wall and CPU time, peak RSS (when rss_file, a
    scratch file for GNU time, is given), output and --gc-log figures."""
    if rss_file:
        command = [GNU_TIME, "-f", "%M", "-o", rss_file] + command
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, wait_status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = status = os.waitstatus_to_exitcode(wait_status)
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        rss_kib = None
        if rss_file:
            with open(rss_file) as rss:
                # On failure GNU time writes "Command exited with non-zero status N" first.
                last = rss.read().split()
                rss_kib = int(last[-1]) if last and last[-1].isdigit() else None
        return Run(seconds, usage.ru_utime + usage.ru_stime, rss_kib, status, out.read(), stderr, parse_gc_summary(stderr))


def note(message):
    print("bench.py: " + message, file=sys.stderr)


def first_line(command):
    """The first line a version command prints (to stdout or stderr)."""
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except OSError:
        return ""
    text = (done.stdout + done.stderr).strip()
    return text.splitlines()[0] if text else ""


def collectors_of(vmrun):
    """vmrun's collectors, from the list it gives when it rejects a name:
    "vmrun: unknown collector '' (available: marksweep, markcompact, ...)"."""
    done = subprocess.run([vmrun, "--gc="], capture_output=True, text=True)
    match = re.search(r"\(available: (.*)\)", done.stderr)
    if not match:
        sys.exit(f"bench.py: {vmrun} did not list its collectors")
    return [name.strip() for name in match.group(1).split(",")]


def available_runtimes(vmrun, vmargs):
    """Every runtime this machine has, gclab's collectors first, and a note
    on stderr for each peer that is absent.  Returns (runtimes, versions)."""
    runtimes = [Runtime(gc, [vmrun, "--gc=" + gc, "--gc-log"] + vmargs, "gcl", gc) for gc in collectors_of(vmrun)]
    versions = {}
    lua = shutil.which("lua5.4")
    if lua:
        runtimes.append(Runtime("lua5.4", [lua], "lua"))
        versions["lua5.4"] = first_line([lua, "-v"])
    else:
        note("lua5.4 not found: skipped")
    luajit = shutil.which("luajit")
    if luajit:
        runtimes.append(Runtime("luajit", [luajit], "lua"))
        runtimes.append(Runtime("luajit-joff", [luajit, "-joff"], "lua"))
        versions["luajit"] = first_line([luajit, "-v"])
    else:
        note("luajit not found: luajit and luajit-joff skipped")
    python = shutil.which("python3")
    if python:
        # The interpreter itself, not a launcher script (pyenv's shims) in front of it.
        python = first_line([python, "-c", "import sys; print(sys.executable)"]) or python
        runtimes.append(Runtime("python3", [python], "py"))
        versions["python3"] = first_line([python, "--version"])
    else:
        note("python3 not found: skipped")
    java, javac = shutil.which("java"), shutil.which("javac")
    if java and javac:
        runtimes.append(Runtime("java-int", [java, "-Xint"], "java"))
        runtimes.append(Runtime("java-serial", [java, "-XX:+UseSerialGC"], "java"))
        versions["java"] = first_line([java, "-version"])
    else:
        note("java or javac not found: java-int and java-serial skipped")
    return runtimes, versions


def select_runtimes(available, wanted):
    """The runtimes named in --runtimes ("gclab" names every collector), in
    the order given; a peer named but absent is skipped (noted already)."""
    if not wanted:
        return available
    by_name = {runtime.name: runtime for runtime in available}
    chosen = []
    for name in wanted.split(","):
        if name == "gclab":
            chosen += [runtime for runtime in available if runtime.collector]
        elif name in by_name:
            chosen.append(by_name[name])
        elif name not in PEERS:
            note(f"no runtime named '{name}' (have: gclab, {', '.join(by_name)})")
            sys.exit(2)
    return chosen


def prepare(benchmarks, runtimes, vmrun, workdir):
    """Compiles once, outside the timing: each NAME.gcl with vmc (beside
    vmrun) and every NAME.java with one javac."""
    if any(runtime.kind == "gcl" for runtime in runtimes):
        vmc = os.path.join(os.path.dirname(vmrun), "vmc")
        for name in benchmarks:
            subprocess.run([vmc, os.path.join(HERE, name + ".gcl"), "-o", os.path.join(workdir, name + ".bc")],
                           check=True)
    if any(runtime.kind == "java" for runtime in runtimes):
        subprocess.run([shutil.which("javac"), "-d", os.path.join(workdir, "java")]
                       + [os.path.join(HERE, name + ".java") for name in benchmarks], check=True)


def run_benchmarks(benchmarks, runtimes, sizes, reps, workdir, rss_file):
    """Runs every benchmark under every runtime, reps rounds of one run
    each in turn.  Returns {benchmark: {runtime name: [Run]}}."""
    results = {}
    for name in benchmarks:
        results[name] = {runtime.name: [] for runtime in runtimes}
        for rep in range(reps):
            for runtime in runtimes:
                note(f"{name} {' '.join(sizes[name])}: {runtime.name} ({rep + 1}/{reps})")
                results[name][runtime.name].append(measure(runtime.command(name, sizes[name], workdir), rss_file))
    return results


def verdicts(runs_by_runtime):
    """{runtime name: "ok" or why not}: every run must succeed and print
    what the first successful run of the first runtime printed."""
    reference = next((run.stdout for runs in runs_by_runtime.values() for run in runs if run.status == 0), None)
    result = {}
    for name, runs in runs_by_runtime.items():
        failure = next((run.failure() for run in runs if run.status != 0), None)
        if failure:
            result[name] = "failed, " + failure
        elif any(run.stdout != reference for run in runs):
            result[name] = "output differs"
        else:
            result[name] = "ok"
    return result


def cell(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def rss_cell(runs):
    """The largest peak RSS of runs, in MiB."""
    sizes = [run.rss_kib for run in runs]
    return "-" if None in sizes else cell(max(sizes) / 1024, 1)


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(item).replace("|", "/") for item in row) + " |" for row in rows]
    return "\n".join(lines)


def benchmark_table(results, baseline):
    """The Markdown table of the benchmark runs, and how many failed."""
    header = ["benchmark", "runtime", "median s", "min-max s", f"x {baseline}", "CPU s", "peak RSS MiB",
              "GCs", "GC total ms", "max pause ms", "output"]
    rows, problems = [], 0
    for name, runs_by_runtime in results.items():
        verdict = verdicts(runs_by_runtime)
        medians = {runtime: statistics.median(run.seconds for run in runs) if verdict[runtime] == "ok" else None
                   for runtime, runs in runs_by_runtime.items()}
        base = medians.get(baseline)
        for runtime, runs in runs_by_runtime.items():
            problems += verdict[runtime] != "ok"
            median = medians[runtime]
            seconds = [run.seconds for run in runs]
            gc_runs = [run.gc for run in runs if "collections" in run.gc]
            rows.append([
                name, runtime, cell(median), f"{min(seconds):.2f}-{max(seconds):.2f}",
                cell(median / base) if median is not None and base else "-",
                cell(statistics.median(run.cpu_seconds for run in runs)),
                rss_cell(runs),
                str(int(statistics.median(g["collections"] for g in gc_runs))) if gc_runs else "-",
                cell(statistics.median(g["pause_total_ms"] for g in gc_runs), 1) if gc_runs else "-",
                cell(max(g["pause_max_ms"] for g in gc_runs), 1) if gc_runs else "-",
                verdict[runtime]])
    return markdown_table(header, rows), problems


def run_curves(collectors, vmrun, vmargs, live_sizes, garbage, reps, rss_file):
    """pause_curve.gcl at each live size under each collector, taking
    turns.  Returns ({collector: [(live MiB, GC total ms, longest ms)]},
    Markdown rows, failures).  A run out of memory leaves its point out
    (a fixed heap too small for that live size is a result, not a fault)."""
    program = os.path.join(HERE, "pause_curve.gcl")
    runs = {(gc, live): [] for gc in collectors for live in live_sizes}
    for rep in range(reps):
        for live in live_sizes:
            for gc in collectors:
                note(f"pause_curve {live} {garbage}: {gc} ({rep + 1}/{reps})")
                runs[(gc, live)].append(measure([vmrun, "--gc=" + gc, "--gc-log"] + vmargs
                                                + [program, str(live), str(garbage)], rss_file))
    points = {gc: [] for gc in collectors}
    rows, failures = [], 0
    for gc in collectors:
        for live in live_sizes:
            done = runs[(gc, live)]
            failure = next((run.failure() for run in done if run.status != 0), None)
            if failure or any("pause_total_ms" not in run.gc for run in done):
                failed = failure is None or "out of memory" not in failure
                failures += failed
                rows.append([gc, live, "-", "-", "-", "-", "-", "-", failure or "no --gc-log summary"])
                continue
            gc_runs = [run.gc for run in done]
            bytes_per_object = gc_runs[0]["allocated_mib"] / max(gc_runs[0]["objects"], 1)
            live_mib = live * bytes_per_object
            total = statistics.median(g["pause_total_ms"] for g in gc_runs)
            longest = statistics.median(g["pause_max_ms"] for g in gc_runs)
            points[gc].append((live_mib, total, longest))
            rows.append([gc, live, cell(live_mib, 1), str(int(statistics.median(g["collections"] for g in gc_runs))),
                         cell(total, 1), cell(longest, 2), cell(statistics.median(r.seconds for r in done)),
                         rss_cell(done), "ok"])
    return points, rows, failures


# ---- the SVG: two panels, total GC time and longest pause against live MiB --

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]


def nice_ticks(top):
    """0, step, 2 step, ... covering top, with step 1, 2 or 5 times a power of ten."""
    top = top if top > 0 else 1.0
    magnitude = 10 ** int(f"{top / 5:e}".split("e")[1])
    step = next(m * magnitude for m in (1, 2, 5, 10) if top / (m * magnitude) <= 5)
    count = int(top / step - 1e-9) + 1
    return [round(step * k, 12) for k in range(count + 1)]


def tick_label(value):
    return f"{value:g}"


def svg_panel(x0, y0, width, height, title, series, value_index, y_label):
    """One panel's SVG elements: axes, ticks, a polyline per collector."""
    xs = [p[0] for points in series.values() for p in points]
    ys = [p[value_index] for points in series.values() for p in points]
    x_ticks, y_ticks = nice_ticks(max(xs, default=1)), nice_ticks(max(ys, default=1))

    def at(x, y):
        return (x0 + width * x / x_ticks[-1], y0 + height - height * y / y_ticks[-1])

    parts = [f'<text x="{x0 + width / 2}" y="{y0 - 12}" text-anchor="middle" font-weight="bold">{title}</text>',
             f'<rect x="{x0}" y="{y0}" width="{width}" height="{height}" fill="none" stroke="#444"/>']
    for tick in x_ticks:
        x, _ = at(tick, 0)
        parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y0 + height}" stroke="#ddd"/>')
        parts.append(f'<text x="{x:.1f}" y="{y0 + height + 16}" text-anchor="middle">{tick_label(tick)}</text>')
    for tick in y_ticks:
        _, y = at(0, tick)
        parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{tick_label(tick)}</text>')
    parts.append(f'<text x="{x0 + width / 2}" y="{y0 + height + 36}" text-anchor="middle">live data (MiB)</text>')
    parts.append(f'<text transform="translate({x0 - 48},{y0 + height / 2}) rotate(-90)" '
                 f'text-anchor="middle">{y_label}</text>')
    for colour, (gc, points) in zip(PALETTE * 3, series.items()):
        coordinates = [at(p[0], p[value_index]) for p in points]
        if coordinates:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coordinates)
            parts.append(f'<polyline class="{gc}" points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
            parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"/>' for x, y in coordinates]
    return parts


def curves_svg(points, subtitle):
    width, height, panel_w, panel_h = 960, 440, 360, 280
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">GC cost against live data '
             f'(pause_curve.gcl, {subtitle})</text>']
    parts += svg_panel(90, 70, panel_w, panel_h, "total GC time", points, 1, "ms")
    parts += svg_panel(560, 70, panel_w, panel_h, "longest pause", points, 2, "ms")
    legend_x = 90
    for colour, gc in zip(PALETTE * 3, points):
        parts.append(f'<line x1="{legend_x}" y1="{height - 22}" x2="{legend_x + 24}" y2="{height - 22}" '
                     f'stroke="{colour}" stroke-width="3"/>')
        parts.append(f'<text x="{legend_x + 30}" y="{height - 18}">{gc}</text>')
        legend_x += 150
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{model or os.uname().machine}, {os.cpu_count()} CPUs, {os.uname().sysname} {os.uname().release}"


def parse_arguments():
    parser = argparse.ArgumentParser(
        description="Runs gclab's benchmarks under every collector and every peer present, "
                    "and draws the pause and cost curves.",
        epilog="Exit status: 0 if every run succeeded and agreed, 1 if not, 2 for a usage error.")
    parser.add_argument("benchmarks", nargs="*", metavar="BENCHMARK",
                        help=f"benchmarks to run (default all: {', '.join(BENCHMARKS)})")
    parser.add_argument("--quick", action="store_true", help="small sizes and 1 run each (a check that all works)")
    parser.add_argument("--reps", type=int, help="runs per benchmark and runtime (default 3, --quick 1)")
    parser.add_argument("--runtimes", metavar="LIST",
                        help="comma-separated: gclab (every collector) or a collector's name, "
                             f"and peers among {', '.join(PEERS)} (default: all present)")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, metavar="RUNTIME",
                        help=f"the runtime the ratios divide by (default {DEFAULT_BASELINE})")
    parser.add_argument("--size", action="append", default=[], metavar="NAME=ARGS",
                        help="a benchmark's arguments instead of the default, e.g. --size binary_trees=21")
    parser.add_argument("--vmargs", default="", metavar="OPTIONS",
                        help='extra vmrun options for every gclab run, e.g. --vmargs="--heap=256m"')
    parser.add_argument("--no-table", action="store_true", help="skip the benchmarks, draw the curves only")
    parser.add_argument("--no-curves", action="store_true", help="skip the curves")
    parser.add_argument("--curve-heap", metavar="SIZE",
                        help=f"vmrun's --heap for the curves (default {CURVE_HEAP[0]}, --quick {CURVE_HEAP[1]})")
    parser.add_argument("--out", default="bench-results", metavar="DIR",
                        help="where bench.md and curves.svg go (default ./bench-results)")
    parser.add_argument("--vmrun", default=os.environ.get("VMRUN", os.path.join(HERE, "..", "..", "build", "bin", "vmrun")),
                        help="the vmrun to measure (default $VMRUN, or build/bin/vmrun of this tree)")
    options = parser.parse_args()
    if options.reps is None:
        options.reps = 1 if options.quick else 3
    if options.reps < 1:
        parser.error("--reps needs a positive number")
    for name in options.benchmarks:
        if name not in BENCHMARKS:
            parser.error(f"no benchmark named '{name}' (have: {', '.join(BENCHMARKS)})")
    options.benchmarks = options.benchmarks or list(BENCHMARKS)
    options.sizes = {name: list(sizes[1] if options.quick else sizes[0]) for name, sizes in BENCHMARKS.items()}
    for setting in options.size:
        name, _, args = setting.partition("=")
        if name not in BENCHMARKS or not args.split():
            parser.error(f"--size needs NAME=ARGS with a benchmark's name, not '{setting}'")
        options.sizes[name] = args.split()
    if not os.access(options.vmrun, os.X_OK):
        parser.error(f"no vmrun at {options.vmrun} (build it, or set VMRUN or --vmrun)")
    options.vmrun = os.path.abspath(options.vmrun)
    return options


def main():
    options = parse_arguments()
    vmargs = options.vmargs.split()
    available, versions = available_runtimes(options.vmrun, vmargs)
    runtimes = select_runtimes(available, options.runtimes)
    if not runtimes:
        sys.exit("bench.py: none of the runtimes asked for is on this machine")
    collectors = [runtime.collector for runtime in runtimes if runtime.collector]
    baseline = options.baseline if options.baseline in (r.name for r in runtimes) else runtimes[0].name
    if baseline != options.baseline:
        note(f"baseline {options.baseline} is not among the runtimes: ratios are to {baseline}")

    os.makedirs(options.out, exist_ok=True)
    report = [f"# gclab benchmarks, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
              f"Machine: {machine()}.  Wall-clock times of whole processes on a machine that may be "
              f"shared: treat them as noisy.  {options.reps} run(s) per cell, taking turns; "
              f"{'quick' if options.quick else 'full'} sizes.  "
              f"vmrun options: --gc=NAME --gc-log {options.vmargs}".rstrip() + ".",
              "", "Peers: " + ("; ".join(f"{name}: {version}" for name, version in versions.items()) or "none") + "."]
    problems = 0
    with tempfile.TemporaryDirectory(prefix="gclab-bench.") as workdir:
        rss_file = os.path.join(workdir, "rss") if have_gnu_time() else None
        if not rss_file:
            note(f"no GNU time at {GNU_TIME}: peak RSS not measured")
        if not options.no_table:
            prepare(options.benchmarks, runtimes, options.vmrun, workdir)
            results = run_benchmarks(options.benchmarks, runtimes, options.sizes, options.reps, workdir, rss_file)
            table, problems = benchmark_table(results, baseline)
            sizes = ", ".join(f"{name} {' '.join(options.sizes[name])}" for name in options.benchmarks)
            report += ["", "## Benchmarks", "", f"Arguments: {sizes}.", "", table]
        if not options.no_curves and collectors:
            scale = 1 if options.quick else 0
            live_sizes, garbage = CURVE_LIVE_CELLS[scale], CURVE_GARBAGE_CELLS[scale]
            curve_vmargs = vmargs + ["--heap=" + (options.curve_heap or CURVE_HEAP[scale])]
            points, rows, failures = run_curves(collectors, options.vmrun, curve_vmargs, live_sizes, garbage,
                                                options.reps, rss_file)
            problems += failures
            subtitle = f"{' '.join(curve_vmargs)}, {garbage} garbage cells, medians of {options.reps} run(s)"
            with open(os.path.join(options.out, "curves.svg"), "w") as svg:
                svg.write(curves_svg(points, subtitle))
            report += ["", "## Pause and cost curves", "",
                       f"pause_curve.gcl LIVE {garbage} under {' '.join(curve_vmargs)}: medians of "
                       f"{options.reps} run(s), drawn in curves.svg.", "",
                       markdown_table(["collector", "live cells", "live MiB", "GCs", "GC total ms", "longest ms",
                                       "wall s", "peak RSS MiB", "result"], rows)]
    text = "\n".join(report) + "\n"
    with open(os.path.join(options.out, "bench.md"), "w") as markdown:
        markdown.write(text)
    print(text, end="")
    if problems:
        note(f"{problems} run(s) failed or disagreed: see the table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
