"""`solace-conformance grade --runbook NAME INPUT... --out DIR`: a class's transcripts graded on Spark.

The conformance job's machinery, with grading in place of the replay: inputs listed on the driver and
cut into contiguous ranges of the sorted names (`job.list_inputs`, `split_names`), one Spark job per
partition brought back in order (`fetch.InOrder`), the progress bar, staged output put in place only
when the run completes (`output.OutputDir`), Ctrl-C or SIGTERM cancelling the run (`job.run_job`).

The runbook is read and validated once, on the driver (an unknown name or an invalid file stops the
run before Spark starts), and shipped to the executors with the job. Each executor grades its
transcripts as `solace-shell grade` does (`solace_shell.grading`, a fresh lab each); a transcript
that cannot be graded (unreadable, too large, of another system, not replayable) is a quarantine row
with its reason and the run goes on.

Output (`--out`): `grades.parquet` (one row per input, sorted by name: transcript, runbook, status,
passed, score, verdict, failed_steps, step_status as a map from step id to status in the runbook's
order, lost, duplicated, reason), `quarantine.parquet`, `summary.json` and `report.html` (which steps
fail most and what their failures cost, `grade_report.py`), all byte-identical for the same inputs and
runbook, and `run.json` (timings).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .grade_report import OUTCOME_ID, GradeRow, GradeTally, dumps, render_grade_report
from .job import (
    InputError,
    Item,
    JobGroup,
    _collect,
    _is_local,
    _local_path,
    _too_many_commands,
    _unusable,
    balanced_inputs,
    check_local_inputs,
    display_safe,
    list_inputs,
    publish,
    run_job,
    sources,
)

if TYPE_CHECKING:
    import pyarrow as pa

    from solace_shell.grading.runbook import Runbook

    from .interrupt import StopOnSignals
    from .output import OutputDir

Collected = tuple[int, list[GradeRow], float]  # what `grade_chunk` yields for one partition
GRADES_TABLE = "grades.parquet"
QUARANTINE_TABLE = "quarantine.parquet"


@dataclass
class GradeOptions:
    runbook: str                     # a bundled runbook's name or a runbook file
    inputs: Sequence[str]
    out: str
    master: str | None = None
    partitions: int | None = None
    progress: bool = True
    max_files_per_partition: int = 4096
    spark_conf: dict[str, str] = field(default_factory=dict)


@dataclass
class GradeResult:
    summary: dict[str, Any]
    run_info: dict[str, Any]


def load(runbook: str) -> Runbook:
    """The runbook, validated on the driver; any problem with it is the run's input error."""
    from solace_shell.grading import RunbookError, load_runbook  # noqa: PLC0415

    try:
        return load_runbook(runbook)
    except RunbookError as exc:
        raise InputError(str(exc)) from None


def report_rows(runbook: Runbook) -> list[tuple[str, str]]:
    """The report's rows, (id, title): the runbook's steps in order, its forbidden actions, its outcome."""
    expected = ", ".join(f"{measure} {value}" for measure, value in runbook.outcome)
    return [*((s.id, s.title) for s in runbook.steps), *((f.id, f"Forbidden: {f.title}") for f in runbook.forbidden),
            (OUTCOME_ID, f"Expected outcome at the end: {expected}")]


def grades_schema() -> pa.Schema:
    import pyarrow as pa  # noqa: PLC0415

    return pa.schema([
        pa.field("transcript", pa.string()), pa.field("runbook", pa.string()), pa.field("status", pa.string()),
        pa.field("passed", pa.bool_()), pa.field("score", pa.float64()), pa.field("verdict", pa.string()),
        pa.field("failed_steps", pa.list_(pa.string())),
        pa.field("step_status", pa.map_(pa.string(), pa.string())),
        pa.field("lost", pa.int64()), pa.field("duplicated", pa.int64()), pa.field("reason", pa.string())])


def quarantine_schema() -> pa.Schema:
    import pyarrow as pa  # noqa: PLC0415

    return pa.schema([pa.field("transcript", pa.string()), pa.field("reason", pa.string())])


# -------------------------------------------------------------------------------------- executors


def grade_one(runbook: Runbook, name: str, base_dir: str | None, data: bytes | str) -> GradeRow:
    """One input's row: its grade, or why it could not be graded. Never raises for a bad transcript."""
    from solace_shell.grading import GradeError  # noqa: PLC0415

    reason = _unusable(name, data)
    try:
        if reason is None:
            assert isinstance(data, (bytes, bytearray, memoryview))
            text = bytes(data).decode("utf-8-sig")
            reason = _too_many_commands(text)
            if reason is None:
                return _graded(runbook, name, text, base_dir)
    except GradeError as exc:  # not gradable: its one line says why
        reason = exc.error
    except UnicodeDecodeError as exc:
        reason = f"undecodable: not UTF-8 ({exc.reason} at byte {exc.start})"
    except Exception as exc:  # one bad transcript must not stop thousands of others
        reason = display_safe(f"grading crashed: {type(exc).__name__}: {exc}")
    return GradeRow(name, "quarantined", False, None, None, (), (), None, None, display_safe(reason))


def _graded(runbook: Runbook, name: str, text: str, base_dir: str | None) -> GradeRow:
    from solace_shell.grading.transcript import grade_text  # noqa: PLC0415

    grade = grade_text(runbook, text, name, Path(base_dir) if base_dir is not None else None)
    measured = {measure: value for measure, _, value in grade.outcome}
    return GradeRow(name, "graded", grade.passed, grade.score, grade.verdict, tuple(grade.failed_steps),
                    tuple((s.id, s.status) for s in grade.steps), measured.get("lost"),
                    measured.get("duplicated"), None)


def grade_chunk(runbook: Runbook) -> Any:
    """The executors' function: one partition (a contiguous range of the sorted names) in, one tuple
    out: (partition index, its rows in name order, the task's CPU seconds)."""

    def chunk(index: int, items: Iterable[Item]) -> Iterator[Collected]:
        from solace_shell.transcript.replay import paced_collection  # noqa: PLC0415

        cpu_before = time.process_time()
        rows = []
        with paced_collection():
            for raw_name, (base_dir, data) in sources(items):
                rows.append(grade_one(runbook, display_safe(raw_name), base_dir, data))
        yield index, rows, time.process_time() - cpu_before

    return chunk


# --------------------------------------------------------------------------------------------- run


def run_grade(opts: GradeOptions, spark: Any | None = None) -> GradeResult:
    """Grade `opts.inputs` against `opts.runbook` and write `opts.out`, which changes only when the
    run completes (as `job.run`)."""
    started = time.perf_counter()
    runbook = load(opts.runbook)
    check_local_inputs(opts.inputs)
    return run_job(opts.out, opts.master, opts.spark_conf, spark,
                   lambda spark, group, stop: _grade_in_session(opts, runbook, spark, group, stop, started))


def _grade_in_session(opts: GradeOptions, runbook: Runbook, spark: Any, group: JobGroup, stop: StopOnSignals,
                      started: float) -> GradeResult:
    from .fetch import InOrder, window_for  # noqa: PLC0415
    from .progress import RunProgress  # noqa: PLC0415

    sc = spark.sparkContext
    files, hidden, missing = list_inputs(spark, opts.inputs)
    if missing:
        raise InputError("no such input: " + ", ".join(missing))
    if not files and not hidden:
        raise InputError("the inputs hold no transcript files")
    stop.check()
    tally = GradeTally(runbook.name, runbook.title, report_rows(runbook))
    opening: Future[OutputDir] | None = None
    with (RunProgress(enabled=opts.progress) as progress,
          ThreadPoolExecutor(1, thread_name_prefix="grade-setup") as setup):
        try:
            progress.set_label(f"grading {len(files)} transcripts")
            inputs, n_parts = balanced_inputs(spark, files, hidden, opts.partitions, opts.max_files_per_partition)
            parts = inputs.mapPartitionsWithIndex(grade_chunk(runbook))
            stop.check()
            opening = setup.submit(_open_output, spark, opts.out)
            progress.expect(n_parts)
            task_cpu = 0.0
            with InOrder(lambda k: cast(Collected, _collect(group, parts, k)), n_parts,
                         window_for(sc.defaultParallelism), cancel=group.cancel, on_done=progress.advance,
                         submitted=group.submitted) as fetched:
                for _, rows, cpu in fetched:
                    stop.check()
                    task_cpu += cpu
                    output = opening.result()
                    _write_rows(output, runbook.name, rows)
                    for row in rows:
                        tally.add(row)
            output = opening.result()
            output.tables.close()
            progress.set_label("reporting")
            summary = tally.summary(opts.inputs)
            output.write_text("summary.json", dumps(summary))
            output.write_text("report.html", render_grade_report(summary))
            wall = time.perf_counter() - started
            run_info = {
                "spark_version": spark.version, "master": sc.master,
                "default_parallelism": sc.defaultParallelism, "partitions": n_parts,
                "runbook": runbook.name, "transcripts": summary["totals"]["transcripts"],
                "wall_seconds": round(wall, 3),
                "transcripts_per_second": round(summary["totals"]["transcripts"] / wall, 1) if wall > 0 else None,
                "executor_cpu_seconds": round(task_cpu, 3),
            }
            output.write_text("run.json", json.dumps(run_info, indent=2) + "\n")
            stop.check()
            output.commit()
        except BaseException:
            group.cancel()
            if opening is not None:
                try:
                    opening.result().discard()
                except Exception:  # staging itself failed: nothing was staged
                    pass
            raise
    return GradeResult(summary=summary, run_info=run_info)


def _open_output(spark: Any, out: str) -> OutputDir:
    from .output import OutputDir  # noqa: PLC0415

    return OutputDir(_local_path(out), _is_local(out),
                     {GRADES_TABLE: grades_schema(), QUARANTINE_TABLE: quarantine_schema()},
                     lambda file, name: publish(spark, file, out, name))


def _write_rows(output: OutputDir, runbook: str, rows: Sequence[GradeRow]) -> None:
    """One partition's rows, already in name order, appended to the two tables."""
    import pyarrow as pa  # noqa: PLC0415

    grades = pa.Table.from_pylist([{
        "transcript": r.transcript, "runbook": runbook, "status": r.status,
        "passed": r.passed if r.status == "graded" else None, "score": r.score, "verdict": r.verdict,
        "failed_steps": list(r.failed_steps), "step_status": list(r.steps), "lost": r.lost,
        "duplicated": r.duplicated, "reason": r.reason} for r in rows], schema=grades_schema())
    output.tables.writers[GRADES_TABLE].write(grades)
    quarantined = [{"transcript": r.transcript, "reason": r.reason} for r in rows if r.status != "graded"]
    output.tables.writers[QUARANTINE_TABLE].write(pa.Table.from_pylist(quarantined, schema=quarantine_schema()))
