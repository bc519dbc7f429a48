"""Spark's Python daemon for the conformance job: the replay is warmed up once, then workers fork.

Why: Spark forks every Python worker from one daemon process per executor. A worker forked from
`pyspark.daemon` imported the replay, loaded the grammar and built the default lab's template
before its first transcript: ~0.3 s of CPU per worker (~0.5 s while the default scenario's
passwords were still hashed at load), paid again by each of them. Forked from a daemon that did
it once, they inherit all of it (copy-on-write). pyarrow is left to the workers: it starts threads
when imported, and threads must not exist across fork() (pyspark.daemon imports the worker module
after the fork for that reason); the warm-up here starts none (tests/spark/test_spark_drills.py checks).

`get_spark` sets `spark.python.daemon.module` to this module; a session started elsewhere
(spark-submit, a notebook) can pass `--conf spark.python.daemon.module=spark_jobs.daemon`.
"""

from __future__ import annotations

import gc
import importlib.machinery
import os
import re
import sys
from collections.abc import Callable, Sequence

_SHIPPED_LIB = os.path.join("pyspark", "python", "lib")
_PY4J_ZIP = re.compile(r"py4j-(?P<version>.+)-src\.zip")


def without_shipped_sources(path: Sequence[str], py4j_version: Callable[[], str | None]) -> list[str]:
    """`path` (sys.path) without the source zips Spark ships inside an installed pyspark package,
    where the installed package itself is what an import then finds.

    Why: Spark puts `<site>/pyspark/python/lib/pyspark.zip` (and py4j's zip) first on its Python
    workers' path. The zips hold sources only, and Python keeps no compiled files for a zip, so every
    daemon compiled `pyspark.worker` and all it imports before the first task of a session could
    start: about 0.4 s of CPU (0.48 s against 0.07 s from the installed package's compiled files,
    timed ad hoc, docs/conformance.md), and the workers compiled more as their first task imported
    it. A zip inside
    `<site>/pyspark` is the same release as the package around it (one wheel), so it goes only when,
    without it, the import finds that very package: not when the workers run another interpreter, which
    lacks `<site>` on its path, nor when something earlier on the path would shadow it. py4j's zip also
    needs the installed py4j to be the version its name gives (`py4j_version()`, asked only then). A
    Spark distribution's own `python/lib` is left alone.
    """
    kept = list(path)
    for entry in path:
        lib, name = os.path.split(entry)
        if not lib.endswith(_SHIPPED_LIB):
            continue
        site = lib[: -len(_SHIPPED_LIB)].rstrip(os.sep)
        shipped_py4j = _PY4J_ZIP.fullmatch(name)
        module = "pyspark" if name == "pyspark.zip" else "py4j" if shipped_py4j else None
        trial = [e for e in kept if e != entry]
        if module and _imported_from(module, trial) == site and (
                not shipped_py4j or shipped_py4j["version"] == py4j_version()):
            kept = trial
    return kept


def _imported_from(package: str, path: list[str]) -> str | None:
    """The directory holding `package` as `import` would find it on `path`, if a plain directory."""
    spec = importlib.machinery.PathFinder.find_spec(package, path)
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return None  # not found, or found inside a zip
    return os.path.dirname(os.path.dirname(spec.origin))


def _installed_py4j_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("py4j")
    except PackageNotFoundError:
        return None


_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def warm_up() -> None:
    """What every worker needs before its first transcript and can inherit through fork(), then
    frozen for the collector (`freeze_inherited`).

    Some pyspark releases import NumPy in the worker module when it is installed, and NumPy's BLAS
    starts its thread pool on import: a thread alive at fork() is lost in every worker, holding
    whatever lock it held. The replay does no linear algebra, so the pool is asked for no threads
    (a variable the user set wins)."""
    for variable in _BLAS_THREADS:
        os.environ.setdefault(variable, "1")
    import pyspark.worker  # noqa: F401, PLC0415  (the daemon would import it in each worker)

    from solace_shell.lab import Lab  # noqa: PLC0415

    from . import job, partials  # noqa: F401, PLC0415

    Lab.fresh().close()  # the grammar and the default lab's template, cached for every later lab
    freeze_inherited()


def freeze_inherited() -> None:
    """Move everything the daemon holds now out of the cyclic collector's reach, for good.

    Why: every worker inherits these objects and keeps them until it exits, yet each full collection
    in a worker walked them all again, above all the `gc.collect()` that `pyspark.daemon` runs after
    every task of a reused worker, while that worker's core waits. Frozen (`gc.freeze`, which
    Python's documentation advises before a fork), they are skipped, and the collector no longer
    writes to their pages, which fork() shares copy-on-write. After a 2,500-drill partition that
    collection took 54-80 ms, and 15-33 ms frozen (`bench/bench_worker_gc.py`). The garbage made so
    far is collected first, so none is frozen with them.
    """
    gc.collect()
    gc.freeze()


USAGE = """usage: python -m spark_jobs.daemon

The Python worker daemon Spark starts on each executor when `spark.python.daemon.module` is
`spark_jobs.daemon` (the conformance job's sessions set it): it warms the replay up once, then runs
PySpark's own daemon, which forks the workers. Spark starts it, with the arguments Spark gives."""


def main() -> None:
    if sys.argv[1:] in (["-h"], ["--help"]):  # a person asking; Spark passes its own arguments through
        print(USAGE)
        sys.exit(0)
    sys.path[:] = without_shipped_sources(sys.path, _installed_py4j_version)
    try:
        warm_up()
    except Exception as exc:  # the workers will meet the same problem and report it with their task
        print(f"spark_jobs.daemon: warm-up skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
    from pyspark.daemon import manager  # noqa: PLC0415

    manager()


if __name__ == "__main__":
    main()
