#!/usr/bin/env python3
"""excerpts.py -- every shell session a page shows is run, and its output
must be what the page shows (docs/README's promise that the docs cannot drift).

    excerpts.py REPO BINDIR PAGE...

A session is a code block (fenced, or indented by four spaces or more) whose
first line starts with "$ ".  Each "$ " line is a command (a line ending in
a backslash continues on the next); the lines after it, up to the next
command, are the output the page promises: standard output, then standard
error (each captured whole, so the order does not hang on buffering):
  - a line "..." stands for any number of lines (none included);
  - "..." inside a line stands for any text;
  - otherwise the lines must be the output's, in order, from its first line
    to its last.
Figures that differ from run to run (timings, sample counts, dates) are
named before the block, in an HTML comment the page does not show:

    <!-- excerpt varies: REGEX -->

Every match of REGEX, in the promise and in the output alike, becomes "~".
The commands run with sh, in a scratch directory holding `examples`,
`tests` and `build` (links to the repository's and to BINDIR's parent), with
BINDIR first on PATH, so `vmrun ...`, `examples/...` and `build/bin/...` are
the ones just built.  Nothing else of the page is run: a block that shows a
command without "$ " shows how to type it, not what it prints.

Exit status: 0 when every session of every PAGE printed what it shows, 1
otherwise (each difference named by page and line), 2 on a bad command line.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

VARIES = re.compile(r"<!--\s*excerpt varies:\s*(.*?)\s*-->")
COMMAND_TIMEOUT_S = 600


class Session:
    def __init__(self, page):
        self.page = page
        self.varies = []          # compiled REGEXes
        self.steps = []           # [(command, command_line, [expected lines])]


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def blocks(lines):
    """(first line number, [lines without their indent], comments before) of
    each code block of a Markdown page."""
    comments = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        fence = re.match(r"^(\s*)(```+|~~~+)", line)
        if fence:
            indent, marker = len(fence.group(1)), fence.group(2)
            body, j = [], i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j].lstrip())
                j += 1
            yield i + 2, body, comments
            comments = []
            i = j + 1
            continue
        previous_blank = i == 0 or lines[i - 1].strip() == ""
        indent = indent_of(line)
        if previous_blank and stripped and indent >= 4 and stripped.startswith("$ "):
            body, j = [], i
            while j < len(lines) and (lines[j].strip() == "" or indent_of(lines[j]) >= indent):
                body.append(lines[j][indent:])
                j += 1
            while body and body[-1].strip() == "":
                body.pop()
            yield i + 1, body, comments
            comments = []
            i = j
            continue
        match = VARIES.search(line)
        if match:
            comments.append(match.group(1))
        elif stripped and not stripped.startswith("<!--"):
            comments = []
        i += 1


def sessions(page, text):
    for first, body, comments in blocks(text.splitlines()):
        if not body or not body[0].startswith("$ "):
            continue
        session = Session(page)
        try:
            session.varies = [re.compile(c) for c in comments]
        except re.error as e:
            raise SystemExit(f"{page}:{first}: excerpt varies: bad regex: {e}")
        k = 0
        while k < len(body):
            command_line = first + k
            command = body[k][2:]
            while command.endswith("\\") and k + 1 < len(body):
                k += 1
                command = command[:-1] + " " + body[k].strip()
            k += 1
            expected = []
            while k < len(body) and not body[k].startswith("$ "):
                expected.append(body[k].rstrip())
                k += 1
            while expected and expected[-1] == "":
                expected.pop()
            session.steps.append((command, command_line, expected))
        yield session


def normalise(line, varies):
    line = line.rstrip()
    for regex in varies:
        line = regex.sub("~", line)
    return line


def line_matches(promised, actual):
    if "..." not in promised:
        return promised == actual
    pattern = ".*".join(re.escape(part) for part in promised.split("..."))
    return re.fullmatch(pattern, actual) is not None


def first_difference(promised, actual):
    """None when ACTUAL is what PROMISED shows; else (promise index, why),
    naming the promised line the best attempt could not get past."""
    furthest = [0, 0]   # the promise index reached, and the output line there
    failed = set()

    def match(p, a):
        if (p, a) in failed:
            return False
        if p > furthest[0]:
            furthest[:] = [p, a]
        if p == len(promised):
            ok = a == len(actual)
        elif promised[p].strip() == "...":
            ok = any(match(p + 1, k) for k in range(a, len(actual) + 1))
        else:
            ok = a < len(actual) and line_matches(promised[p], actual[a]) and match(p + 1, a + 1)
        if not ok:
            failed.add((p, a))
        return ok

    if match(0, 0):
        return None
    p, a = furthest
    got = repr(actual[a]) if a < len(actual) else "nothing more"
    if p == len(promised):
        return p, f"the output goes on with {got} (end the excerpt with '...')"
    return p, f"promised {promised[p]!r}, printed {got}"


def scratch_dir(repo, bindir):
    scratch = tempfile.mkdtemp(prefix="excerpts.")
    for name in ("examples", "tests"):
        os.symlink(os.path.join(os.path.abspath(repo), name), os.path.join(scratch, name))
    os.symlink(os.path.dirname(os.path.abspath(bindir)), os.path.join(scratch, "build"))
    home = os.path.join(scratch, ".home")
    os.mkdir(home)
    return scratch, home


def run(session, repo, bindir):
    failures = []
    scratch, home = scratch_dir(repo, bindir)
    env = dict(os.environ, PATH=os.path.abspath(bindir) + os.pathsep + os.environ.get("PATH", ""),
               HOME=home, GOCACHE=os.path.join(home, "go"), PPROF_TMPDIR=os.path.join(home, "pprof"),
               GOFLAGS="", GOPROXY="off", LC_ALL="C.UTF-8")
    try:
        for command, command_line, expected in session.steps:
            try:
                done = subprocess.run(["sh", "-c", command], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      timeout=COMMAND_TIMEOUT_S)
                output = (done.stdout + done.stderr).decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                failures.append(f"{session.page}:{command_line}: {command}: still running after {COMMAND_TIMEOUT_S} s")
                break
            actual = [normalise(l, session.varies) for l in output.splitlines()]
            promised = [normalise(l, session.varies) for l in expected]
            difference = first_difference(promised, actual)
            if difference:
                index, why = difference
                failures.append(f"{session.page}:{command_line + 1 + index}: {command}: {why}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return failures


def main(argv):
    if len(argv) < 4:
        print("usage: excerpts.py REPO BINDIR PAGE...", file=sys.stderr)
        return 2
    repo, bindir, pages = argv[1], argv[2], argv[3:]
    failures, count = [], 0
    for page in pages:
        path = os.path.join(repo, page)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print(f"excerpts.py: {page}: {e.strerror}", file=sys.stderr)
            return 2
        for session in sessions(page, text):
            count += len(session.steps)
            failures += run(session, repo, bindir)
    for failure in failures:
        print(failure)
    print(f"excerpts: {count} commands in {len(pages)} pages, {len(failures)} differ from what the page shows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
