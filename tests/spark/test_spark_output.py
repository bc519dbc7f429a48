"""The conformance job's output directory (staged, then committed) and its stop on SIGINT/SIGTERM.

The job itself, interrupted through its real command line, is in test_spark_conformance.py; these are
the two pieces on their own, with no Spark session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")

from spark_jobs.interrupt import Interrupted, StopOnSignals  # noqa: E402
from spark_jobs.output import OWNER_FILE, STAGING_PREFIX, OutputDir, sweep_abandoned  # noqa: E402

SCHEMAS = {"commands.parquet": pa.schema([pa.field("line", pa.int32())]),
           "transcripts.parquet": pa.schema([pa.field("transcript", pa.string())])}


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every entry below `root`: files with their bytes, directories as None."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def _previous_run(out: Path) -> dict[str, bytes | None]:
    out.mkdir()
    (out / "commands.parquet").mkdir()
    (out / "commands.parquet" / "part-00000.parquet").write_bytes(b"the previous run's table")
    (out / "commands.parquet" / "_SUCCESS").write_bytes(b"")
    (out / "summary.json").write_text('{"from": "the previous run"}\n')
    (out / "notes.txt").write_text("the user's own file\n")
    return _tree(out)


def _stage_a_run(out: OutputDir) -> None:
    out.tables.writers["commands.parquet"].write(pa.table({"line": pa.array([1, 2], pa.int32())}))
    out.tables.writers["transcripts.parquet"].write(pa.table({"transcript": ["a.cli.txt"]}))
    out.tables.close()
    out.write_text("summary.json", '{"from": "this run"}\n')


def _unused_publish(file: str, name: str) -> None:
    raise AssertionError("a local output publishes nothing")


def test_nothing_reaches_the_output_before_commit_and_commit_replaces_only_the_runs_entries(tmp_path):
    out = tmp_path / "out"
    before = _previous_run(out)
    staged = OutputDir(str(out), True, SCHEMAS, _unused_publish)
    _stage_a_run(staged)
    assert {k: v for k, v in _tree(out).items() if not k.startswith(STAGING_PREFIX)} == before
    staged.commit()
    after = _tree(out)
    assert sorted(after) == ["commands.parquet", "commands.parquet/_SUCCESS", "commands.parquet/part-00000.parquet",
                             "notes.txt", "summary.json", "transcripts.parquet", "transcripts.parquet/_SUCCESS",
                             "transcripts.parquet/part-00000.parquet"]
    assert after["summary.json"] == b'{"from": "this run"}\n' and after["notes.txt"] == b"the user's own file\n"
    import pyarrow.parquet as pq

    assert pq.read_table(out / "commands.parquet").column("line").to_pylist() == [1, 2]


def test_a_discarded_run_leaves_the_output_as_it_was(tmp_path):
    out = tmp_path / "out"
    before = _previous_run(out)
    staged = OutputDir(str(out), True, SCHEMAS, _unused_publish)
    out_tables = staged.tables
    out_tables.writers["commands.parquet"].write(pa.table({"line": pa.array([7], pa.int32())}))
    staged.discard()  # mid-way: the tables still open
    assert _tree(out) == before


def test_a_discarded_run_removes_the_output_directory_it_created(tmp_path):
    out = tmp_path / "new" / "out"
    staged = OutputDir(str(out), True, SCHEMAS, _unused_publish)
    _stage_a_run(staged)
    staged.discard()
    assert not out.exists() and (tmp_path / "new").is_dir()


def test_a_remote_output_is_published_at_commit_and_never_when_discarded(tmp_path):
    published: dict[str, bytes] = {}

    def publish(file: str, name: str) -> None:
        published[name] = Path(file).read_bytes()

    staged = OutputDir("hdfs://nn/out", False, SCHEMAS, publish)
    _stage_a_run(staged)
    assert published == {}
    staged.commit()
    assert sorted(published) == ["commands.parquet/_SUCCESS", "commands.parquet/part-00000.parquet", "summary.json",
                                 "transcripts.parquet/_SUCCESS", "transcripts.parquet/part-00000.parquet"]
    assert published["summary.json"] == b'{"from": "this run"}\n'

    published.clear()
    dropped = OutputDir("hdfs://nn/out", False, SCHEMAS, publish)
    _stage_a_run(dropped)
    dropped.discard()
    assert published == {}


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)


STAGING_CHILD = """
import sys
import pyarrow as pa
from spark_jobs.output import OutputDir
staged = OutputDir(sys.argv[1], True, {"commands.parquet": pa.schema([pa.field("line", pa.int32())])},
                   lambda file, name: None)
print(staged.staging, flush=True)
sys.stdin.read()  # staging until killed
"""


def _staging_process(out: Path) -> tuple[subprocess.Popen[str], str]:
    """A real process staging a run in `out` (the conformance job's driver, without Spark); its directory."""
    child = subprocess.Popen([sys.executable, "-c", STAGING_CHILD, str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    return child, os.path.basename(child.stdout.readline().strip())


def _staging_dirs(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(STAGING_PREFIX))


def test_a_run_removes_the_staging_a_killed_run_left_and_never_a_live_runs(tmp_path):
    """SIGKILL leaves a run no time to remove its staging directory: the next run in that `--out` does,
    and only that one, however many runs stage there at once; the output's own entries stay."""
    out = tmp_path / "out"
    before = _previous_run(out)
    live, live_dir = _staging_process(out)
    killed, killed_dir = _staging_process(out)
    try:
        killed.kill()
        killed.wait()
        assert _staging_dirs(out) == sorted([live_dir, killed_dir])
        staged = OutputDir(str(out), True, SCHEMAS, _unused_publish)
        assert killed_dir not in _staging_dirs(out)
        assert live_dir in _staging_dirs(out)
        staged.discard()
        assert _staging_dirs(out) == [live_dir]
        assert {k: v for k, v in _tree(out).items() if not k.startswith(STAGING_PREFIX)} == before
    finally:
        live.kill()
        live.wait()
    assert sweep_abandoned(str(out)) == [live_dir]
    assert _staging_dirs(out) == []


def test_a_staging_directory_without_its_owner_file_is_left_alone(tmp_path):
    """A run between creating its directory and locking its owner file looks like this; so does a
    directory an earlier release left: neither can be told abandoned, so neither is removed."""
    out = tmp_path / "out"
    (out / f"{STAGING_PREFIX}unowned").mkdir(parents=True)
    (out / f"{STAGING_PREFIX}unowned" / "summary.json").write_text("{}\n")
    assert sweep_abandoned(str(out)) == []
    OutputDir(str(out), True, SCHEMAS, _unused_publish).discard()
    assert _staging_dirs(out) == [f"{STAGING_PREFIX}unowned"]


def test_a_remote_runs_local_staging_is_swept_from_the_temporary_directory(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    abandoned = tmp_path / f"{STAGING_PREFIX}abandoned"
    abandoned.mkdir()
    (abandoned / OWNER_FILE).write_bytes(b"")  # nobody holds its lock
    staged = OutputDir("hdfs://nn/out", False, SCHEMAS, lambda file, name: None)
    assert _staging_dirs(tmp_path) == [os.path.basename(staged.staging)]
    staged.discard()
    assert _staging_dirs(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_cancels_at_once_and_the_run_ends_interrupted(signum):
    cancelled = threading.Event()
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as caught, StopOnSignals(cancelled.set) as stop:
        _signal_self(signum)
        assert cancelled.wait(5), "the helper thread cancels the run's jobs without waiting for a check"
        stop.check()
    assert caught.value.signum == signum and caught.value.exit_status == 128 + signum
    assert str(caught.value) == f"interrupted ({signal.Signals(signum).name})"
    assert signal.getsignal(signum) is before, "the handler the run found is back"


def test_the_error_a_cancelled_job_raises_becomes_interrupted():
    with pytest.raises(Interrupted), StopOnSignals(lambda: None):
        _signal_self(signal.SIGINT)
        raise RuntimeError("Job 3 cancelled part of cancelled job group solace-conformance")


def test_without_a_signal_errors_pass_through_and_nothing_is_cancelled():
    calls: list[str] = []
    with pytest.raises(ValueError, match="a real failure"), StopOnSignals(lambda: calls.append("cancel")) as stop:
        stop.check()
        raise ValueError("a real failure")
    assert calls == []


def test_a_run_outside_the_main_thread_keeps_the_handlers_it_found():
    seen: list[object] = []

    def body() -> None:
        with StopOnSignals(lambda: None):
            seen.append(signal.getsignal(signal.SIGINT))

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == [before]


def test_an_out_that_cannot_be_a_directory_is_refused_before_spark_starts(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import spark_jobs.job
    from spark_jobs.cli import main

    def no_session(*args, **kwargs):
        raise AssertionError("a wrong --out must be refused before a Spark session starts")

    monkeypatch.setattr(spark_jobs.job, "get_spark", no_session)
    monkeypatch.setattr("pyspark.sql.SparkSession.getActiveSession", staticmethod(lambda: None))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.cli.txt").write_text("NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")
    file = tmp_path / "file"
    file.write_text("not a directory\n")
    for out, why in ((file, "a file, not a directory"), (file / "sub", f"{file} is a file, not a directory")):
        res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-progress"])
        assert (res.exit_code, res.output) == (2, f"solace-conformance: --out {out}: {why}\n")
    assert file.read_text() == "not a directory\n"
