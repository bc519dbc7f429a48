"""A trainer's command latency while another logged-in user attacks `solace-shell serve` with input.

Run: python bench/bench_ssh_attacks.py [--quick] [--samples 60] [--attacks paste,long_line]
                                       [--server-tree DIR]

Starts `solace-shell --db <temp lab> serve --port 0` in a child process (the tree given by
`--server-tree`, default this one), logs a trainer in (`admin`, an interactive paramiko session)
and, for each attack of tests/support/ssh_attacks.py (a 70 KB paste, 100 KB on exec input, a 30 KB
line typed at once, 24 execs closed early, in waves), times the trainer's `show hostname` from
Enter to the next prompt: `--samples` times on the quiet server, then as many under the attack,
in the same run. Prints p50 and p99 of both, the p99 ratio, and the CPU time the server used
during the attack (to show the attack was doing work). `--quick`: 10 samples each.

Ratios within one run are the figure: the machine may be shared, and its load moves.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.ssh_attacks import ATTACKS, NY, Measured, measure, served  # noqa: E402 - after sys.path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 samples per measurement")
    parser.add_argument("--samples", type=int, default=60, help="trainer commands per measurement")
    parser.add_argument("--attacks", default=",".join(ATTACKS), help=f"comma-separated, of {', '.join(ATTACKS)}")
    parser.add_argument("--server-tree", type=Path, default=ROOT, help="the source tree the server runs from")
    args = parser.parse_args()
    samples = 10 if args.quick else args.samples
    attacks = [name.strip() for name in args.attacks.split(",") if name.strip()]
    unknown = [name for name in attacks if name not in ATTACKS]
    if unknown:
        parser.error(f"unknown attack(s): {', '.join(unknown)}")
    print(f"server tree {args.server_tree}; {samples} trainer commands quiet and under each attack; "
          f"load average {os.getloadavg()[0]:.1f}")
    results: list[Measured] = []
    with tempfile.TemporaryDirectory() as work, served(Path(work) / "bench.lab", tree=args.server_tree) as server:
        for attack in attacks:
            cpu, started = server.cpu_seconds(), time.monotonic()
            measured = measure(attack, server.ports[NY], samples)
            results.append(measured)
            print(f"{measured.line()} | server CPU {server.cpu_seconds() - cpu:5.1f} s in "
                  f"{time.monotonic() - started:4.0f} s", flush=True)
        started = time.monotonic()
        status = server.stop()
        print(f"SIGTERM: exit status {status} after {time.monotonic() - started:.1f} s; "
              f"load average {os.getloadavg()[0]:.1f}")
    return 0 if all(result.bounded() for result in results) and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
