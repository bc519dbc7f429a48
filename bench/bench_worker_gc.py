"""What the Spark daemon's `gc.freeze()` saves a worker: the full collection after each task.

    python bench/bench_worker_gc.py --corpus DIR [--partitions 4] [--rounds 2]

DIR is a generated corpus (`solace-conformance generate --count N --out DIR`, or the --corpus of
bench_replay_throughput.py); it is split into --partitions partitions as the conformance job splits it.
Each round starts two workers the way Spark does: this process warms up as `spark_jobs.daemon` does,
forks, and the child replays the first three partitions with `replay_chunk`, one after the other. In
one worker the warmed objects stay frozen (what the daemon does), in the other they are thawed first
(`gc.unfreeze()`: the daemon before this change); the order alternates from round to round. For each
partition it prints the replay's CPU time and how long the `gc.collect()` that `pyspark.daemon` runs
after every task of a reused worker takes.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spark_jobs import daemon, job  # noqa: E402


def worker(frozen: bool, parts: list[list[job.Item]]) -> None:
    """In a forked child: replay each partition, then time the collection the daemon runs after it."""
    if not frozen:
        gc.unfreeze()
    for index, items in enumerate(parts):
        cpu = time.process_time()
        for _ in job.replay_chunk(index, items):
            pass
        cpu = time.process_time() - cpu
        t = time.perf_counter()
        gc.collect()  # as pyspark.daemon does after every task of a reused worker
        after = (time.perf_counter() - t) * 1000
        print(f"{'frozen' if frozen else 'thawed':<7} partition {index}: replay {cpu:.2f} s CPU, "
              f"the collection after it {after:.0f} ms", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    files = sorted(str(p) for p in args.corpus.glob("*.cli.txt"))
    if not files:
        print(f"bench_worker_gc: no transcripts (*.cli.txt) in {args.corpus}", file=sys.stderr)
        return 2
    chunk_of = job.split_names({f: os.stat(f).st_size for f in files}, args.partitions)
    parts: list[list[job.Item]] = [[] for _ in range(args.partitions)]
    for f in files:
        parts[chunk_of[f]].append((os.path.basename(f), ("local", os.fsencode(f))))
    daemon.warm_up()
    for round_ in range(args.rounds):
        for frozen in ((True, False) if round_ % 2 == 0 else (False, True)):
            pid = os.fork()
            if pid == 0:
                try:
                    worker(frozen, parts[:3])
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
