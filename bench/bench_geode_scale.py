"""Geode at scale: a million events through one client's queues in one command, and a command's
cost beside a lab that holds no event.

Prints, for the bundled `geode-ha` scenario (c1 with redundancy 1; c2, d1 subscribed too):
- the in-process time of `geode put p1 r1 count N` (one command; every subscribed pool's primary
  and secondaries queue the N events);
- the median in-process time of one probe command sequence (a failover: `ha kill g1.s1`, `advance
  200ms`, `geode stats c1`, `ha start g1.s1`) on a lab holding those N events and on a lab holding
  none, alternated within one run (the machine's drift cancels in the ratio).

Usage: PYTHONPATH=$PWD python bench/bench_geode_scale.py [--count 1000000] [--runs 7]
Targets: put <= 2 s, ratio <= 1.5 (a command's cost independent of the events held).
"""

from __future__ import annotations

import argparse
import statistics
import time

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR

PROBE = ("ha kill g1.s1", "advance 200ms", "geode stats c1", "ha start g1.s1", "advance 10s")


def lab_with(count: int) -> tuple[Lab, float]:
    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    if not count:
        return lab, 0.0
    started = time.perf_counter()
    out = lab.execute("lab", f"geode put p1 r1 count {count}")
    spent = time.perf_counter() - started
    assert out.ok, out.text
    return lab, spent


def probe(lab: Lab) -> float:
    started = time.perf_counter()
    for line in PROBE:
        out = lab.execute("lab", line)
        assert out.ok, (line, out.text)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    full, put_s = lab_with(args.count)
    empty, _ = lab_with(0)
    try:
        probe(full), probe(empty)   # warm both
        held, none = [], []
        for _ in range(args.runs):
            held.append(probe(full))
            none.append(probe(empty))
    finally:
        full.close()
        empty.close()
    h, n = statistics.median(held), statistics.median(none)
    print(f"put {args.count} events (one command): {put_s:.3f} s (target <= 2 s)")
    print(f"probe with {args.count} events held: {h * 1000:.1f} ms; with none: {n * 1000:.1f} ms; "
          f"ratio {h / n:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
