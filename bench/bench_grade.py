"""Grading a corpus of generated drills on Spark against replaying the same corpus, in one session.

    python bench/bench_grade.py --count 10000        # the target's size
    python bench/bench_grade.py --count 200          # a try-out

The corpus is `solace-conformance generate --count N --seed S` (kept in --corpus, reused when its
index matches). One Spark session (`--master`, default local[2]) runs, after a warm-up job that starts
its Python workers, `--rounds` pairs of jobs over the corpus, seconds apart: the conformance replay
(`spark_jobs.job.run`) then the grading job (`spark_jobs.grade.run_grade`, `--runbook`). Why pairs in
one session: a core's speed drifts over a minute on a shared machine, so each pair's ratio (grading
seconds / replay seconds) compares two runs made under the same conditions; the median is reported,
with the ratio of the executors' task CPU seconds (each job's run.json), which other processes on the
machine disturb less than wall time. Target: grading within 2x the replay's time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _corpus import corpus, table, write_json

TARGET_RATIO = 2.0


def bench(path: Path, out: Path, master: str, runbook: str, rounds: int) -> dict[str, Any]:
    from spark_jobs.grade import GradeOptions, run_grade
    from spark_jobs.job import RunOptions, get_spark, run

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = get_spark(master, app_name="bench-grade", conf={"spark.ui.enabled": "false"})
    try:
        warm_up = out / "warm-up"
        warm_up.mkdir(parents=True, exist_ok=True)
        first = sorted(path.glob("*.cli.txt"))[:4]
        run(RunOptions(inputs=[str(f) for f in first], out=str(warm_up / "replay"), progress=False), spark=spark)
        pairs = []
        for k in range(rounds):
            t0 = time.perf_counter()
            replayed = run(RunOptions(inputs=[str(path)], out=str(out / f"replay-{k}"), progress=False), spark=spark)
            replay_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            graded = run_grade(GradeOptions(runbook=runbook, inputs=[str(path)], out=str(out / f"grade-{k}"),
                                            progress=False), spark=spark)
            grade_s = time.perf_counter() - t1
            replay_cpu = replayed.run_info["executor_cpu_seconds"]["task"]
            grade_cpu = graded.run_info["executor_cpu_seconds"]
            pairs.append({"replay_seconds": replay_s, "grade_seconds": grade_s, "ratio": grade_s / replay_s,
                          "replay_task_cpu_seconds": replay_cpu, "grade_task_cpu_seconds": grade_cpu,
                          "cpu_ratio": grade_cpu / replay_cpu if replay_cpu else float("nan"),
                          "replayed": replayed.summary["totals"]["transcripts"],
                          "replay_passed": replayed.summary["totals"]["passed_transcripts"],
                          "graded": graded.summary["totals"]["graded"],
                          "grade_passed": graded.summary["totals"]["passed"],
                          "grade_quarantined": graded.summary["totals"]["quarantined"]})
        cores = spark.sparkContext.defaultParallelism
    finally:
        spark.stop()
    return {"master": master, "cores": cores, "runbook": runbook, "pairs": pairs,
            "ratio_median": statistics.median(p["ratio"] for p in pairs),
            "cpu_ratio_median": statistics.median(p["cpu_ratio"] for p in pairs)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--corpus", type=Path, default=None, help="where the drills are kept (default: temporary)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--runbook", default="controlled-failover")
    parser.add_argument("--rounds", type=int, default=2, help="replay/grade pairs in the session")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        path = args.corpus or Path(tmp) / "corpus"
        files, generated = corpus(path, args.count, args.seed)
        result = bench(path, Path(tmp) / "out", args.master, args.runbook, args.rounds)
    result.update({"count": len(files), "seed": args.seed, "generate_seconds": generated})
    print(table(["round", "replay s", "grade s", "grade / replay", "task CPU ratio", "graded", "passed",
                 "quarantined"],
                [[k, f"{p['replay_seconds']:.1f}", f"{p['grade_seconds']:.1f}", f"{p['ratio']:.2f}",
                  f"{p['cpu_ratio']:.2f}", p["graded"], p["grade_passed"], p["grade_quarantined"]]
                 for k, p in enumerate(result["pairs"])]))
    ok = result["ratio_median"] <= TARGET_RATIO
    print(f"median executors' task CPU, grade / replay: {result['cpu_ratio_median']:.2f} (less sensitive to "
          f"other load on the machine than wall time)")
    print(f"median grade / replay {result['ratio_median']:.2f} on {result['master']} "
          f"({len(files)} drills; target <= {TARGET_RATIO:.1f}): {'ok' if ok else 'MISSED'}")
    write_json(args.json, result)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
