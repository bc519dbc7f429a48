"""The repository's package import graph, read from the source (no module is imported).

Why: an import circle between packages means neither can be understood, tested or loaded
without the other, and a lazily placed import (inside a function, or under ``TYPE_CHECKING``)
hides the circle from Python without removing it. So every import counts here: module level,
function level and type-only ones alike.

A node is a package; the packages of one HA system (``state_store/<system>/`` and
``solace_shell/personalities/<system>/`` with everything below each) are one node each, so a
circle inside one system's own package is not reported. ``python -m tests.support.import_graph``
prints the circles (strongly connected sets of modules spanning more than one package) and the
imports across packages inside them.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("grammar", "solace_shell", "state_store", "spark_jobs")
# the directories whose sub-packages are each one system's own (collapsed into one node)
SYSTEM_HOMES = (("state_store",), ("solace_shell", "personalities"))


def modules(root: Path = REPO) -> dict[str, Path]:
    """Every module of the repository's packages by dotted name (a package by its own name)."""
    found = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The repository modules that module ``name`` imports anywhere in its body."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known_prefix(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = here[:len(here) - node.level + 1]
                base = ".".join([*base_parts, *(node.module.split(".") if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    yield sub
                else:
                    yield from _known_prefix(base, known)


def _known_prefix(dotted: str, known: dict[str, Path]) -> Iterator[str]:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            yield candidate
            return


def package_of(module: str, known: dict[str, Path]) -> str:
    """The graph node of a module: its package, or the system package it lies in."""
    parts = module.split(".")
    if known[module].name != "__init__.py":
        parts = parts[:-1]
    for home in SYSTEM_HOMES:
        if tuple(parts[:len(home)]) == home and len(parts) > len(home):
            return ".".join(parts[:len(home) + 1])
    return ".".join(parts)


def module_edges(root: Path = REPO) -> dict[str, set[str]]:
    known = modules(root)
    return {name: set(imported(name, path, known)) - {name} for name, path in known.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            members = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                members.append(top)
                if top == node:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def circles(root: Path = REPO) -> list[tuple[str, ...]]:
    """The import circles that cross packages: strongly connected sets of modules that lie in more
    than one graph node (``package_of``), each sorted, sorted. A circle inside one package (one
    system's own included) is that package's own business and not listed."""
    known = modules(root)
    return sorted(tuple(members) for members in strongly_connected(module_edges(root))
                  if len({package_of(m, known) for m in members}) > 1)


def circle_edges(root: Path = REPO) -> list[tuple[str, str]]:
    """The imports between two packages that close a circle (both modules in one circle)."""
    known = modules(root)
    edges = module_edges(root)
    found = []
    for members in circles(root):
        inside = set(members)
        found += [(a, b) for a in members for b in sorted(edges[a] & inside)
                  if package_of(a, known) != package_of(b, known)]
    return found


def main() -> int:
    found = circles()
    print(f"{len(found)} circle(s) across packages, {sum(len(c) for c in found)} modules in them")
    for members in found:
        print(f"circle of {len(members)}: " + " ".join(members))
    for a, b in circle_edges():
        print(f"  {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
