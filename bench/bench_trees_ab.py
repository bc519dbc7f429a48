"""Two source trees side by side: `solace-shell replay` of one corpus and a one-shot start, alternated
within one run so the machine's drift cancels in the ratios.

    python bench/bench_trees_ab.py --corpus DIR --a /path/to/tree-a --b /path/to/tree-b [--runs 5]

The corpus is any directory of transcripts (e.g. `solace-conformance generate --count 1000 --out DIR`).
Prints the median commands per second of each tree's `solace-shell replay DIR/*.txt` (a fresh process
each time, start-up included) and of a one-shot `solace-shell -c "show hostname"`, and b/a, in wall
time and in the child process's CPU time (user + system).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def tree_env(tree: Path) -> dict[str, str]:
    """The tree first on the path, byte code written and read as an installed copy does."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def replay(tree: Path, files: list[str]) -> tuple[float, float]:
    """Commands per second of one `solace-shell replay`: by wall time, by the child's CPU time."""
    env = tree_env(tree)
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "replay", *files], env=env, cwd=tree,
                          capture_output=True, text=True)
    spent = time.perf_counter() - started
    cpu = children_cpu() - cpu
    found = re.search(r"(\d+) command\(s\): (\d+) passed, 0 failed", done.stdout)
    assert found, done.stdout[-500:] + done.stderr[-500:]
    return int(found.group(1)) / spent, int(found.group(1)) / cpu


def one_shot(tree: Path, db: Path) -> tuple[float, float]:
    """Seconds of one `solace-shell -c "show hostname"`: wall, and the child's CPU."""
    env = tree_env(tree)
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(db), "-c", "show hostname"],
                          env=env, cwd=tree, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - started, children_cpu() - cpu


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--a", type=Path, required=True)
    ap.add_argument("--b", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    files = sorted(str(p) for p in args.corpus.glob("*.txt"))
    rates: dict[str, list[tuple[float, float]]] = {"a": [], "b": []}
    starts: dict[str, list[tuple[float, float]]] = {"a": [], "b": []}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {k: Path(tmp, f"{k}.lab") for k in "ab"}
        for k, tree in (("a", args.a), ("b", args.b)):
            one_shot(tree, dbs[k])   # creates the lab file, warms the byte-code cache
        for run in range(args.runs):  # a then b, then b then a: what runs second gains from what ran first
            for k, tree in (("a", args.a), ("b", args.b))[::1 if run % 2 == 0 else -1]:
                rates[k].append(replay(tree, files))
                starts[k].append(one_shot(tree, dbs[k]))
    for i, clock in enumerate(("wall", "CPU")):
        ra, rb = (statistics.median(r[i] for r in rates[k]) for k in "ab")
        sa, sb = (statistics.median(r[i] for r in starts[k]) for k in "ab")
        print(f"{clock}: replay of {len(files)} transcripts: a {ra:,.0f} commands/s, b {rb:,.0f} commands/s, "
              f"b/a {rb / ra:.3f}")
        print(f"{clock}: one-shot show hostname: a {sa * 1000:.0f} ms, b {sb * 1000:.0f} ms, b/a {sb / sa:.3f}")
    print(f"(medians of {args.runs}, alternated; a = {args.a}, b = {args.b})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
