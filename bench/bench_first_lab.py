"""Two source trees side by side: where a replay process's time goes, start against replay.

    python bench/bench_first_lab.py --corpus DIR --a /path/to/tree-a --b /path/to/tree-b [--runs 5]

Each run is a fresh process per tree (alternated, so the machine's drift cancels in the ratios) that
times, in CPU seconds: importing `solace_shell.lab`, its first lab (`Lab.fresh()`: the grammar, the
registries and the scenario template), then replaying every transcript of DIR in-process
(`replay_text` in one `paced_collection` block, as `solace-shell replay` does). Prints each figure's
median per tree and b/a. Both trees should be compiled first (an installed copy is).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
t0 = time.process_time()
from solace_shell.lab import Lab
from solace_shell.transcript.replay import paced_collection, replay_text
t1 = time.process_time()
Lab.fresh().close()
t2 = time.process_time()
from pathlib import Path
texts = [(str(f), f.read_text(encoding="utf-8")) for f in sorted(Path(sys.argv[1]).glob("*.cli.txt"))]
t3 = time.process_time()
n = 0
with paced_collection():
    for name, text in texts:
        n += len(replay_text(text, name).commands)
t4 = time.process_time()
print(json.dumps({"imports": t1 - t0, "first_lab": t2 - t1, "replay": t4 - t3, "commands": n}))
"""

FIGURES = ("imports", "first_lab", "replay")


def measure(tree: Path, corpus: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", CHILD, str(corpus)], env=env, cwd=tree,
                          capture_output=True, text=True, check=True)
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--a", type=Path, required=True)
    ap.add_argument("--b", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    for _ in range(args.runs):
        for side in ("a", "b"):
            runs[side].append(measure(getattr(args, side), args.corpus))
    commands = int(runs["a"][0]["commands"])
    print(f"{commands:,} commands; CPU seconds, medians of {args.runs}, alternated")
    for figure in FIGURES:
        a = statistics.median(r[figure] for r in runs["a"])
        b = statistics.median(r[figure] for r in runs["b"])
        print(f"{figure:10} a {a * 1000:8.1f} ms  b {b * 1000:8.1f} ms  b/a {b / a:.3f}")
    print(f"(a = {args.a}, b = {args.b})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
