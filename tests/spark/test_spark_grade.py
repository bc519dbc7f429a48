"""The grading job on a local Spark session, over a small class of generated drills, a hand-written
drill and inputs that cannot be graded. Every row is checked against the in-process grader
(`grade_transcript`) on the same files. Skipped only when no Java runtime exists."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from spark_jobs.drills import RUNBOOK_FAILURES, plan_drills
from spark_jobs.generate import record_drill

HAS_JAVA = bool(shutil.which("java")
                or (os.environ.get("JAVA_HOME") and Path(os.environ["JAVA_HOME"], "bin", "java").exists()))
pytestmark = pytest.mark.skipif(
    not HAS_JAVA, reason="no Java runtime: Spark needs one (apt-get install -y openjdk-17-jre-headless)")

ROOT = Path(__file__).resolve().parents[2]
RUNBOOK = "controlled-failover"
WANTED = [(None, "xa"), (None, None), ("promote-before-demote", None), ("skip-drain-check", None),
          ("skip-drain-check", "xa"), ("vpn-typo", None)]


def test_the_report_names_the_outcome_as_the_grader_does():
    from solace_shell.grading import load_runbook
    from solace_shell.grading.results import OUTCOME_ID
    from spark_jobs.grade import report_rows

    rows = report_rows(load_runbook(RUNBOOK))
    assert [step for step, _ in rows] == ["verify-bridge", "standby", "drain", "heuristics", "activate",
                                          "delete-completed", "heuristic-on-newly-active", OUTCOME_ID]
    assert rows[-1][1] == "Expected outcome at the end: lost 0, duplicated 0, leftover-transactions 0"


@pytest.fixture(scope="module")
def spark():
    from spark_jobs.job import get_spark

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = get_spark("local[2]", app_name="test-spark-grade", conf={
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2",
        "spark.driver.memory": "1g"})
    yield session


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Six controlled drills (clean, and each mistake), one uncontrolled drill, the hand-written
    controlled failover, an undecodable file and a file that is no transcript."""
    root = tmp_path_factory.mktemp("class")
    drills = plan_drills(120, 21)
    for mistake, transaction in WANTED:
        d = next(d for d in drills if d.kind == "controlled" and (d.mistake, d.transaction) == (mistake, transaction))
        record_drill(d, root / f"{d.name}.cli.txt")
    other = next(d for d in drills if d.kind == "uncontrolled")
    record_drill(other, root / f"{other.name}.cli.txt")
    (root / "hand").mkdir()
    shutil.copy(ROOT / "transcripts/seed000/controlled-failover.cli.txt", root / "hand/controlled-failover.cli.txt")
    (root / "binary.cli.txt").write_bytes(b"\xff\xfe\x00NY_Appliance1> enable\n")
    (root / "prose.cli.txt").write_text("output before any prompt\nNY_Appliance1> enable\n")
    return root


def _grade(spark, inputs, out, **kw):
    from spark_jobs.grade import GradeOptions, run_grade

    return run_grade(GradeOptions(runbook=RUNBOOK, inputs=[str(i) for i in inputs], out=str(out), progress=False,
                                  **kw), spark=spark)


@pytest.fixture(scope="module")
def graded(spark, corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("grades") / "run"
    return _grade(spark, [corpus], out), out


def _rows(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()


def test_every_row_is_what_the_in_process_grader_gives(corpus, graded):
    from solace_shell.grading import GradeError, grade_transcript, load_runbook

    _, out = graded
    rows = _rows(out / "grades.parquet")
    assert [r["transcript"] for r in rows] == sorted(str(p) for p in corpus.rglob("*.cli.txt"))
    runbook = load_runbook(RUNBOOK)
    for row in rows:
        assert row["runbook"] == RUNBOOK
        try:
            grade = grade_transcript(runbook, Path(row["transcript"]))
        except GradeError as exc:
            assert row["status"] == "quarantined" and row["passed"] is None, row
            if not row["transcript"].endswith("binary.cli.txt"):
                assert row["reason"] == exc.error
            continue
        measured = {m: v for m, _, v in grade.outcome}
        assert row == {"transcript": row["transcript"], "runbook": RUNBOOK, "status": "graded",
                       "passed": grade.passed, "score": grade.score, "verdict": grade.verdict,
                       "failed_steps": list(grade.failed_steps),
                       "step_status": [(s.id, s.status) for s in grade.steps],
                       "lost": measured["lost"], "duplicated": measured["duplicated"], "reason": None}
    quarantined = {Path(r["transcript"]).name: r["reason"] for r in _rows(out / "quarantine.parquet")}
    assert set(quarantined) == {"binary.cli.txt", "prose.cli.txt"}
    assert quarantined["binary.cli.txt"].startswith("undecodable: not UTF-8")


def test_drills_and_the_hand_written_failover_grade_as_labelled(graded):
    _, out = graded
    by_name = {Path(r["transcript"]).name: r for r in _rows(out / "grades.parquet")}
    assert by_name["controlled-failover.cli.txt"]["passed"] is True
    drills = {n: r for n, r in by_name.items() if n.startswith("drill-") and "_controlled" in n}
    assert len(drills) == len(WANTED)
    for name, row in drills.items():
        mistake = next((m for m in RUNBOOK_FAILURES if name.endswith(f"_{m}.cli.txt")), None)
        if mistake is None:
            assert row["passed"] and row["failed_steps"] == [] and (row["lost"], row["duplicated"]) == (0, 0), row
        else:
            assert not row["passed"] and set(RUNBOOK_FAILURES[mistake]) & set(row["failed_steps"]), row
    uncontrolled = next(r for n, r in by_name.items() if "_uncontrolled" in n)
    assert uncontrolled["passed"] is False and "standby" in uncontrolled["failed_steps"]


def test_summary_and_report_add_up_the_rows(graded):
    result, out = graded
    rows = [r for r in _rows(out / "grades.parquet") if r["status"] == "graded"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary == result.summary
    t = summary["totals"]
    assert (t["transcripts"], t["graded"], t["quarantined"]) == (10, 8, 2)
    assert t["passed"] == sum(r["passed"] for r in rows)
    assert t["lost"] == sum(r["lost"] for r in rows)
    assert [s["step"] for s in summary["by_step"][:6]] == ["verify-bridge", "standby", "drain", "heuristics",
                                                           "activate", "delete-completed"]
    for step in summary["by_step"]:
        failing = [r for r in rows if step["step"] in r["failed_steps"]]
        assert step["failed"] == len(failing)
        assert step["cost_when_failed"]["lost"] == sum(r["lost"] for r in failing)
        assert step["cost_when_failed"]["duplicated"] == sum(r["duplicated"] for r in failing)
        alone = [r for r in failing if len(r["failed_steps"]) == 1]
        assert step["cost_when_only_failure"]["transcripts"] == len(alone)
    drain = next(s for s in summary["by_step"] if s["step"] == "drain")
    assert drain["failed"] >= 2
    outcome = next(s for s in summary["by_step"] if s["step"] == "outcome")
    assert sum(outcome["statuses"].values()) == t["graded"]
    assert outcome["statuses"].get("not-met", 0) == outcome["failed"]
    report = (out / "report.html").read_text()
    for heading in ("Which steps fail most", "What each failure cost", "Failure patterns", "Quarantine"):
        assert f"<h2>{heading}</h2>" in report
    assert "<code>drain</code>" in report and "binary.cli.txt" in report
    assert json.loads((out / "run.json").read_text())["transcripts"] == 10


def test_the_output_does_not_depend_on_the_partitioning(spark, corpus, graded, tmp_path):
    _, out = graded
    _grade(spark, [corpus], tmp_path / "one", partitions=1)
    for name in ("grades.parquet/part-00000.parquet", "quarantine.parquet/part-00000.parquet", "summary.json",
                 "report.html"):
        assert (tmp_path / "one" / name).read_bytes() == (out / name).read_bytes(), name


def test_the_cli_grades_and_refuses_a_bad_runbook_before_spark_starts(spark, corpus, tmp_path):
    from click.testing import CliRunner

    from spark_jobs.cli import main

    ok = CliRunner().invoke(main, ["grade", "--runbook", RUNBOOK, str(corpus), "--out", str(tmp_path / "a"),
                                   "--no-progress"])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith(f"runbook     {RUNBOOK}\ntranscripts 10 (passed ")
    unknown = CliRunner().invoke(main, ["grade", "--runbook", "no-such-runbook", str(corpus),
                                        "--out", str(tmp_path / "b"), "--no-progress"])
    assert unknown.exit_code == 2 and unknown.output.count("\n") == 1, unknown.output
    assert unknown.output.startswith("solace-conformance: ") and "no-such-runbook" in unknown.output
    assert not (tmp_path / "b").exists()
    missing = CliRunner().invoke(main, ["grade", "--runbook", RUNBOOK, str(tmp_path / "nope"),
                                        "--out", str(tmp_path / "c"), "--no-progress"])
    assert missing.exit_code == 2 and "no such input" in missing.output
    assert spark.sparkContext._jsc is not None, "the CLI must not stop a session it did not create"


def test_a_system_runbook_grades_lab_console_sessions_as_the_in_process_grader(spark, tmp_path):
    """A runbook of an HA system on the kernel: the job's rows are the in-process grades (the
    relative scenario path of a corpus drill resolves from its own directory)."""
    from solace_shell.grading import grade_transcript, load_runbook
    from spark_jobs.grade import GradeOptions, run_grade

    runbook = "swiftmq-preferred-active-return"
    inputs = [ROOT / "transcripts/swiftmq/a-sw-1-startup-crash-return-preferred.cli.txt",
              ROOT / "tests/data/grading/swiftmq-kill-before-swap.cli.txt"]
    run_grade(GradeOptions(runbook=runbook, inputs=[str(i) for i in inputs], out=str(tmp_path / "run"),
                           progress=False), spark=spark)
    rows = {Path(r["transcript"]).name: r for r in _rows(tmp_path / "run" / "grades.parquet")}
    for path in inputs:
        expected = grade_transcript(load_runbook(runbook), path)
        row = rows[path.name]
        assert (row["passed"], list(row["failed_steps"])) == (expected.passed, list(expected.failed_steps))
    assert list(rows["swiftmq-kill-before-swap.cli.txt"]["failed_steps"]) == ["wait-swap", "kill-serving-before-swap"]


def test_the_runbooks_of_clis_with_their_own_words_grade_as_the_in_process_grader(spark, tmp_path):
    """gfsh's and a Qpid broker host's lines reach the job's grader through their CLIs' own
    reading: its rows are the in-process grades of each clean drill and classic mistake."""
    from solace_shell.grading import grade_transcript, load_runbook
    from spark_jobs.grade import GradeOptions, run_grade

    data = ROOT / "tests/data/grading"
    cases = {"geode-durable-queue-server-restart": [ROOT / "transcripts/geode/durable-queue-server-restart.cli.txt",
                                                    data / "geode-stop-while-durable-offline.cli.txt"],
             "qpid-primary-failover": [ROOT / "transcripts/qpid/primary-failover-fenced.cli.txt",
                                       data / "qpid-promote-beside-live-primary.cli.txt"]}
    for runbook, inputs in cases.items():
        out = tmp_path / runbook
        run_grade(GradeOptions(runbook=runbook, inputs=[str(i) for i in inputs], out=str(out), progress=False),
                  spark=spark)
        rows = {Path(r["transcript"]).name: r for r in _rows(out / "grades.parquet")}
        for path in inputs:
            expected = grade_transcript(load_runbook(runbook), path)
            row = rows[path.name]
            assert (row["passed"], list(row["failed_steps"])) == (expected.passed, list(expected.failed_steps))
        assert [rows[p.name]["passed"] for p in inputs] == [True, False]
