#!/usr/bin/env python3
"""docs_excerpts.py -- every gccompare command a page shows, run, and its
output compared with the excerpt beside it, so that the docs cannot drift.

    docs_excerpts.py SOURCE_DIR BIN_DIR PAGE.md...

An excerpt is an indented block (four spaces; blank lines inside it belong
to it) or a fenced one (```) whose first line is `$ gccompare ...` (or
`$ build/bin/gccompare ...`): the command, run from SOURCE_DIR with
BIN_DIR's gccompare, and the lines after it, its standard output.  Every line must be the same, character for character, except the
rows of wall-clock times (`... (ms)`, `throughput (%)`), which vary from run
to run: of those only the label and the number of cells must be.  A page
that shows no gccompare command fails too (the test would check nothing).

Prints one line per difference and exits 1 if there is any.
"""
import os
import re
import shlex
import subprocess
import sys

TIMED = re.compile(r"^(pause p\d+|pause max|GC time|run time) \(ms\)|^throughput \(%\)")


def is_command(line):
    return line.startswith("$ ") and os.path.basename(line[2:].split()[0]) == "gccompare"


def excerpts(text):
    """(command, expected lines) of each gccompare block, indented or fenced."""
    lines, found, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].startswith("    ") and is_command(lines[i][4:]):
            command, block, i = lines[i][6:], [], i + 1
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            found.append((command, block))
        elif lines[i] == "```" and i + 1 < len(lines) and is_command(lines[i + 1]):
            command, i = lines[i + 1][2:], i + 2
            end = lines.index("```", i)
            found.append((command, lines[i:end]))
            i = end + 1
        else:
            i += 1
    return found


def timed_shape(line):
    label = TIMED.match(line).group(0)
    return label, len(line[len(label):].split())


def compare(page, command, expected, source_dir, bin_dir):
    words = shlex.split(command)
    words[0] = os.path.join(bin_dir, "gccompare")
    result = subprocess.run(words, cwd=source_dir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        return [f"{page}: `{command}` failed (status {result.returncode}): {result.stderr.strip()}"]
    got = result.stdout.rstrip("\n").splitlines()
    problems = []
    if len(got) != len(expected):
        problems.append(f"{page}: `{command}` printed {len(got)} lines, the page shows {len(expected)}")
    for number, (want, line) in enumerate(zip(expected, got), 1):
        same = timed_shape(want) == timed_shape(line) if TIMED.match(want) and TIMED.match(line) else want == line
        if not same:
            problems.append(f"{page}: `{command}`, line {number}:\n  page: {want}\n  run:  {line}")
    return problems


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    source_dir, bin_dir, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems, checked = [], 0
    for page in pages:
        with open(os.path.join(source_dir, page)) as f:
            found = excerpts(f.read())
        if not found:
            problems.append(f"{page}: shows no gccompare command")
        for command, expected in found:
            problems += compare(page, command, expected, source_dir, bin_dir)
            checked += 1
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"docs_excerpts: {checked} gccompare excerpts in {len(pages)} pages, as the commands print them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
