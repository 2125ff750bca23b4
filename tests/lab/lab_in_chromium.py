#!/usr/bin/env python3
"""lab_in_chromium.py -- the lab page (docs/lab.md) in headless Chromium,
driven through its UI as a student would drive it, against native vmrun.

usage: lab_in_chromium.py PAGE VMRUN SOURCE_DIR WORK_DIR [SCREENSHOT.png]

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
import cdp  # noqa: E402

COLLECTORS = ["marksweep", "markcompact", "semispace", "generational", "refcount"]
COUNTS = ["collections", "objects_allocated", "bytes_allocated", "objects_moved", "bytes_moved", "objects_freed",
          "bytes_freed", "arenas_created", "live_objects_at_exit"]
HEAP = "128k"  # small enough that the examples collect under every collector
SEED = "1"
REFUSED = "this build (WebAssembly, in a browser)"

failures = []
compared = {"runs": 0, "collections": 0, "refused": 0}


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
        for (const td of document.querySelectorAll('#compare td'))
            if (runs[td.dataset.collector]) runs[td.dataset.collector].counts[td.dataset.key] = td.textContent;
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
    browser.evaluate("document.getElementById('all').click()")
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
                "opts": "--rc-cycles=off", "args": "600", "limit": "10"}
    browser.open("about:blank")  # a fresh load, not a fragment change of the open page
    browser.open(page_path.as_uri() + "#" + urllib.parse.urlencode(settings))
    browser.wait_for("document.getElementById('lab-status') &&"
                     " document.getElementById('lab-status').dataset.ready === 'yes'", 30)
    shown = browser.evaluate("""(() => { const v = (id) => document.getElementById(id).value;
        return {src: v('source'), heap: v('heap'), seed: v('seed'), opts: v('options'), args: v('args'), limit: v('limit'),
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
        check_compile_error(browser, str(vmrun))
        check_endless_loop(browser, source_dir / "examples/hello.gcl")
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
