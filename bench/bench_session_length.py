"""A command's cost against the length of the session before it, for every system.

A drill of an hour is thousands of small commands; a command whose cost follows the history
(every message published, every delivery) gets slower the longer a trainee practises. For each
system this builds a lab from its bundled scenario, runs N rounds of small commands and times the
system's probe commands (its audit, a show, an advance) on that lab, for N = 10, 100, 1,000 and
10,000. A round publishes one message, consumes it and advances the clock one second (Solace,
SwiftMQ, Qpid: what the lab holds stays small, its history grows); for Geode it puts one event
and advances one second, with the durable client d1 away (closed with keepalive) from the start,
so its queues hold every event until its timeout drops them.

Prints, per system and probe, the CPU time of the probe (the fastest of --runs repetitions, each on
its own lab state: every probe is run on the lab as the rounds left it, in order, then the lab is
rounded once more) at each N, and the ratio of the largest N to N = 10.

Each repetition starts with a full garbage collection, so no collection lands in a probe; the
collection reads every object, so the probes then run from a cold cache, and that costs more the
larger the session's heap. `--no-collect` leaves it out, to tell that cost from the command's own.

Usage: PYTHONPATH=$PWD python bench/bench_session_length.py [--quick] [--sizes 10,100,1000,10000]
       [--systems solace,swiftmq,qpid,geode] [--runs 5] [--no-collect]
Target: ratio <= 1.5 for every probe (a command's cost independent of the session's length).
"""

from __future__ import annotations

import argparse
import gc
import time
from dataclasses import dataclass

from solace_shell.lab import Lab
from state_store.scenario_files import ROOT_DIR


@dataclass(frozen=True)
class System:
    scenario: str
    setup: tuple[tuple[str, str], ...]     # (target, line) run once
    rounds: tuple[tuple[str, str], ...]    # one round of small commands
    probes: tuple[tuple[str, str], ...]    # the commands timed


SYSTEMS = {
    "solace": System(
        "default.yaml", (),
        (("lab", "publish trader trading/orders/new count 1"), ("lab", "consume settlement orders count 1"),
         ("lab", "advance 1s")),
        (("lab", "audit"), ("NY_Appliance1", "show queue orders"), ("lab", "advance 1s"))),
    "swiftmq": System(
        "swiftmq-ha.yaml", (("lab", "ha start ha1.A"), ("lab", "ha start ha1.B"), ("lab", "advance 5s")),
        (("lab", "jms publish c1 q1"), ("lab", "jms consume c2 q1"), ("lab", "advance 1s")),
        (("lab", "ha audit ha1"), ("lab", "ha state ha1"), ("lab", "advance 1s"))),
    "qpid": System(
        "qpid-ha.yaml", (("qpid", "qpid-ha --cluster-manager promote -b b1"), ("lab", "advance 3s"),
                         ("lab", "amqp connect s b1"), ("lab", "amqp connect r b1")),
        (("lab", "amqp publish s q1"), ("lab", "amqp consume r q1"), ("lab", "advance 1s")),
        (("lab", "qpid audit c1"), ("qpid", "qpid-ha status --all"), ("lab", "advance 1s"))),
    "geode": System(
        "geode-ha.yaml", (("lab", "geode close d1 keepalive"),),
        (("lab", "geode put p1 r1"), ("lab", "advance 1s")),
        (("lab", "geode audit g1"), ("lab", "geode stats c1"), ("lab", "advance 1s"))),
}


def run(lab: Lab, target: str, line: str) -> None:
    out = lab.execute(target, line)
    if not out.ok:
        raise SystemExit(f"{target}> {line}: {out.text}")


def measure(system: System, sizes: list[int], runs: int, collect: bool = True) -> dict[str, list[float]]:
    """CPU seconds of each probe at each size (fastest of ``runs``), on one lab grown size by size."""
    lab = Lab.fresh(ROOT_DIR / system.scenario)
    for target, line in system.setup:
        run(lab, target, line)
    costs: dict[str, list[float]] = {line: [] for _, line in system.probes}
    done = 0
    for size in sizes:
        while done < size:
            for target, line in system.rounds:
                run(lab, target, line)
            done += 1
        best = {line: float("inf") for _, line in system.probes}
        for _ in range(runs):
            if collect:
                gc.collect()
            for target, line in system.probes:
                started = time.process_time()
                run(lab, target, line)
                best[line] = min(best[line], time.process_time() - started)
            for target, line in system.rounds:  # the session goes on (the probes' advance counts too)
                run(lab, target, line)
            done += 1
        for line, spent in best.items():
            costs[line].append(spent)
    lab.close()
    return costs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 10, 100, 1000 and 3 runs")
    ap.add_argument("--sizes", default="10,100,1000,10000")
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-collect", action="store_true", help="no garbage collection before each repetition")
    args = ap.parse_args()
    sizes = [10, 100, 1000] if args.quick else [int(s) for s in args.sizes.split(",")]
    runs = 3 if args.quick else args.runs
    print(f"probe CPU ms after N rounds; N = {', '.join(map(str, sizes))}; ratio N={sizes[-1]} / N={sizes[0]}")
    for name in args.systems.split(","):
        costs = measure(SYSTEMS[name], sizes, runs, collect=not args.no_collect)
        for line, spent in costs.items():
            cells = "  ".join(f"{s * 1e3:8.3f}" for s in spent)
            print(f"{name:8} {line:32} {cells}  {spent[-1] / spent[0]:6.2f}x", flush=True)


if __name__ == "__main__":
    main()
