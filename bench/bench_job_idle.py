"""Where a conformance run leaves its cores idle: before the first task, between tasks, after the last.

    python bench/bench_job_idle.py --corpus DIR [--runs 4] [--master local[2]] [--json FILE]

DIR is a generated corpus (`solace-conformance generate --count N --out DIR`, or the --corpus of
bench_replay_throughput.py). One Spark session runs the conformance job --runs times over DIR; the
first run starts the Python workers, the later ones find them warm. Spark's event log gives each
task's launch and finish; for each run the bench prints its wall time and:

- head: from the call to `run` to the first task's launch (listing, partitioning, the first job);
- tail: from the last task's end to `run` returning (the rows still to write, the summary);
- idle: cores x wall minus the tasks' time, in core-seconds and as a share of cores x wall: what the
  cores did not spend in tasks (head and tail on every core, the gaps between a core's tasks, the
  cores that ended before the last).

Why from the event log: its task times come from Spark itself, in any version of the job, so the same
command measures two versions of the code (an A/B from two checkouts) without touching either.
The wall times move with this machine's speed from run to run; the idle share moves much less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._corpus import table, write_json  # noqa: E402


def task_spans(event_log_dir: Path) -> list[tuple[float, float]]:
    """(launch, finish) of every task the session ran, in seconds since the epoch. The log is one file,
    or (Spark 4's default) a directory of rolled files."""
    spans = []
    for log in sorted(p for p in event_log_dir.rglob("*") if p.is_file() and not p.name.startswith(".")):
        with log.open(encoding="utf-8") as fh:
            for line in fh:
                event = json.loads(line)
                if event.get("Event") == "SparkListenerTaskEnd":
                    info = event["Task Info"]
                    spans.append((info["Launch Time"] / 1000, info["Finish Time"] / 1000))
    return spans


def run_idle(start: float, end: float, spans: list[tuple[float, float]], cores: int) -> dict[str, float]:
    mine = [(a, b) for a, b in spans if start <= a <= end]
    wall = end - start
    busy = sum(b - a for a, b in mine)
    idle = cores * wall - busy
    return {"wall_seconds": wall, "tasks": len(mine), "head_seconds": min(a for a, _ in mine) - start,
            "tail_seconds": end - max(b for _, b in mine), "idle_core_seconds": idle,
            "idle_share": idle / (cores * wall)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    if not any(args.corpus.glob("*.cli.txt")):
        print(f"bench_job_idle: no transcripts (*.cli.txt) in {args.corpus}", file=sys.stderr)
        return 2
    from spark_jobs.job import RunOptions, get_spark, run

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    work = Path(tempfile.mkdtemp(prefix="bench-job-idle-"))
    try:
        events = work / "events"
        events.mkdir()
        spark = get_spark(args.master, app_name="bench-job-idle", conf={
            "spark.ui.enabled": "false", "spark.eventLog.enabled": "true",
            "spark.eventLog.dir": events.as_uri(), "spark.eventLog.compress": "false"})
        cores = spark.sparkContext.defaultParallelism
        runs = []
        for k in range(args.runs):
            start = time.time()
            result = run(RunOptions(inputs=[str(args.corpus)], out=str(work / f"out{k}"), progress=False), spark=spark)
            runs.append((start, time.time(), result.run_info["partitions"]))
        spark.stop()  # the event log is complete once the session has stopped
        spans = task_spans(events)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    measured: list[dict[str, Any]] = [{"run": k, "partitions": parts, **run_idle(start, end, spans, cores)}
                                      for k, (start, end, parts) in enumerate(runs)]
    print(table(["run", "partitions", "wall s", "head s", "tail s", "idle core-s", "idle share"],
                [[("first" if m["run"] == 0 else f"warm {m['run']}"), m["partitions"], f"{m['wall_seconds']:.2f}",
                  f"{m['head_seconds']:.3f}", f"{m['tail_seconds']:.3f}", f"{m['idle_core_seconds']:.2f}",
                  f"{m['idle_share']:.1%}"] for m in measured]))
    warm = measured[1:]
    if warm:
        print(f"warm runs on {cores} cores: idle share median {statistics.median(m['idle_share'] for m in warm):.1%}, "
              f"tail median {statistics.median(m['tail_seconds'] for m in warm):.3f} s")
    write_json(args.json, {"cores": cores, "runs": measured})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
