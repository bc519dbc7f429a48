"""Real lab files with random bytes overwritten, opened as the shell opens them.

Run: python bench/bench_lab_corruption.py [--cases N] [--seed S]

Each case takes one of three real lab files (the default lab as created, after commands, and a
schema 5 lab that is rewritten on open; tests/lab_corruption.py), overwrites one to eight random
bytes, opens it and, when it opens, runs a read, a change and a console command. Printed: how many
gave a clean one-line error naming the file, how many opened and answered, and anything else
(a traceback or an internal error: must be 0), with the first few of those.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.lab_corruption import Damage, damages, lab_bytes, open_damaged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
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
    return 1 if counts["other"] else 0


if __name__ == "__main__":
    sys.exit(main())
