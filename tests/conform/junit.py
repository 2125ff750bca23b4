#!/usr/bin/env python3
"""junit.py -- checks what vmpi-conform wrote: its JUnit XML and its matrix.

    junit.py XML MATRIX TESTS [GC:PROGRAM:REGEX ...]

XML     the file given to --junit: it must be well-formed, hold TESTS
        testcases, one testsuite per collector, and fail exactly the cells
        named below, each with a failure message matching REGEX
MATRIX  the runner's standard output: the matrix row of each program says
        FAIL exactly in the columns named below, and the message line
        "PROGRAM under GC: ..." matches REGEX
"""
import re
import sys
import xml.etree.ElementTree as ElementTree


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main(argv):
    if len(argv) < 4:
        fail("usage: junit.py XML MATRIX TESTS [GC:PROGRAM:REGEX ...]")
    xml_path, matrix_path, tests = argv[1], argv[2], int(argv[3])
    expected = {}
    for spec in argv[4:]:
        gc, program, regex = spec.split(":", 2)
        expected[(gc, program)] = regex

    try:
        root = ElementTree.parse(xml_path).getroot()
    except (ElementTree.ParseError, OSError) as error:
        fail("%s is not well-formed XML: %s" % (xml_path, error))
    if root.tag != "testsuites":
        fail("the root element is <%s>, not <testsuites>" % root.tag)
    cases = root.findall("./testsuite/testcase")
    if len(cases) != tests:
        fail("%d testcases, expected %d" % (len(cases), tests))
    if int(root.get("tests", -1)) != tests or int(root.get("failures", -1)) != len(expected):
        fail("<testsuites> says tests=%s failures=%s, expected %d and %d"
             % (root.get("tests"), root.get("failures"), tests, len(expected)))
    failed = {}
    for suite in root.findall("testsuite"):
        suite_cases = suite.findall("testcase")
        suite_failures = [case for case in suite_cases if case.find("failure") is not None]
        if int(suite.get("tests", -1)) != len(suite_cases) or int(suite.get("failures", -1)) != len(suite_failures):
            fail("testsuite %s's counts do not match its testcases" % suite.get("name"))
        for case in suite_cases:
            if case.find("system-err") is None:
                fail("testcase %s/%s has no <system-err>" % (suite.get("name"), case.get("name")))
            failure = case.find("failure")
            if failure is not None:
                failed[(suite.get("name"), case.get("name"))] = failure.get("message", "")
    if set(failed) != set(expected):
        fail("failing cells %s, expected %s" % (sorted(failed), sorted(expected)))
    for cell, regex in expected.items():
        if not re.search(regex, failed[cell]):
            fail("%s under %s fails with '%s', which does not match /%s/" % (cell[1], cell[0], failed[cell], regex))

    with open(matrix_path, encoding="utf-8", errors="replace") as matrix_file:
        lines = matrix_file.read().splitlines()
    header = next((line.split() for line in lines if line.startswith("program ")), None)
    if not header:
        fail("the matrix has no header row")
    collectors = header[1:]
    programs = {program for _, program in cases_of(root)}
    for line in lines:
        words = line.split()
        if len(words) != len(header) or words[0] not in programs:
            continue
        for gc, verdict in zip(collectors, words[1:]):
            want = "FAIL" if (gc, words[0]) in expected else "ok"
            if verdict != want:
                fail("the matrix says %s for %s under %s, expected %s" % (verdict, words[0], gc, want))
        programs.discard(words[0])
    if programs:
        fail("the matrix has no row for %s" % sorted(programs))
    for (gc, program), regex in expected.items():
        prefix = "%s under %s: " % (program, gc)
        message = next((line[len(prefix):] for line in lines if line.startswith(prefix)), None)
        if message is None or not re.search(regex, message):
            fail("the matrix's message for %s under %s is %r, which does not match /%s/" % (program, gc, message, regex))
    print("ok: %d cells, %d failing as expected" % (tests, len(expected)))


def cases_of(root):
    for suite in root.findall("testsuite"):
        for case in suite.findall("testcase"):
            yield suite.get("name"), case.get("name")


if __name__ == "__main__":
    main(sys.argv)
