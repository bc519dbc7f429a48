"""Real lab files with random bytes overwritten, opened as the shell opens them.

Run: python bench/bench_lab_corruption.py [--cases N] [--seed S] [--kills K]

Each case takes one of three real lab files (the default lab as created, after commands, and a
schema 5 lab that is rewritten on open; tests/support/lab_corruption.py), overwrites one to eight random
bytes, opens it and, when it opens, runs a read, a change and a console command. Printed: how many
gave a clean one-line error naming the file, how many opened and answered, and anything else
(a traceback or an internal error: must be 0), with the first few of those.

With --kills K, also: K times, `solace-shell -c "show hostname"` on a new lab file is killed with
SIGKILL while it writes the lab (at a random moment once its temporary file exists); printed: how
many kills left `.*.creating` files, and how many remained after the next open (must be 0).
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings

from state_store.lab_store import LabStore
from tests.support.lab_corruption import Damage, damages, lab_bytes, open_damaged

ROOT = Path(__file__).resolve().parent.parent


def kills(count: int, seed_value: int) -> int:
    """Kill creators mid-way; print the leftovers before and after the next open; 1 if any remain."""
    rng = random.Random(seed_value)
    left_by_kill = left_after_open = 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(count):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "lab.sqlite"
            proc = subprocess.Popen([sys.executable, "-c", "from solace_shell.cli import main; main()",
                                     "--db", str(path), "-c", "show hostname"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            while proc.poll() is None and not any(".creating" in n for n in os.listdir(tmp)):
                time.sleep(0.001)
            time.sleep(rng.random() * 0.05)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            left_by_kill += any(".creating" in n for n in os.listdir(tmp))
            LabStore.open(path).close()
            left_after_open += any(".creating" in n for n in os.listdir(tmp))
    print(f"SIGKILL while a lab is created: {count} kills, {left_by_kill} left .creating files, "
          f"{left_after_open} still there after the next open")
    return 1 if left_after_open else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--kills", type=int, default=0)
    args = parser.parse_args()
    status = kills(args.kills, args.seed) if args.kills else 0
    if args.cases <= 0:
        return status
    counts: collections.Counter[str] = collections.Counter()
    others: list[str] = []
    slowest = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)

        @seed(args.seed)
        @settings(max_examples=args.cases, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(damages())
        def one(damage: Damage) -> None:
            nonlocal slowest
            case = workdir / f"case{sum(counts.values())}"
            case.mkdir()
            path = case / "lab.sqlite"
            path.write_bytes(damage.apply(lab_bytes(damage.kind, workdir)))
            started = time.perf_counter()
            outcome = open_damaged(path)
            slowest = max(slowest, time.perf_counter() - started)
            if not outcome.clean:
                counts["other"] += 1
                others.append(f"{damage}: {outcome.what}")
            else:
                counts["refused" if outcome.what.startswith("refused") else "opened"] += 1

        one()
    total = sum(counts.values())
    print(f"lab files with random bytes overwritten: {total:,} cases (seed {args.seed}), "
          f"{counts['refused']:,} clean one-line errors naming the file, {counts['opened']:,} opened and answered, "
          f"{counts['other']:,} anything else; slowest case {slowest * 1000:.0f} ms")
    for line in others[:10]:
        print("  " + line)
    return 1 if counts["other"] or status else 0


if __name__ == "__main__":
    sys.exit(main())
