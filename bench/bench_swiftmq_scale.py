"""SwiftMQ at scale: one big JMS publish, a one-shot `ha state` beside an empty lab, the lab file's size.

Prints, for a lab file of the bundled `swiftmq-ha` scenario with both instances paired:
- the in-process time of `jms publish c1 q1 count N` (one command);
- the lab file's size after it;
- the median time of a one-shot `solace-shell --db FILE --router lab -c "ha state"` on that lab and
  on a lab holding no message, alternated within one run (the machine's drift cancels in the ratio).

Usage: PYTHONPATH=$PWD python bench/bench_swiftmq_scale.py [--count 1000000] [--runs 7]
Targets: publish <= 2 s, ratio <= 1.10, file <= 100 KB.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR

PAIR = ("ha start ha1.A", "ha start ha1.B", "advance 5s")


def make_lab(path: Path, count: int) -> float:
    """A paired SwiftMQ lab file; returns the seconds of the one publish of `count` (0 for none)."""
    lab = Lab.open(path, scenario=ROOT_DIR / "swiftmq-ha.yaml")
    try:
        for line in PAIR:
            out = lab.execute("lab", line)
            assert out.ok, (line, out.text)
        if not count:
            return 0.0
        started = time.perf_counter()
        out = lab.execute("lab", f"jms publish c1 q1 count {count}")
        spent = time.perf_counter() - started
        assert out.ok, out.text
        return spent
    finally:
        lab.close()


def one_shot(path: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(path), "--router", "lab",
                           "-c", "ha state"], capture_output=True, text=True, env=os.environ.copy())
    spent = time.perf_counter() - started
    assert done.returncode == 0 and "router ha1" in done.stdout, (done.stdout, done.stderr)
    return spent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        full, empty = Path(tmp, "full.lab"), Path(tmp, "empty.lab")
        publish_s = make_lab(full, args.count)
        make_lab(empty, 0)
        size = sum(p.stat().st_size for p in Path(tmp).glob("full.lab*"))
        one_shot(full), one_shot(empty)   # warm the page cache and the byte-code cache
        full_s: list[float] = []
        empty_s: list[float] = []
        for _ in range(args.runs):
            full_s.append(one_shot(full))
            empty_s.append(one_shot(empty))
    f, e = statistics.median(full_s), statistics.median(empty_s)
    print(f"jms publish c1 q1 count {args.count}: {publish_s:.3f} s (target <= 2 s)")
    print(f"lab file after it (with its WAL): {size / 1024:.1f} KB (target <= 100 KB)")
    print(f"one-shot ha state: {f * 1000:.0f} ms with {args.count} held, {e * 1000:.0f} ms empty, "
          f"ratio {f / e:.3f} (target <= 1.10; medians of {args.runs}, alternated)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
