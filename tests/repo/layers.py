#!/usr/bin/env python3
"""layers.py -- every dependency between gclab's folders points the way
docs/architecture.md allows ("Layers"): gc/ at the bottom, vmpi/ on gc/,
vm/ on both, programs on top.

    layers.py SOURCE_DIR [BUILD_DIR]
    layers.py --graph SOURCE_DIR    prints the include structure by folder

Reads the rules from the ```layers block of docs/architecture.md, the one
place they are written, and checks:

  include  every #include "..." in a C file outside tests/ and examples/
           names a file in the includer's own folder, or one the rules let
           its folder include (a rule naming a folder allows what is under it);
  link     with BUILD_DIR: every symbol a layer's library needs from gclab
           comes from itself or from a library the rules let it use (nm over
           the static libraries), and no bundled agent needs any of gclab's
           symbols (an agent reaches the VM only through VMPI_Interface)
           but those of the libraries the rule "link agents" names.

Prints one line per dependency that points the wrong way and exits 1 if
there is any.
"""
import fnmatch
import os
import re
import subprocess
import sys


def read_rules(source_dir):
    text = open(os.path.join(source_dir, "docs", "architecture.md")).read()
    block = re.search(r"^```layers\n(.*?)^```", text, re.S | re.M)
    if not block:
        sys.exit("layers.py: docs/architecture.md has no ```layers block")
    includes, links = [], {}
    for number, line in enumerate(block.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0] == "include" and len(words) >= 2:
            includes.append((words[1], words[2:]))
        elif words[0] == "link" and len(words) >= 2:
            links[words[1]] = set(words[2:])
        else:
            sys.exit("layers.py: docs/architecture.md, layers line %d: %r" % (number, line))
    return includes, links


def rule_for(folder, includes):
    """The allowed targets of the most specific pattern matching `folder`."""
    best = None
    for pattern, allowed in includes:
        if fnmatch.fnmatchcase(folder, pattern) and (best is None or len(pattern) > len(best[0])):
            best = (pattern, allowed)
    return best


def resolve(includer, name, source_dir):
    """The repository path an #include "name" in `includer` reaches."""
    here = os.path.dirname(includer)
    candidates = [os.path.join(here, name), name, os.path.join("vmpi", name), os.path.join("vmpi/agents", name)]
    for candidate in candidates:
        path = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(source_dir, path)):
            return path
    return None  # a generated header (build tree) or a system one


def source_files(source_dir):
    """The C files of the sources, tests and examples aside."""
    listed = subprocess.run(["git", "-C", source_dir, "ls-files", "*.c", "*.h"], capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else []
    if not files:  # not a checkout: walk the tree
        for root, _, names in os.walk(source_dir):
            rel = os.path.relpath(root, source_dir)
            if rel.split(os.sep)[0].startswith((".", "build")):
                continue
            files += [os.path.normpath(os.path.join(rel, n)) for n in names if n.endswith((".c", ".h"))]
    return sorted(path for path in files if not path.startswith(("tests/", "examples/")))


def includes_of(source_dir, path):
    """(line number, name as written) of each #include "..." in `path`."""
    with open(os.path.join(source_dir, path), errors="replace") as source:
        for number, line in enumerate(source, 1):
            match = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if match:
                yield number, match.group(1)


def graph(source_dir):
    counts = {}
    for path in source_files(source_dir):
        for _, name in includes_of(source_dir, path):
            target = resolve(path, name, source_dir)
            edge = (os.path.dirname(path), os.path.dirname(target) if target else "(generated)")
            if target and edge[0] != edge[1]:
                counts[edge] = counts.get(edge, 0) + 1
    for (frm, to), count in sorted(counts.items()):
        print("%4d %s -> %s" % (count, frm, to))


def check_includes(source_dir, includes):
    faults = []
    for path in source_files(source_dir):
        folder = os.path.dirname(path)
        rule = rule_for(folder, includes)
        for number, name in includes_of(source_dir, path):
            if "../" in name:
                faults.append('%s:%d: #include "%s": written across folders with ../' % (path, number, name))
                continue
            target = resolve(path, name, source_dir)
            if target is None or os.path.dirname(target) == folder:
                continue
            if rule is None:
                faults.append("%s:%d: includes %s, but no layers rule covers %s/" % (path, number, target, folder))
            elif not any(target == allowed or target.startswith(allowed.rstrip("/") + "/") for allowed in rule[1]):
                faults.append("%s:%d: includes %s, which %s/ may not (rule: include %s %s)"
                              % (path, number, target, folder, rule[0], " ".join(rule[1])))
    return faults


def symbols(library):
    """(defined, undefined) global symbols of a static library or shared object."""
    out = subprocess.run(["nm", "-g", library], capture_output=True,
                         text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRVWC" + "tdbrvw":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] in "Uw":
            undefined.add(parts[1])
    return defined, undefined


def check_links(build_dir, links):
    faults = []
    links = dict(links)
    agents_may_use = links.pop("agents", set())
    libraries = {name: os.path.join(build_dir, "lib%s.a" % name) for name in links}
    missing = [path for path in libraries.values() if not os.path.isfile(path)]
    if missing:
        return ["layers.py: not built: %s" % ", ".join(missing)]
    table = {name: symbols(path) for name, path in libraries.items()}
    owner = {}
    for name, (defined, _) in table.items():
        for symbol in defined:
            owner.setdefault(symbol, name)
    for name, (defined, undefined) in sorted(table.items()):
        for symbol in sorted(undefined - defined):
            source = owner.get(symbol)
            if source and source != name and source not in links[name]:
                faults.append("%s uses %s from %s, which it may not (rule: link %s %s)"
                              % (name, symbol, source, name, " ".join(sorted(links[name]))))
    agent_dir = os.path.join(build_dir, "lib", "gclab")
    for agent in sorted(os.listdir(agent_dir)) if os.path.isdir(agent_dir) else []:
        _, undefined = symbols(os.path.join(agent_dir, agent))
        for symbol in sorted(undefined):
            if symbol in owner and owner[symbol] not in agents_may_use:
                faults.append("agent %s uses %s from %s: agents reach the VM only through VMPI_Interface"
                              % (agent, symbol, owner[symbol]))
    return faults


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--graph":
        graph(sys.argv[2])
        return 0
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source_dir = sys.argv[1]
    includes, links = read_rules(source_dir)
    faults = check_includes(source_dir, includes)
    if len(sys.argv) == 3:
        faults += check_links(sys.argv[2], links)
    for fault in faults:
        print(fault)
    if faults:
        print("layers.py: %d dependencies point the wrong way (docs/architecture.md, Layers)" % len(faults))
        return 1
    print("layers.py: every include%s follows docs/architecture.md's layers"
          % (" and link" if len(sys.argv) == 3 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
