"""Spark's Python daemon for the conformance job: the replay is warmed up once, then workers fork.

Why: Spark forks every Python worker from one daemon process per executor. A worker forked from
`pyspark.daemon` imported the replay, loaded the grammar and built the default lab's template
before its first transcript: ~0.3 s of CPU per worker (~0.5 s while the default scenario's
passwords were still hashed at load), paid again by each of them. Forked from a daemon that did
it once, they inherit all of it (copy-on-write). pyarrow is left to the workers: it starts threads
when imported, and threads must not exist across fork() (pyspark.daemon imports the worker module
after the fork for that reason); the warm-up here starts none (tests/test_spark_drills.py checks).

`get_spark` sets `spark.python.daemon.module` to this module; a session started elsewhere
(spark-submit, a notebook) can pass `--conf spark.python.daemon.module=spark_jobs.daemon`.
"""

from __future__ import annotations

import sys


def warm_up() -> None:
    """What every worker needs before its first transcript and can inherit through fork()."""
    import pyspark.worker  # noqa: F401, PLC0415  (the daemon would import it in each worker)

    from solace_shell.lab import Lab  # noqa: PLC0415

    from . import job, partials  # noqa: F401, PLC0415

    Lab.fresh().close()  # the grammar and the default lab's template, cached for every later lab


def main() -> None:
    try:
        warm_up()
    except Exception as exc:  # the workers will meet the same problem and report it with their task
        print(f"spark_jobs.daemon: warm-up skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
    from pyspark.daemon import manager  # noqa: PLC0415

    manager()


if __name__ == "__main__":
    main()
