#!/usr/bin/env python3
"""The structure rules of the Rust crates under rust/: no import circle
between modules, no file over 800 lines of non-test code.

    python3 scripts/check-structure.py [CRATE_DIR...]

A module (one .rs file) depends on another when its code, outside test
modules and comments, names it: `use crate::a::b`, a path `crate::a::b::f`,
`super::x`, or a child module's name (`chart::BarChart` in report/mod.rs).
A path is resolved to the deepest module file it names. A test module
(`#[cfg(test)] mod tests`) may use `super::*`: it is not counted. Prints each
circle (a strongly connected set of modules with more than one member, or a
module that names itself through its parent), and each file over the limit
(its lines before `#[cfg(test)]`; a `tests.rs` file is all test), and exits 1
if there is either.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+((?:crate|super|self|[a-z_][a-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
CHILD_PATH = re.compile(r"(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)")


def strip_comments_and_tests(text):
    """The code of a file without comments, strings and `#[cfg(test)]` items."""
    text = re.sub(r"r#\".*?\"#", '""', text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def module_files(src):
    """Module path (tuple) -> file, for every .rs file under src/."""
    modules = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts in (["lib"], ["main"]):
            parts = []
        elif parts[-1] == "mod":
            parts = parts[:-1]
        modules[tuple(parts)] = f
    return modules


def resolve(path, modules):
    """The deepest module a path (tuple of segments from the crate root) names."""
    for n in range(len(path), -1, -1):
        if tuple(path[:n]) in modules:
            return tuple(path[:n])
    return None


def dependencies(module, text, modules):
    deps = set()
    code = strip_comments_and_tests(text)
    parent = module[:-1]
    children = {m[-1] for m in modules if len(m) == len(module) + 1 and m[:-1] == module}

    def add(segments):
        target = resolve(segments, modules)
        if target is not None and target != module:
            deps.add(target)

    def absolute(head, rest):
        if head == "crate":
            return list(rest)
        if head == "self":
            return list(module) + list(rest)
        # super, possibly repeated
        base = list(parent)
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
        return base + list(rest)

    # `use a::b::{c, d::e}`: each item is a path under a::b.
    for m in USE_GROUP.finditer(code):
        prefix = m.group(1).split("::")
        for item in re.split(r",", re.sub(r"\{[^}]*\}", "", m.group(2))):
            item = item.strip().split(" as ")[0].strip()
            if not item or item == "self":
                item_path = []
            else:
                item_path = item.split("::")
            full = prefix + item_path
            if full[0] in ("crate", "super", "self"):
                add(absolute(full[0], full[1:]))
            elif full[0] in children:
                add(list(module) + full)
    for m in PATH.finditer(code):
        head, rest = m.group(1), m.group(2).split("::")[1:]
        add(absolute(head, rest))
    for m in CHILD_PATH.finditer(code):
        if m.group(1) in children:
            add(list(module) + [m.group(1), m.group(2)])
    return deps


def circles(graph):
    """Strongly connected sets of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def crate_graph(crate):
    src = crate / "src"
    modules = module_files(src)
    return {m: dependencies(m, f.read_text(), modules) for m, f in modules.items()}


MAX_CODE_LINES = 800


def code_lines(path):
    """Lines of a file before its test module (0 for a file of tests)."""
    if path.name == "tests.rs":
        return 0
    lines = path.read_text().split("\n")
    return next((i for i, line in enumerate(lines) if line.startswith("#[cfg(test)]")), len(lines))


def name(module):
    return "::".join(module) or "(crate root)"


def main(argv):
    crates = [Path(a) for a in argv] or sorted(p.parent for p in (ROOT / "rust").glob("*/Cargo.toml"))
    bad = 0
    for crate in crates:
        graph = crate_graph(crate)
        edges = sum(len(d) for d in graph.values())
        found = circles(graph)
        status = "no circle" if not found else f"{len(found)} circle(s)"
        print(f"{crate.name}: {len(graph)} modules, {edges} dependencies between them: {status}")
        for group in found:
            bad += 1
            members = set(group)
            print("  circle: " + ", ".join(name(m) for m in group))
            for m in group:
                inside = sorted(name(d) for d in graph[m] if d in members)
                print(f"    {name(m)} -> {', '.join(inside)}")
        longest = max(((code_lines(f), f) for f in (crate / "src").rglob("*.rs")), default=(0, None))
        for lines, path in sorted((code_lines(f), f) for f in (crate / "src").rglob("*.rs")):
            if lines > MAX_CODE_LINES:
                bad += 1
                print(f"  {path.relative_to(ROOT)}: {lines} lines of non-test code (at most {MAX_CODE_LINES})")
        if longest[1] is not None:
            print(f"  longest file: {longest[1].relative_to(ROOT)}, {longest[0]} lines of non-test code")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
