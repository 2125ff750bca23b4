#!/usr/bin/env python3
"""lab_in_chromium.py -- the lab page (docs/lab.md) in headless Chromium,
driven through its UI as a student would drive it, against native vmrun.

usage: lab_in_chromium.py PAGE VMRUN SOURCE_DIR WORK_DIR [SCREENSHOT.png]
(native heapview is the one beside VMRUN)

  - The page opens from disk with its Content-Security-Policy in force
    (default-src 'none'), says it is ready, and breaks its own policy
    nowhere; a copy with an outside image reports a violation, which shows
    the policy is enforced.
  - Every example (examples/*.gcl, examples/bench/*.gcl) is typed into the
    editor, with its arguments and vmrun options, and run under all five
    collectors (the "all five" button, then Run): each collector's output
    and exit status must be byte-identical to native vmrun's with the same
    arguments, heap and seed, and the counts in the page's table
    (collections, objects and bytes allocated, moved and freed, arenas,
    objects live at exit) must be the gcstats agent's counts from the native
    run.  A program the browser cannot run (natives, threads) must be refused
    with the build's one message instead.
  - A compile error is shown at the line and column vmrun reports natively.
  - An endless loop is stopped at the page's time limit, and the page runs
    the next program.
  - heapview's pictures: binary_trees at depth 7 under all five collectors
    with a 64 KiB heap, drawn in the page, against native heapview's page of
    native vmrun's recordings of the same runs (the arguments `heapview
    --run` gives): each run's counts as the page adds them up, its arenas,
    classes and colours, lifetimes and the facts of every collection it
    steps through (what is reachable, freed, moved where, by which steps)
    must be the native page's, addresses taken relative to their arena;
    the screenshot of the frame must show the colours the page says it drew
    (tests/heapview/page_truth.py); and the step-through view, stepped the
    same way in both pages, must say the same words at every step.  A
    program refused before its heap existed (natives) has no pictures and no
    error about them; one refused at its first thread is drawn up to there.
  - A link with a program and settings in its fragment opens the page on
    them, and a run writes them back to the fragment.
Prints the time to ready and the time the runs took.  With SCREENSHOT, the
page opened by that link, after its run, is saved there (docs/images/lab.png
is made so).
"""
import base64
import json
import pathlib
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).parent))
sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "heapview"))
import cdp  # noqa: E402
import page_truth  # noqa: E402

COLLECTORS = ["marksweep", "markcompact", "semispace", "generational", "refcount"]
COUNTS = ["collections", "objects_allocated", "bytes_allocated", "objects_moved", "bytes_moved", "objects_freed",
          "bytes_freed", "arenas_created", "live_objects_at_exit"]
HEAP = "128k"  # small enough that the examples collect under every collector
SEED = "1"
REFUSED = "this build (WebAssembly, in a browser)"

failures = []
compared = {"runs": 0, "collections": 0, "refused": 0, "tables": 0}
# The programs whose table in the page is checked against native gccompare's
# (check_compare_table), with their arguments and heap: cycles' refcount
# frees its garbage rings at 512k, and the run with --rc-cycles=off still fits.
COMPARE_PROGRAMS = [("bench/binary_trees", ["7"], "64k"), ("cycles", ["400"], "512k")]


def fail(message):
    failures.append(message)
    print("FAIL: " + message, file=sys.stderr)


def read_if(path):
    return path.read_text().strip() if path.exists() else ""


def native_run(vmrun, program, gc, vmargs, args, work):
    stats = work / "native-gcstats.json"
    command = [vmrun, "--gc=" + gc, "--heap=" + HEAP, "--seed=" + SEED, *vmargs,
               "-agentlib:gcstats=file=" + str(stats), str(program), *args]
    done = subprocess.run(command, capture_output=True, timeout=120)
    counts = json.loads(stats.read_text()) if stats.exists() and stats.stat().st_size else None
    stats.unlink(missing_ok=True)
    return done.returncode, done.stdout.decode(), done.stderr.decode(), counts


def set_field(browser, element_id, value):
    browser.evaluate(f"document.getElementById({json.dumps(element_id)}).value = {json.dumps(value)}")


def type_program(browser, source):
    """Clears the editor and types the program into it."""
    browser.evaluate("(() => { const s = document.getElementById('source'); s.focus(); s.select(); })()")
    browser.type_text(source)
    if browser.evaluate("document.getElementById('source').value") != source:
        fail("the editor does not hold the program typed into it")


def run_in_page(browser, seconds=300):
    browser.evaluate("document.getElementById('run').click()")
    if not browser.wait_for("document.getElementById('lab-status').dataset.state === 'done'", seconds):
        raise RuntimeError("the page did not finish its runs")
    return browser.evaluate("""(() => {
        const runs = {};
        for (const section of document.querySelectorAll('#runs section')) {
            const gc = section.dataset.collector;
            const out = section.querySelector('pre.stdout'), err = section.querySelector('pre.stderr');
            runs[gc] = {status: section.dataset.status, stdout: out ? out.textContent : '',
                        stderr: err ? err.textContent : '', counts: {}};
        }
        for (const td of document.querySelectorAll('#compare [data-key]'))
            if (runs[td.dataset.collector]) runs[td.dataset.collector].counts[td.dataset.key] = td.textContent.trim();
        return runs;
    })()""")


def check_example(browser, vmrun, program, name):
    vmargs = read_if(program.with_suffix(".vmargs")).split()
    args = read_if(program.with_suffix(".args")).split()
    source = program.read_text()
    type_program(browser, source)
    set_field(browser, "args", " ".join(args))
    set_field(browser, "options", " ".join(vmargs))
    set_field(browser, "heap", HEAP)
    set_field(browser, "seed", SEED)
    browser.evaluate("document.getElementById('all').click(); document.getElementById('pictures').checked = false")
    page = run_in_page(browser)
    for gc in COLLECTORS:
        if gc not in page:
            fail(f"{name} {gc}: the page shows no run")
            continue
        shown = page[gc]
        if REFUSED in shown["stderr"]:
            # Only natives and threads are refused, and only to programs that use them.
            if not re.search(r"\bnative\b|\bstart\(", source):
                fail(f"{name} {gc}: refused, but it declares no native and starts no thread: {shown['stderr']}")
            elif shown["status"] != "1":
                fail(f"{name} {gc}: refused with status {shown['status']}, not 1")
            compared["refused"] += 1
            continue
        status, stdout, stderr, counts = native_run(vmrun, program, gc, vmargs, args, WORK)
        compared["runs"] += 1
        compared["collections"] += counts["collections"] if counts else 0
        if shown["status"] != str(status):
            fail(f"{name} {gc}: exit status {shown['status']} in the page, {status} natively ({stderr.strip()})")
        if shown["stdout"] != stdout:
            fail(f"{name} {gc}: the output differs from native vmrun's")
        for key in COUNTS:
            native = "-" if counts is None or counts.get(key) is None else str(counts[key])
            if shown["counts"].get(key) != native:
                fail(f"{name} {gc}: {key} is {shown['counts'].get(key)} in the page, {native} natively")


# ---- heapview's pictures ------------------------------------------------------------------

PICTURES_PROGRAM, PICTURES_ARGS, PICTURES_HEAP = "examples/bench/binary_trees.gcl", ["7"], "64k"
# What the page has each run record, as `heapview --run` has vmrun do (vm/tools/lab/lab.js).
RECORDING = "-agentlib:trace=file={0}.bin,format=binary,mechanism=y"
DUMPS = "-agentlib:heapdump=file={0}.dumps,max=4096"
STEPS_SHOWN = 12  # steps of the step-through view compared, one at a time

# In the open page (the lab's frame, or native heapview's page): the data's
# arenas, the page's model, each run's totals, and the step-through's words.
HEAPVIEW_FACTS = """((doc) => {
    const data = JSON.parse(doc.getElementById('heapview-data').textContent);
    const totals = {};
    for (const t of doc.querySelectorAll('table.totals')) totals[t.dataset.collector] = {...t.dataset};
    return {arenas: data.runs.map((run) => run.arenas.map((a) => [a.name, a.lo, a.span])),
            model: JSON.parse(doc.getElementById('heapview-model').textContent), totals};
})(DOC)"""
HEAPVIEW_STEPS = """((doc) => {
    const press = (label) => [...doc.querySelectorAll('header button')].find((b) => b.textContent === label).click();
    const words = () => [...doc.querySelectorAll('.events')].map((e) => e.textContent);
    const canvases = () => [...doc.querySelectorAll('canvas')].filter((c) => !c.hidden && c.height > 0 &&
        c.getBoundingClientRect().height > 0).length;
    press('step-through');
    const seen = [{words: words(), canvases: canvases()}];
    for (let i = 0; i < STEPS; i++) { press('step \u25b6'); seen.push({words: words(), canvases: canvases()}); }
    return seen;
})(DOC)"""
FRAME = "document.getElementById('heapview-frame').contentDocument"


def comparable(facts, r):
    """Run r of the page's model as the page and native heapview must agree
    on it, every address relative to its arena: wasm32's addresses are not
    Linux's, but a heap lies within its arena as natively (docs/lab.md)."""
    def where(address):
        value = int(address)
        for name, lo, span in facts["arenas"][r]:
            if int(lo, 16) <= value < int(lo, 16) + span:
                return f"{name}+{value - int(lo, 16):#x}"
        return "outside every arena"

    def relative(value):
        if isinstance(value, str) and re.fullmatch(r"\d+", value):  # the model's addresses, in decimal
            return where(value)
        if isinstance(value, list):
            return [relative(v) for v in value]
        if isinstance(value, dict):
            return {relative(k): relative(v) for k, v in value.items()}
        return value

    run = facts["model"]["runs"][r]
    return {"collector": run["collector"],
            "classes": {c["name"]: c["rgb"] for c in run["classes"]},
            "lives": {life["class"]: life for life in run["lives"]},
            "arenas": run["arenas"],
            "scenes": [{k: sorted(v) if k in ("reachable", "freed", "moved") else v
                        for k, v in relative(scene).items()} for scene in run["scenes"]]}


def native_pictures(vmrun, heapview, source):
    """Native vmrun's recordings of the page's runs, drawn by native heapview;
    and the collections gcstats counted in each.  The program is named as
    the page names it, since its class is named after its file."""
    program = WORK / "program.gcl"
    program.write_text(source)
    collections = {}
    for gc in COLLECTORS:
        base = str(WORK / gc)
        stats = WORK / "native-gcstats.json"
        subprocess.run([vmrun, "--gc=" + gc, "--heap=" + PICTURES_HEAP, "--seed=" + SEED,
                        "-agentlib:gcstats=file=" + str(stats), RECORDING.format(base), DUMPS.format(base),
                        str(program), *PICTURES_ARGS], capture_output=True, timeout=120, check=True)
        collections[gc] = str(json.loads(stats.read_text())["collections"])
    page = WORK / "native-heapview.html"
    subprocess.run([heapview, "-o", str(page), "--title=bench/binary_trees",
                    *(str(WORK / (gc + ".bin")) for gc in COLLECTORS)], check=True, timeout=120)
    return page, collections


def check_pictures(browser, vmrun, heapview, source_dir):
    program = source_dir / PICTURES_PROGRAM
    browser.evaluate("document.getElementById('example').value = 'bench/binary_trees';"
                     " document.getElementById('example').dispatchEvent(new Event('change'))")
    set_field(browser, "args", " ".join(PICTURES_ARGS))
    set_field(browser, "heap", PICTURES_HEAP)
    set_field(browser, "seed", SEED)
    set_field(browser, "limit", "60")
    browser.evaluate("document.getElementById('all').click(); document.getElementById('pictures').checked = true")
    # A viewport that holds the whole page (the screenshot below needs no
    # scrolling), as wide as makes the frame 1400 pixels wide (the page's
    # margins and scroll bar: 71), the width heapview's own test draws at.
    browser.call("Emulation.setDeviceMetricsOverride", width=1471, height=8000, deviceScaleFactor=1, mobile=False)
    started = time.monotonic()
    run_in_page(browser)
    ready = f"{FRAME} && {FRAME}.getElementById('heapview-summary') &&" \
            f" {FRAME}.getElementById('heapview-summary').dataset.ready"
    if not browser.wait_for(f"({ready}) === 'yes'", 120):
        error = browser.evaluate("(document.getElementById('pictures-error') || {}).textContent")
        fail(f"pictures: the page drew no pictures ({error or browser.evaluate(ready)})")
        return
    print(f"lab page: binary_trees 7 under five collectors with the pictures in {time.monotonic() - started:.1f} s")
    if browser.evaluate(f"{FRAME}.getElementById('heapview-summary').dataset.cspViolations") != "0":
        fail("pictures: heapview's page in the frame broke the policy")
    lab = browser.evaluate(HEAPVIEW_FACTS.replace("DOC", FRAME))
    # The frame's screenshot shows what the page says it drew (heapview's own check).
    frame = browser.evaluate("(() => { const f = document.getElementById('heapview-frame');"
                             " const r = f.getBoundingClientRect();"
                             " return [r.left + f.clientLeft, r.top + f.clientTop, f.clientWidth, f.clientHeight]; })()")
    shot = browser.call("Page.captureScreenshot", format="png",
                        clip={"x": frame[0], "y": frame[1], "width": frame[2], "height": frame[3], "scale": 1})
    (WORK / "pictures.png").write_bytes(base64.b64decode(shot["data"]))
    (WORK / "pictures-dom.html").write_text('<script type="application/json" id="heapview-model">'
                                            + json.dumps(lab["model"]) + "</script>")
    said = page_truth.check_pixels(str(WORK / "pictures-dom.html"), str(WORK / "pictures.png"))
    for message in page_truth.failures:
        fail("pictures: " + message)
    print("lab page: pictures " + said)
    lab_steps = browser.evaluate(HEAPVIEW_STEPS.replace("DOC", FRAME).replace("STEPS", str(STEPS_SHOWN)))

    browser.call("Emulation.clearDeviceMetricsOverride")
    native_page, collections = native_pictures(vmrun, heapview, program.read_text())
    browser.open(native_page.as_uri())
    if not browser.wait_for("document.getElementById('heapview-summary') &&"
                            " document.getElementById('heapview-summary').dataset.ready === 'yes'", 60):
        fail("pictures: native heapview's page is not ready")
        return
    native = browser.evaluate(HEAPVIEW_FACTS.replace("DOC", "document"))
    native_steps = browser.evaluate(HEAPVIEW_STEPS.replace("DOC", "document").replace("STEPS", str(STEPS_SHOWN)))
    for gc in COLLECTORS:
        totals = lab["totals"].get(gc)
        if totals != native["totals"].get(gc):
            fail(f"pictures: {gc}'s totals are {totals} in the page, {native['totals'].get(gc)} natively")
        if (totals or {}).get("collections") != collections[gc]:
            fail(f"pictures: {gc} shows {(totals or {}).get('collections')} collections, gcstats counted {collections[gc]}")
    for name, facts in (("page", lab), ("native", native)):  # for a look after a failure
        (WORK / f"pictures-{name}.json").write_text(json.dumps(facts))
    for r, gc in enumerate(COLLECTORS):
        mine, theirs = comparable(lab, r), comparable(native, r)
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                fail(f"pictures: {gc}: the page's {key} differ from native heapview's:"
                     f" {json.dumps(mine.get(key))[:300]} against {json.dumps(theirs.get(key))[:300]}")
        if not any(scene["from_events"] for scene in lab["model"]["runs"][r]["scenes"]):
            fail(f"pictures: {gc}: no collection is stepped through from the collector's own events")
    lab_words, native_words = ([step["words"] for step in steps] for steps in (lab_steps, native_steps))
    if lab_words != native_words:
        fail(f"pictures: the step-through says {lab_words[:2]} in the page, {native_words[:2]} natively")
    stepped = [tuple(s["words"]) for s in lab_steps]
    if len(set(stepped)) != STEPS_SHOWN + 1 or not all(s["canvases"] >= len(COLLECTORS) for s in lab_steps):
        fail(f"pictures: the step-through does not step, or draws no scene: {lab_steps[:3]}")


def check_pictures_of_refused(browser):
    """A program refused before its heap existed has no pictures, and says
    nothing about them; one refused when it starts a thread is drawn up to there."""
    for name, drawn in (("natives", False), ("threads_handoff", True)):
        browser.evaluate(f"document.getElementById('example').value = '{name}';"
                         " document.getElementById('example').dispatchEvent(new Event('change'))")
        set_field(browser, "heap", HEAP)
        browser.evaluate("document.getElementById('all').click(); document.getElementById('pictures').checked = true")
        run_in_page(browser)
        shown = browser.evaluate("(() => { const f = document.getElementById('heapview-frame');"
                                 " return [document.getElementById('pictures-area').textContent,"
                                 " f ? f.contentDocument.getElementById('heapview-summary').dataset.runs : null]; })()")
        if shown != ["", "5" if drawn else None]:
            fail(f"pictures of {name}: the page shows {shown}, expected {'five runs' if drawn else 'none'}")


def check_compare_table(browser, gccompare, source_dir):
    """gccompare's table in the page is native gccompare's, for the same
    program, heap and seed: every row the same text, but the times (in ms,
    and the throughput they make), which must hold a number in each column
    where native's does; the lifetimes tables the same text.
    cycles.gcl shows refcount's run with --rc-cycles=off leaving its cycles."""
    # The rows of times, by the kinds gccompare's rows say they show (metrics.h).
    places = {"ms": 3, "percent": 2}
    times = {m["label"]: places[m["shown"]] for m in browser.evaluate(
        "JSON.parse(document.getElementById('lab-compare-rows').textContent).metrics") if m["shown"] in places}
    if not {"GC time (ms)", "throughput (%)"} <= set(times):
        fail(f"table: gccompare's rows of times are not {set(times)}")
    # The page prints a figure as C's printf("%.Nf") does, a tie rounded to
    # the even digit (Python's % rounds as glibc does): checked on ties,
    # which the programs' figures may not hold.
    ties = [(n / 8, d) for n in range(64) for d in (1, 2)] + [(n / 1024, 1) for n in range(0, 8192, 128)] \
        + [(n / 16, 3) for n in range(64)] + [(1757.75, 1), (2.25, 1), (0.125, 2), (0.0625, 3)]
    printed = browser.evaluate(f"{json.dumps(ties)}.map(([x, d]) => printfFixed(x, d))")
    wrong = [(x, d, mine) for (x, d), mine in zip(ties, printed) if mine != "%.*f" % (d, x)]
    if wrong:
        fail(f"table: the page prints {len(wrong)} figures otherwise than printf, e.g. {wrong[:3]}")
    for name, args, heap in COMPARE_PROGRAMS:
        source = (source_dir / "examples" / (name + ".gcl")).read_text()
        browser.evaluate(f"document.getElementById('example').value = '{name}';"
                         " document.getElementById('example').dispatchEvent(new Event('change'))")
        for field, value in (("args", " ".join(args)), ("options", ""), ("heap", heap), ("seed", SEED)):
            set_field(browser, field, value)
        browser.evaluate("document.getElementById('all').click(); document.getElementById('pictures').checked = false")
        run_in_page(browser)
        failed_before = len(failures)
        page_table, page_lifetimes = browser.evaluate(
            "[document.getElementById('compare').textContent,"
            " (document.getElementById('compare-lifetimes') || {}).textContent || null]")
        program = WORK / "program.gcl"  # named as the page names it: its classes are named after it
        program.write_text(source)
        native = subprocess.run([gccompare, "--heap=" + heap, "--seed=" + SEED, str(program), *args],
                                capture_output=True, text=True, timeout=300)
        if native.returncode != 0:
            fail(f"table of {name}: native gccompare failed: {native.stderr.strip()}")
            continue
        native_lines = native.stdout.split("\n")[1:]  # after its line saying the runs agree
        page_lines = page_table.split("\n")[:-1]
        native_table, native_lifetimes = native_lines[:len(page_lines)], "\n".join(native_lines[len(page_lines):])
        if len(page_lines) < 2 or native_lines[len(page_lines)] != "":
            fail(f"table of {name}: {len(page_lines)} lines in the page, not native's table:\n{native.stdout}")
            continue
        for mine, theirs in zip(page_lines, native_table):
            label = next((label for label in times if theirs.startswith(label + " ")), None)
            if mine == theirs or (label and mine.startswith(label + " ")
                                  and same_times(mine, theirs, label, times[label])):
                continue
            fail(f"table of {name}: the page shows\n  {mine!r}\nnative gccompare\n  {theirs!r}")
        if page_lifetimes != native_lifetimes:
            fail(f"table of {name}: the page's lifetimes tables\n{page_lifetimes}\n"
                 f"native gccompare's\n{native_lifetimes}")
        if name == "cycles":
            unreclaimed = browser.evaluate("document.querySelector('#compare [data-collector=refcount]"
                                           "[data-key=unreclaimed_cycles_off]').textContent.trim()")
            if not re.fullmatch(r"[1-9]\d*", unreclaimed):
                fail(f"table of cycles: refcount with --rc-cycles=off left {unreclaimed} of its objects, not some")
        compared["tables"] += len(failures) == failed_before


def same_times(mine, theirs, label, places):
    """A row of times: a number with `places` decimals in each column where
    native's row has one, "-" where it has none."""
    cells = [line[len(label):].split() for line in (mine, theirs)]
    number = r"\d+\.\d{%d}" % places
    return len(cells[0]) == len(cells[1]) == len(COLLECTORS) and all(
        (a == "-") == (b == "-") and (a == "-" or re.fullmatch(number, a) and re.fullmatch(number, b))
        for a, b in zip(*cells))


def check_compile_error(browser, vmrun):
    source = "int main(string[] args) {\n    int x = 1;\n    int y = ;\n    return 0;\n}\n"
    bad = WORK / "bad.gcl"
    bad.write_text(source)
    native = subprocess.run([vmrun, str(bad)], capture_output=True, text=True).stderr
    where = re.search(r":(\d+):(\d+): ", native)
    type_program(browser, source)
    set_field(browser, "options", "")
    set_field(browser, "args", "")
    run_in_page(browser)
    shown = browser.evaluate("(() => { const e = document.getElementById('compile-error');"
                             " return e.hidden ? null : [e.dataset.line, e.dataset.column, e.textContent]; })()")
    if not where or not shown or shown[:2] != [where.group(1), where.group(2)]:
        fail(f"compile error: the page shows {shown}, vmrun reports {native.strip()}")
    elif native.split(": ", 1)[1].strip() not in shown[2]:
        fail(f"compile error: the page says '{shown[2]}', vmrun '{native.strip()}'")


def check_endless_loop(browser, hello):
    type_program(browser, "int main(string[] args) {\n    int i = 0;\n    while (true) { i = i + 1; }\n    return i;\n}\n")
    set_field(browser, "limit", "2")
    browser.evaluate("for (const gc of ['markcompact', 'semispace', 'generational', 'refcount'])"
                     " document.getElementById('gc-' + gc).checked = false")
    started = time.monotonic()
    page = run_in_page(browser, 30)
    took = time.monotonic() - started
    run = page.get("marksweep", {})
    if run.get("status") != "stopped" or "stopped after 2 s" not in run.get("stderr", "") or len(page) != 1:
        fail(f"endless loop: not stopped as it should be: {page}")
    if took > 10:
        fail(f"endless loop: the stop took {took:.1f} s")
    # The page is still usable: the next program runs.
    type_program(browser, hello.read_text())
    page = run_in_page(browser, 30)
    if not page.get("marksweep", {}).get("stdout", "").startswith("Hello, world!"):
        fail(f"after the endless loop the page does not run hello: {page}")


def check_fragment(browser, page_path, hello, screenshot):
    settings = {"src": hello.read_text(), "gc": "marksweep,refcount", "heap": "64k", "seed": "7",
                "opts": "--rc-cycles=off", "args": "600", "limit": "10", "pictures": "y"}
    browser.open("about:blank")  # a fresh load, not a fragment change of the open page
    browser.open(page_path.as_uri() + "#" + urllib.parse.urlencode(settings))
    browser.wait_for("document.getElementById('lab-status') &&"
                     " document.getElementById('lab-status').dataset.ready === 'yes'", 30)
    shown = browser.evaluate("""(() => { const v = (id) => document.getElementById(id).value;
        return {src: v('source'), heap: v('heap'), seed: v('seed'), opts: v('options'), args: v('args'), limit: v('limit'),
                pictures: document.getElementById('pictures').checked ? 'y' : 'n',
                gc: ['marksweep', 'markcompact', 'semispace', 'generational', 'refcount']
                    .filter((gc) => document.getElementById('gc-' + gc).checked).join(',')}; })()""")
    if shown != settings:
        fail(f"the link's fragment did not set the page: {shown}")
    menu = browser.evaluate("document.getElementById('example').value")
    if menu != "hello":
        fail(f"the link's program is hello.gcl, the example menu shows {menu!r}")
    page = run_in_page(browser, 60)
    if sorted(page) != ["marksweep", "refcount"]:
        fail(f"the link chose marksweep and refcount, the page ran {sorted(page)}")
    written = dict(urllib.parse.parse_qsl(browser.evaluate("location.hash.slice(1)"), keep_blank_values=True))
    if written != settings:
        fail(f"a run did not keep its settings in the fragment: {written}")
    if screenshot:
        shot = browser.call("Page.captureScreenshot", format="png")
        pathlib.Path(screenshot).write_bytes(base64.b64decode(shot["data"]))


def check_policy(browser, page_path):
    html = page_path.read_text()
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    if not policy or not policy.group(1).startswith("default-src 'none';"):
        fail("the page has no Content-Security-Policy with default-src 'none'")
    if re.search(r"<[a-z]+ [^>]*(src|href)=", html):
        fail("the page refers to an outside resource")
    breach = WORK / "breach.html"
    breach.write_text(html.replace("</body>", '<img src="https://example.invalid/x.png" alt=""></body>'))
    browser.open(breach.as_uri())
    if not browser.wait_for("document.getElementById('lab-status').dataset.cspViolations !== '0' &&"
                            " document.getElementById('lab-status').dataset.cspViolations", 20):
        fail("an outside image in a copy of the page raised no CSP violation: the policy is not in force")


def main():
    global WORK
    page_path, vmrun, source_dir, WORK = (pathlib.Path(a).resolve() for a in sys.argv[1:5])
    screenshot = sys.argv[5] if len(sys.argv) > 5 else None
    WORK.mkdir(parents=True, exist_ok=True)
    browser = cdp.Browser(str(WORK))
    try:
        check_policy(browser, page_path)
        started = time.monotonic()
        browser.open(page_path.as_uri())
        if not browser.wait_for("document.getElementById('lab-status') &&"
                                " document.getElementById('lab-status').dataset.ready === 'yes'", 30):
            raise RuntimeError("the page never said it was ready")
        print(f"lab page: {page_path.stat().st_size} bytes, ready in {time.monotonic() - started:.2f} s")
        started = time.monotonic()
        programs = sorted((source_dir / "examples").glob("*.gcl")) + sorted((source_dir / "examples/bench").glob("*.gcl"))
        for program in programs:
            check_example(browser, str(vmrun), program, str(program.relative_to(source_dir / "examples")))
        print(f"lab page: {len(programs)} examples x 5 collectors in {time.monotonic() - started:.1f} s:"
              f" {compared['runs']} runs the same as vmrun's ({compared['collections']} collections),"
              f" {compared['refused']} refused (natives, threads)")
        started = time.monotonic()
        check_compare_table(browser, str(vmrun.parent / "gccompare"), source_dir)
        print(f"lab page: {compared['tables']} of {len(COMPARE_PROGRAMS)} tables the same as native gccompare's"
              f" in {time.monotonic() - started:.1f} s")
        check_compile_error(browser, str(vmrun))
        check_endless_loop(browser, source_dir / "examples/hello.gcl")
        check_pictures_of_refused(browser)
        check_pictures(browser, str(vmrun), str(vmrun.parent / "heapview"), source_dir)  # leaves native's page open
        check_fragment(browser, page_path, source_dir / "examples/hello.gcl", screenshot)
        violations = browser.evaluate("document.getElementById('lab-status').dataset.cspViolations")
        if violations != "0":
            fail(f"the page broke its own Content-Security-Policy {violations} times")
    finally:
        browser.close()
    if failures:
        sys.exit(f"lab_in_chromium.py: {len(failures)} failures")
    print("lab_in_chromium.py: all checks passed")


if __name__ == "__main__":
    main()
