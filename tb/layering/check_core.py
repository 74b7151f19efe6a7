#!/usr/bin/env python3
"""check_core.py - the core's files call and include one way only.

    check_core.py NM ARCHIVE SRCDIR

The ETM core (model/core/src) is one file per stage, the top-level files
above them (etm.c, setup.c, program.c, end.c, watch.c, state.c) and the speed
engine (fast_*.c). Two graphs must have no circle:
  - calls: file A calls file B when B's object defines a symbol A's object
    leaves undefined (nm on the core's archive; an inline function from a
    header counts for the file that includes it);
  - includes: header or source A includes header B (quoted includes among
    the core's own files).
A circle is printed as the chain of files it goes through; the exit status
is 1 then.
"""
import os
import re
import subprocess
import sys


def archive_members(nm, archive):
    """{member: (defined symbols, undefined symbols)} from nm."""
    out = subprocess.run([nm, archive], check=True, capture_output=True, text=True).stdout
    members, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'^(\S+\.o):$', line)
        if m:
            cur = m.group(1)
            members[cur] = (set(), set())
            continue
        if cur is None:
            continue
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDBRC':
            members[cur][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == 'U':
            members[cur][1].add(parts[1])
    return members


def source_name(member):
    """etm.c.o (or etm.c.obj) -> etm.c"""
    return re.sub(r'\.o(bj)?$', '', os.path.basename(member))


def call_graph(members):
    owner = {}
    for m, (defs, _) in members.items():
        for s in defs:
            owner[s] = source_name(m)
    graph = {}
    for m, (_, undef) in members.items():
        a = source_name(m)
        graph.setdefault(a, set())
        for s in undef:
            b = owner.get(s)
            if b and b != a:
                graph[a].add(b)
    return graph


def include_graph(srcdir):
    graph = {}
    names = [f for f in os.listdir(srcdir) if f.endswith(('.c', '.h'))]
    for f in names:
        with open(os.path.join(srcdir, f), encoding='utf-8') as fh:
            incs = re.findall(r'^#include "([^"/]+)"', fh.read(), re.M)
        graph[f] = {i for i in incs if i in names and i != f}
    return graph


def find_circle(graph):
    """A list of nodes making a circle, or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    nm, archive, srcdir = sys.argv[1:]
    calls = call_graph(archive_members(nm, archive))
    includes = include_graph(srcdir)
    bad = 0
    for what, graph in (('call', calls), ('include', includes)):
        circle = find_circle(graph)
        edges = sum(len(v) for v in graph.values())
        if circle:
            print(f'check_core: a {what} circle among the core\'s files: {" -> ".join(circle)}')
            bad = 1
        else:
            print(f'check_core: {what}s go one way: {len(graph)} files, {edges} arrows, no circle')
    sys.exit(bad)


if __name__ == '__main__':
    main()
