#!/usr/bin/env python3
"""make_page.py -- writes the lab page (docs/lab.md): lab.html with its
style, its script, the two workers (emscripten's vmrun.js and heapview.js,
each with worker.js) and the examples inline, and a Content-Security-Policy
that allows exactly those inline blocks (by their SHA-256), WebAssembly,
the workers made from blobs of the page's own text, and the script and
style of the heapview page the page shows in a frame: nothing from outside.

usage: make_page.py VMRUN_JS HEAPVIEW_JS SOURCE_DIR OUTPUT
"""
import base64
import hashlib
import json
import pathlib
import sys


def sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def read_if(path):
    return path.read_text().strip() if path.exists() else ""


def examples(source_dir):
    """Every example program, with the arguments its tests give it."""
    found = []
    for folder in ("examples", "examples/bench"):
        for program in sorted((source_dir / folder).glob("*.gcl")):
            name = str(program.relative_to(source_dir / "examples").with_suffix(""))
            found.append({"name": name, "source": program.read_text(),
                          "args": read_if(program.with_suffix(".args")),
                          "vmargs": read_if(program.with_suffix(".vmargs"))})
    return found


def main():
    vmrun_js, heapview_js = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    source_dir, output = pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
    here = source_dir / "vm/tools/lab"
    script = (here / "lab.js").read_text()
    style = (here / "lab.css").read_text()
    worker_js = (here / "worker.js").read_text()
    worker = vmrun_js.read_text() + "\nconst createProgram = createVmrun;\n" + worker_js
    heapview_worker = heapview_js.read_text() + "\nconst createProgram = createHeapview;\n" + worker_js
    if any("</script" in text.lower() for text in (worker, heapview_worker, script)):
        sys.exit("make_page.py: a script contains </script, which would end its block early")
    # The heapview page's inline script and style, as page_write.c writes them
    # (vmpi/tools/heapview): its frame inherits this page's policy.
    heapview = source_dir / "vmpi/tools/heapview"
    heapview_script = "\n" + (heapview / "scene.js").read_text() + (heapview / "page.js").read_text()
    heapview_style = "\n" + (heapview / "page.css").read_text()
    # "</" inside a JSON string is "<\/": the same string, and no end tag.
    example_json = json.dumps(examples(source_dir)).replace("</", "<\\/")
    csp = ("default-src 'none'; script-src " + sha256(script) + " " + sha256(heapview_script) + " 'wasm-unsafe-eval'"
           + "; style-src " + sha256(style) + " " + sha256(heapview_style)
           + "; worker-src blob:; base-uri 'none'; form-action 'none'")
    page = (here / "lab.html").read_text()
    for name, value in (("@CSP@", csp), ("@STYLE@", style), ("@EXAMPLES@", example_json),
                        ("@WORKER@", worker), ("@HEAPVIEW_WORKER@", heapview_worker), ("@SCRIPT@", script)):
        page = page.replace(name, value, 1)
    output.write_text(page)


if __name__ == "__main__":
    main()
