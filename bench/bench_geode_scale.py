"""Geode at scale: a million events through one client's queues in one command, and a command's
cost beside a lab that holds no event.

Prints, for the bundled `geode-ha` scenario (c1 with redundancy 1; c2, d1 subscribed too):
- the in-process time of `geode put p1 r1 count N` (one command; every subscribed pool's primary
  and secondaries queue the N events);
- the median in-process time of one probe command sequence (`geode put p1 r1`, `advance 1s`,
  `geode stats c1`, `geode state g1`, `geode audit g1`) on a lab whose durable client d1, away with
  keepalive, holds those N events in its queues, and on a lab holding none, alternated within one
  run, each side's fastest run compared (other processes on the machine only ever add time);
- the in-process replay rate (commands per second, a fresh lab per transcript as replay does) of
  the Geode drills (transcripts/geode) and of the Solace failover drills (transcripts/failover-types),
  alternated, each side's fastest pass, and their ratio.

Usage: PYTHONPATH=$PWD python bench/bench_geode_scale.py [--count 1000000] [--runs 7]
Targets: put <= 2 s, probe ratio <= 1.5 (a command's cost independent of the events held), Solace
replay rate / Geode replay rate <= 2.
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR

ROOT = Path(__file__).resolve().parent.parent
SETUP = ("geode close d1 keepalive",)
PROBE = ("geode put p1 r1", "advance 1s", "geode stats c1", "geode state g1", "geode audit g1")


def lab_with(count: int) -> tuple[Lab, float]:
    lab = Lab.fresh(ROOT_DIR / "geode-ha.yaml")
    for line in SETUP:
        assert lab.execute("lab", line).ok, line
    if not count:
        return lab, 0.0
    started = time.perf_counter()
    out = lab.execute("lab", f"geode put p1 r1 count {count}")
    spent = time.perf_counter() - started
    assert out.ok, out.text
    return lab, spent


def probe(lab: Lab) -> float:
    gc.collect()
    started = time.perf_counter()
    for line in PROBE:
        out = lab.execute("lab", line)
        assert out.ok, (line, out.text)
    return time.perf_counter() - started


CORPORA = {"geode": ROOT / "transcripts" / "geode", "solace": ROOT / "transcripts" / "failover-types"}


def replay_rate(directory: Path) -> float:
    """Commands per second replaying every drill of a directory once (each must pass)."""
    from solace_shell.transcript.replay import replay_file

    files = sorted(directory.rglob("*.cli.txt"))
    started = time.perf_counter()
    commands = 0
    for path in files:
        result = replay_file(path)
        assert not result.error and all(c.verdict == "pass" for c in result.commands), path
        commands += len(result.commands)
    return commands / (time.perf_counter() - started)


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
    h, n = min(held), min(none)
    print(f"put {args.count} events (one command): {put_s * 1000:.2f} ms (target <= 2 s)")
    print(f"probe with {args.count} events held: {h * 1000:.1f} ms; with none: {n * 1000:.1f} ms; "
          f"ratio {h / n:.2f} (target <= 1.5)")
    rates: dict[str, list[float]] = {name: [] for name in CORPORA}
    for _ in range(max(args.runs // 2, 1)):
        for name, directory in CORPORA.items():
            rates[name].append(replay_rate(directory))
    geode, solace = max(rates["geode"]), max(rates["solace"])
    print(f"replay in-process: geode {geode:.0f} commands/s, solace {solace:.0f} commands/s; "
          f"solace/geode {solace / geode:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
