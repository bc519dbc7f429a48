"""What an executor spends on a partition beside the replay itself, in CPU seconds of one process.

    python bench/bench_job_overhead.py --corpus DIR [--partitions 4] [--rounds 5] [--transcripts N]

DIR is a generated corpus (`solace-conformance generate --count N --out DIR`, or the --corpus of
bench_replay_throughput.py); its first partition, cut as the conformance job cuts it (`split_names`,
--partitions; its first N transcripts with --transcripts, so that more rounds fit), is replayed five
ways, in turn, --rounds times:

  replay      `replay_text` over the partition's texts, read beforehand (what the in-process mode of
              bench_replay_throughput.py times);
  memory      `job.replay_partition` over the same bytes, read beforehand: the quarantine checks,
              the decoding, the verdict counts;
  one by one  `job.replay_partition` over the files, each read just before its replay (the job's
              reading before it read ahead);
  partition   `job.replay_partition` over the files as the job reads them (`job.sources`: ahead, in
              runs of `job.READ_AHEAD_FILES`);
  chunk       `job.replay_chunk`, the whole task body: the above, the aggregates (`partials.py`) and the
              two Arrow streams (`wire.py`).

It prints each way's CPU seconds (`time.process_time`; the median and the least of the rounds, as
other work on the machine only ever adds time) and what each adds to the replay. Why: a Spark job
on N cores can run at most N x (replay CPU) / (its whole CPU) times the in-process replay, so
whatever a task adds to the replay caps the speed-up before any scheduling does;
bench_replay_throughput.py prints the whole job's CPU against the replay's, this splits the
executors' part. One process, so what Spark's worker adds around a task is not in it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solace_shell.lab import Lab  # noqa: E402
from solace_shell.transcript.replay import paced_collection, replay_text  # noqa: E402
from spark_jobs import job  # noqa: E402


def cpu_of(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--partitions", type=int, default=4, help="cut the corpus as the job would (default 4)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--transcripts", type=int, default=None, help="only the partition's first N transcripts")
    args = ap.parse_args()
    if args.partitions < 1 or args.rounds < 1 or (args.transcripts is not None and args.transcripts < 1):
        print("bench_job_overhead: --partitions, --rounds and --transcripts must be at least 1", file=sys.stderr)
        return 2
    files = sorted(str(p) for p in args.corpus.glob("*.cli.txt"))
    if not files:
        print(f"bench_job_overhead: no transcripts (*.cli.txt) in {args.corpus}", file=sys.stderr)
        return 2
    part_of = job.split_names({f: os.stat(f).st_size for f in files}, args.partitions)
    mine = [f for f in files if part_of[f] == 0][:args.transcripts]
    items: list[job.Item] = [(os.path.basename(f), ("local", os.fsencode(f))) for f in mine]
    in_memory: list[job.Item] = [(os.path.basename(f), ("bytes", os.path.dirname(f), Path(f).read_bytes()))
                                 for f in mine]

    texts = [(f, source[2].decode("utf-8")) for f, (_, source) in zip(mine, in_memory, strict=True)]

    def replay() -> tuple[float, int]:
        """The bare replay's CPU seconds (the texts read beforehand, outside the timing) and its commands."""
        commands = 0
        started = time.process_time()
        with paced_collection():
            for name, text in texts:
                commands += len(replay_text(text, name).commands)
        return time.process_time() - started, commands

    def memory() -> None:
        for _ in job.replay_partition(job.sources(in_memory)):
            pass

    def one_by_one() -> None:
        ahead = job.READ_AHEAD_FILES
        job.READ_AHEAD_FILES = 1  # (read at each call of `sources`)
        try:
            for _ in job.replay_partition(job.sources(items)):
                pass
        finally:
            job.READ_AHEAD_FILES = ahead

    def partition() -> None:
        for _ in job.replay_partition(job.sources(items)):
            pass

    def chunk() -> None:
        for _ in job.replay_chunk(0, items):
            pass

    Lab.fresh().close()
    chunk()  # the first call imports pyarrow and warms the replay's caches: not counted
    ways: dict[str, list[float]] = {"replay": [], "memory": [], "one by one": [], "partition": [], "chunk": []}
    commands = 0
    for _ in range(args.rounds):
        cpu, commands = replay()
        ways["replay"].append(cpu)
        ways["memory"].append(cpu_of(memory))
        ways["one by one"].append(cpu_of(one_by_one))
        ways["partition"].append(cpu_of(partition))
        ways["chunk"].append(cpu_of(chunk))
    base, least = statistics.median(ways["replay"]), min(ways["replay"])
    first = " (its first ones)" if args.transcripts else ""
    print(f"partition 0 of {args.partitions}{first}: {len(mine)} transcripts, {commands} commands; "
          f"CPU seconds over {args.rounds} rounds, and what each way adds to the replay")
    print(f"  {'':<11}{'median':>8}{'':>9}{'least':>8}")
    for way, values in ways.items():
        median, low = statistics.median(values), min(values)
        print(f"  {way:<11}{median:8.3f} s {median / base - 1:+6.1%} {low:8.3f} s {low / least - 1:+6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
