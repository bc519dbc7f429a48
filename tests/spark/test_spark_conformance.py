"""The conformance job on a local Spark session, over a small corpus of real transcripts.

The corpus is replayed by the real transcript replay on the real lab, exactly as `solace-shell replay`
does; every expected verdict, signature and node below was checked against that replay (and
`test_spark_rows_equal_the_in_process_replay` checks the whole table against it). Skipped only when
no Java runtime exists.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grammar import load_grammar
from tests.support.signalled import stop_when_ready

HAS_JAVA = bool(shutil.which("java")
                or (os.environ.get("JAVA_HOME") and Path(os.environ["JAVA_HOME"], "bin", "java").exists()))
pytestmark = pytest.mark.skipif(
    not HAS_JAVA, reason="no Java runtime: Spark needs one (apt-get install -y openjdk-17-jre-headless)")

GOOD = """\
#| a correct session
NY_Appliance1> enable
NY_Appliance1# configure
NY_Appliance1(configure)# message-vpn Trading_VPN
NY_Appliance1(configure/message-vpn)# end
NY_Appliance1# show hostname

Hostname: NY_Appliance1
"""

DIVERGENT = """\
lab> advance 5s
clock 00:00:05.000 (+5s) drained 0 reconnected -
NJ_Appliance1> show hostname

Hostname: NJ_Appliance2
NJ_Appliance1> frobnicate now
Queue count: 3
"""

GOOD_LAB = """\
lab> advance 1s
clock 00:00:01.000 (+1s) drained 0 reconnected -
NY_Appliance1> enable
"""

FILES = {
    "good.cli.txt": GOOD.encode(),
    "divergent.cli.txt": DIVERGENT.encode(),
    "malformed.cli.txt": b"this line is output before any prompt\nNY_Appliance1> enable\n",
    "binary.cli.txt": b"\xff\xfe\x00NY_Appliance1> enable\n",
    "nested/deeper/lab.cli.txt": GOOD_LAB.encode(),
    ".hidden.cli.txt": b"not a transcript",
    "_SUCCESS": b"",
    # beside the transcripts, not transcripts: a directory contributes `*.cli.txt` files only
    "scenarios/blue_02.yaml": b"scenario: blue_02\n",
    "notes.txt": b"NY_Appliance1> enable\n",
}

ENABLE, CONFIGURE, END = "exec: enable", "privileged: configure", "below-privileged: end"
MESSAGE_VPN, HOSTNAME, ADVANCE = "configure: message-vpn <vpn-name>", "show: hostname", "lab: advance <duration>"


def test_the_job_and_replay_agree_on_the_transcript_suffix() -> None:
    from solace_shell.transcript.format import TRANSCRIPT_SUFFIX
    from spark_jobs.generate import TRANSCRIPT_SUFFIX as GENERATED_SUFFIX
    from spark_jobs.job import TRANSCRIPT_SUFFIX as JOB_SUFFIX

    assert JOB_SUFFIX == GENERATED_SUFFIX == TRANSCRIPT_SUFFIX


@pytest.fixture(scope="session")
def spark():
    from spark_jobs.job import get_spark

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    session = get_spark("local[2]", app_name="test-spark-conformance", conf={
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.driver.memory": "1g",
    })
    yield session
    session.stop()


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    for rel, data in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def _run(spark, inputs, out, **kw):
    from spark_jobs.job import RunOptions, run

    opts = RunOptions(inputs=[str(i) for i in inputs], out=str(out), progress=False, **kw)
    return run(opts, spark=spark)


@pytest.fixture(scope="session")
def result(spark, corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "run1"
    res = _run(spark, [corpus], out)
    return res, out


def _rows(spark, path):
    return [r.asDict() for r in spark.read.parquet(str(path)).collect()]


def test_workers_import_the_installed_pyspark_not_its_source_zip(spark):
    """`spark_jobs.daemon` drops the zips Spark ships inside the installed pyspark from the workers' path."""
    import pyspark

    worker_files = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("pyspark").__file__).collect()
    assert worker_files == [pyspark.__file__], "the driver's own pyspark, compiled, not pyspark.zip"


def test_the_sessions_log_starts_quiet_and_follows_set_log_level(spark):
    """spark_jobs/log4j2.properties: errors only from the start, yet `setLogLevel` governs every logger."""
    loggers = spark.sparkContext._jvm.org.apache.logging.log4j.LogManager
    level = lambda: loggers.getLogger("org.apache.spark.scheduler.DAGScheduler").getLevel().toString()  # noqa: E731
    assert level() == "ERROR"
    try:
        spark.sparkContext.setLogLevel("INFO")
        assert level() == "INFO"
    finally:
        spark.sparkContext.setLogLevel("ERROR")


def test_command_rows(spark, corpus, result):
    _, out = result
    rows = _rows(spark, out / "commands.parquet")
    assert [(r["transcript"].removeprefix(str(corpus) + "/"), r["line"]) for r in rows] == [
        ("divergent.cli.txt", 1), ("divergent.cli.txt", 3), ("divergent.cli.txt", 6),
        ("good.cli.txt", 2), ("good.cli.txt", 3), ("good.cli.txt", 4), ("good.cli.txt", 5), ("good.cli.txt", 6),
        ("nested/deeper/lab.cli.txt", 1), ("nested/deeper/lab.cli.txt", 3),
    ], "sorted by (transcript, line); hidden and _ files skipped; subdirectories read"
    div = {r["line"]: r for r in rows if r["transcript"].endswith("divergent.cli.txt")}
    assert (div[1]["verdict"], div[1]["node"], div[1]["router"], div[1]["prompt"]) == ("pass", ADVANCE, "lab", "lab>")
    assert (div[3]["verdict"], div[3]["signature"], div[3]["actual"]) == (
        "fail", "output:line 2:number", "\nHostname: NJ_Appliance1")
    assert div[3]["expected"] == "\nHostname: NJ_Appliance2" and div[3]["node"] == HOSTNAME
    assert (div[6]["verdict"], div[6]["node"], div[6]["signature"]) == ("fail", "", "error:invalid")
    assert div[6]["command"] == "frobnicate now"
    assert set(rows[0]) == {"transcript", "line", "router", "prompt", "command", "node", "verdict", "expected",
                            "actual", "signature"}
    timings = _rows(spark, out / "timings.parquet")
    assert len(timings) == len(rows) and all(t["duration_ms"] >= 0 for t in timings)
    assert [(t["transcript"], t["line"]) for t in timings] == [(r["transcript"], r["line"]) for r in rows]


def test_spark_rows_equal_the_in_process_replay(spark, corpus, result):
    """Every command row is what `replay_file` gives for that file in this process."""
    from solace_shell.transcript.replay import replay_file

    _, out = result
    rows = _rows(spark, out / "commands.parquet")
    expected = []
    for rel in ("divergent.cli.txt", "good.cli.txt", "nested/deeper/lab.cli.txt"):
        for c in replay_file(corpus / rel).commands:
            expected.append({"transcript": str(corpus / rel), "line": c.line, "router": c.router, "prompt": c.prompt,
                             "command": c.command, "node": c.node, "verdict": c.verdict, "expected": c.expected,
                             "actual": c.actual, "signature": c.signature})
    assert rows == expected


def test_a_command_that_raises_is_an_error_verdict_and_the_partition_goes_on(monkeypatch):
    """The executor loop (in-process: a Spark worker cannot be patched) with a lab command that raises."""
    from solace_shell.lab import Lab
    from spark_jobs.job import replay_partition

    real_execute = Lab.execute

    def execute(self, target, line):
        if line == "show hostname":
            raise RuntimeError("the engine exploded")
        return real_execute(self, target, line)

    monkeypatch.setattr(Lab, "execute", execute)
    replayed = list(replay_partition(
        [("good", (None, FILES["good.cli.txt"])), ("lab", (None, FILES["nested/deeper/lab.cli.txt"]))]))
    commands = [(c, v) for r in replayed for c, v in zip(r.commands, r.verdicts, strict=True)]
    assert [(c.line, v) for c, v in commands] == [
        (2, "pass"), (3, "pass"), (4, "pass"), (5, "pass"), (6, "error"), (1, "pass"), (3, "pass")]
    error = commands[4][0]
    assert (error.signature, error.actual) == ("exception:RuntimeError", "RuntimeError: the engine exploded")
    assert [(r.name, *r.row()[:5]) for r in replayed] == [
        ("good", "fail", 5, 4, 0, 1), ("lab", "pass", 2, 2, 0, 0)]


def test_summary_numbers(result, corpus):
    res, out = result
    summary = json.loads((out / "summary.json").read_text())
    assert summary == res.summary
    assert summary["totals"] == {"transcripts": 5, "passed_transcripts": 2, "failed_transcripts": 1,
                                 "quarantined": 2, "commands": 10, "pass": 8, "fail": 2, "error": 0}
    assert summary["pass_rate"] == {"commands": 0.8, "transcripts": 0.4}
    assert summary["gate"] == {"min_pass": 0.0, "of": "transcripts", "rate": 0.4, "ok": True}
    by_node = {n["node"]: n for n in summary["by_node"]}
    assert by_node[HOSTNAME] == {"node": HOSTNAME, "commands": 2, "pass": 1, "fail": 1, "error": 0,
                                 "pass_rate": 0.5}
    assert by_node["<unparsed>"]["commands"] == 1 and by_node["<unparsed>"]["fail"] == 1
    sigs = [(s["signature"], s["count"], s["nodes"]) for s in summary["by_signature"]]
    assert sigs == [("error:invalid", 1, ["<unparsed>"]), ("output:line 2:number", 1, [HOSTNAME])]
    assert summary["by_signature"][1]["example"] == {"transcript": f"{corpus}/divergent.cli.txt", "line": 3}


def test_quarantine(spark, result, corpus):
    res, out = result
    rows = _rows(spark, out / "quarantine.parquet")
    assert [r["transcript"] for r in rows] == [f"{corpus}/binary.cli.txt", f"{corpus}/malformed.cli.txt"]
    assert rows[0]["reason"].startswith("undecodable: not UTF-8")
    assert "output before the first input line" in rows[1]["reason"]
    assert res.summary["quarantine"] == [{"transcript": r["transcript"], "reason": r["reason"]} for r in rows]
    status = {r["transcript"].rsplit("/", 1)[-1]: r["status"] for r in _rows(spark, out / "transcripts.parquet")}
    assert status == {"binary.cli.txt": "quarantined", "malformed.cli.txt": "quarantined",
                      "divergent.cli.txt": "fail", "good.cli.txt": "pass", "lab.cli.txt": "pass"}


def test_coverage_and_unknown_commands(result, corpus):
    res, _ = result
    cov = res.summary["coverage"]
    nodes = load_grammar().nodes()
    exercised = sorted([ADVANCE, CONFIGURE, ENABLE, END, HOSTNAME, MESSAGE_VPN])
    assert cov["available"] and cov["grammar_nodes"] == len(nodes)
    assert cov["exercised_nodes"] == exercised
    assert cov["untouched_nodes"] == sorted(set(nodes) - set(exercised))
    assert cov["exercised"] == 6 and cov["ratio"] == round(6 / len(nodes), 6) and cov["not_in_grammar"] == []
    assert res.summary["unknown_commands"] == [
        {"command": "frobnicate now", "count": 1, "transcripts": 1,
         "example": {"transcript": f"{corpus}/divergent.cli.txt", "line": 6}}]


def test_report_has_chart_and_sections(result):
    _, out = result
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 1 and "show: hostname: 1 fail" in html
    for section in ("By grammar node", "By divergence signature", "Grammar coverage",
                    "Commands the grammar does not know", "Quarantine"):
        assert section in html
    assert "frobnicate now" in html and "output:line 2:number" in html


def test_parquet_files_have_fixed_names(result):
    _, out = result
    for table in ("commands", "timings", "transcripts", "quarantine"):
        assert sorted(p.name for p in (out / f"{table}.parquet").iterdir() if not p.name.startswith(".")) == [
            "_SUCCESS", "part-00000.parquet"]
    run_info = json.loads((out / "run.json").read_text())
    assert run_info["commands"] == 10 and run_info["partitions"] == 4  # two per core of local[2]
    assert sorted(run_info["phase_seconds"]) == ["aggregate", "replay", "write"]
    assert all(v >= 0 for v in run_info["phase_seconds"].values())


def test_run_json_accounts_for_the_executors_cpu(result):
    """The executors' CPU in `replay_text` and in their task bodies, and the cores' time split three ways
    (replay, the rest of the tasks, outside them), reach run.json from the partials of a real run."""
    _, out = result
    run_info = json.loads((out / "run.json").read_text())
    cpu, shares = run_info["executor_cpu_seconds"], run_info["share_of_cores"]
    assert 0 < cpu["replay"] <= cpu["task"]
    assert sorted(shares) == ["outside_tasks", "replay", "rest_of_tasks"]
    assert 0 <= shares["replay"] < 1 and shares["rest_of_tasks"] >= 0  # ten commands: a sliver of the run
    assert abs(sum(shares.values()) - 1) < 1e-3
    capacity = run_info["default_parallelism"] * run_info["wall_seconds"]
    assert abs(shares["replay"] - cpu["replay"] / capacity) < 1e-3


def test_executor_cpu_splits_the_cores_time_and_reports_seconds_only_without_wall_time():
    from spark_jobs.job import executor_cpu
    from spark_jobs.partials import Partial

    partial = Partial(replay_cpu_seconds=1.5, task_cpu_seconds=1.75)
    assert executor_cpu(partial, 2, 0.0) == {"executor_cpu_seconds": {"replay": 1.5, "task": 1.75}}
    assert executor_cpu(partial, 2, 2.0)["share_of_cores"] == {
        "replay": 0.375, "rest_of_tasks": 0.0625, "outside_tasks": 0.5625}


BYTE_IDENTICAL = ["commands.parquet/part-00000.parquet", "transcripts.parquet/part-00000.parquet",
                  "quarantine.parquet/part-00000.parquet", "summary.json", "report.html"]


def test_same_input_other_partitioning_is_byte_identical(spark, corpus, result, tmp_path, monkeypatch):
    _, out = result
    again = tmp_path / "run2"
    _run(spark, [f"{corpus}/*.cli.txt", f"{corpus}/nested"], again, partitions=3)
    # the same files spelled differently get different names: compare what does not carry names
    rows1 = [{k: v for k, v in r.items() if k != "transcript"} for r in _rows(spark, out / "commands.parquet")]
    rows2 = [{k: v for k, v in r.items() if k != "transcript"} for r in _rows(spark, again / "commands.parquet")]
    assert sorted(map(str, rows1)) == sorted(map(str, rows2))
    third = tmp_path / "run3"
    monkeypatch.setattr("spark_jobs.fetch.window_for", lambda cores: 1)  # one partition's job at a time
    _run(spark, [corpus], third, partitions=4)
    for rel in BYTE_IDENTICAL:
        assert (out / rel).read_bytes() == (third / rel).read_bytes(), rel


def test_files_read_by_spark_give_the_same_bytes_as_files_read_by_the_executors(spark, corpus, result, tmp_path,
                                                                              monkeypatch):
    """Remote inputs (hdfs://, s3a://) are read by Spark's binaryFile source and placed into the ranges
    of sorted names by a shuffle; no HDFS here, so the same files are listed as `file://` URIs, which
    take that path."""
    import spark_jobs.job as job

    _, out = result
    listed = job.list_inputs

    def as_uris(spark, inputs):
        files, hidden, missing = listed(spark, inputs)
        return {"file://" + path: name for path, name in files.items()}, hidden, missing

    monkeypatch.setattr(job, "list_inputs", as_uris)
    again = tmp_path / "remote"
    _run(spark, [corpus], again)
    for rel in BYTE_IDENTICAL:
        assert (out / rel).read_bytes() == (again / rel).read_bytes(), rel


def test_an_output_published_through_hadoop_is_byte_identical(spark, corpus, result, tmp_path, monkeypatch):
    """A remote --out (hdfs://, s3a://) is staged locally and copied through the Hadoop FileSystem API at
    commit; no HDFS here, so a `file://` URI is taken down that path."""
    import tempfile

    import spark_jobs.job as job

    _, out = result
    monkeypatch.setattr(job, "_is_local", lambda out: False)
    staging = tmp_path / "tmp"
    staging.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(staging))
    published = tmp_path / "published"
    _run(spark, [corpus], f"file://{published}")
    for rel in BYTE_IDENTICAL:
        assert (out / rel).read_bytes() == (published / rel).read_bytes(), rel
    assert (published / "run.json").is_file() and (published / "commands.parquet" / "_SUCCESS").is_file()
    assert list(staging.iterdir()) == [], "the local staging goes once published"


def test_the_redundancy_group_drills_pass_in_the_job(spark, tmp_path):
    """transcripts/ha-pair, on the two-site-ha scenario their header names (resolved beside each
    file by the executors, as `solace-shell replay` resolves it), pass command for command."""
    drills = Path(__file__).resolve().parents[2] / "transcripts" / "ha-pair"
    res = _run(spark, [drills], tmp_path / "ha-pair")
    totals = res.summary["totals"]
    assert totals["transcripts"] == totals["passed_transcripts"] == len(list(drills.glob("*.cli.txt"))) >= 6
    assert totals["fail"] == totals["error"] == totals["quarantined"] == 0 and res.ok


def test_glob_names_follow_the_command_line(spark, corpus, tmp_path):
    out = tmp_path / "glob"
    res = _run(spark, [f"{corpus}/g*.cli.txt", f"{corpus}/nested/deeper/lab.cli.txt"], out)
    names = sorted(r["transcript"] for r in _rows(spark, out / "transcripts.parquet"))
    assert names == [f"{corpus}/good.cli.txt", f"{corpus}/nested/deeper/lab.cli.txt"]
    assert res.summary["totals"]["transcripts"] == 2 and res.ok


def test_commas_spaces_percent_signs_and_glob_characters_in_file_names_replay_like_any_other(spark, tmp_path):
    odd = tmp_path / "odd corpus"
    names = ["a,b.cli.txt", "c d.cli.txt", "sub dir/50%25 off.cli.txt", "x[1].cli.txt", "y{a,b}.cli.txt",
             "set[2]/z*?.cli.txt"]
    for name in names:
        (odd / name).parent.mkdir(parents=True, exist_ok=True)
        (odd / name).write_bytes(FILES["good.cli.txt"])
    (odd / "empty").mkdir()
    out = tmp_path / "out"
    res = _run(spark, [odd, odd / "empty"], out)
    rows = _rows(spark, out / "transcripts.parquet")
    assert sorted((r["transcript"], r["status"]) for r in rows) == sorted((f"{odd}/{n}", "pass") for n in names)
    assert res.summary["totals"]["quarantined"] == 0


def test_every_hostile_input_yields_a_row(spark, tmp_path):
    """`:` and non-UTF-8 bytes in names, empty, oversized and over-long files, a catastrophic regex
    and a huge output: one row each, the job never fails, stored output is capped."""
    from spark_jobs.job import MAX_COMMANDS, MAX_STORED_OUTPUT, MAX_TRANSCRIPT_BYTES

    corpus = tmp_path / "hostile"
    corpus.mkdir()
    good = FILES["good.cli.txt"]
    (corpus / "a:b.cli.txt").write_bytes(good)
    with open(os.fsencode(corpus) + b"/bad\xffname.cli.txt", "wb") as fh:
        fh.write(good)
    (corpus / "empty.cli.txt").write_bytes(b"")
    (corpus / "big.cli.txt").write_bytes(b"NY_Appliance1> enable\n" + b"x" * MAX_TRANSCRIPT_BYTES)
    (corpus / "long.cli.txt").write_bytes(b"NY_Appliance1> enable\n" * (MAX_COMMANDS + 1))
    # the refusal of an overlong name quotes it whole: a 50,000-character line for a catastrophic
    # pattern (`...` lets it try every line), and a 100,000-character output to cap
    (corpus / "regex.cli.txt").write_bytes(b"NY_Appliance1> show message-vpn " + b"a" * 50_000
                                           + b"\n...\n.*(a+)+b (re)\n")
    (corpus / "huge-output.cli.txt").write_bytes(b"NY_Appliance1> show queue " + b"y" * 100_000 + b"\n")
    (corpus / "bad-regex.cli.txt").write_bytes(b"NY_Appliance1> enable\n(a)\\1 (re)\n")
    out = tmp_path / "out"
    res = _run(spark, [corpus, corpus / "a:b.cli.txt"], out)
    status = {r["transcript"].rsplit("/", 1)[-1]: (r["status"], r["reason"])
              for r in _rows(spark, out / "transcripts.parquet")}
    assert status == {
        "a:b.cli.txt": ("pass", None),
        "bad\\xffname.cli.txt": ("pass", None),
        "empty.cli.txt": ("quarantined", "empty file"),
        "big.cli.txt": ("quarantined", f"too large: {MAX_TRANSCRIPT_BYTES + 22:,} bytes "
                                       f"(the limit per transcript is {MAX_TRANSCRIPT_BYTES:,})"),
        "long.cli.txt": ("quarantined", f"too many commands: {MAX_COMMANDS + 1:,} "
                                        f"(the limit per transcript is {MAX_COMMANDS:,})"),
        "regex.cli.txt": ("fail", None),
        "huge-output.cli.txt": ("fail", None),
        "bad-regex.cli.txt": ("quarantined", f"{corpus}/bad-regex.cli.txt:2: bad regular expression: "
                                             "invalid escape sequence: \\1"),
    }
    assert res.summary["totals"]["transcripts"] == 8
    huge = [r for r in _rows(spark, out / "commands.parquet") if r["transcript"].endswith("huge-output.cli.txt")]
    assert len(huge[0]["actual"]) < MAX_STORED_OUTPUT + 100
    rest = re.search(r"\[\.\.\. ([\d,]+) more characters not stored\]$", huge[0]["actual"])
    assert rest is not None and int(rest.group(1).replace(",", "")) > 100_000 - MAX_STORED_OUTPUT


def test_a_transcripts_files_and_long_commands_stay_out_of_the_outputs(spark, tmp_path):
    """`lab> reset`/`lab> grade` of files outside the transcript's tree are one-line refusals that
    quote nothing; a command line longer than the cap is capped in the table and the report."""
    from spark_jobs.job import MAX_STORED_OUTPUT

    secret = "s3cr3t-entry-of-a-private-file"
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "notes.yaml").write_text(f"{secret}: x\nsites: []\n")
    corpus = tmp_path / "class"
    corpus.mkdir()
    (corpus / "link.yaml").symlink_to(tmp_path / "private" / "notes.yaml")
    (corpus / "files.cli.txt").write_text("lab> reset ../private/notes.yaml\nlab> reset link.yaml\n"
                                          "lab> grade /etc/shadow\nlab> grade link.yaml\n")
    (corpus / "long.cli.txt").write_text("NY_Appliance1> frobnicate " + "x" * (3 * MAX_STORED_OUTPUT) + "\n")
    out = tmp_path / "out"
    _run(spark, [corpus], out)
    rows = {(r["transcript"].rsplit("/", 1)[-1], r["line"]): r for r in _rows(spark, out / "commands.parquet")}
    for line in (1, 2, 3, 4):
        actual = rows[("files.cli.txt", line)]["actual"]
        assert actual.startswith("ERROR: ") and "\n" not in actual
        assert "outside the transcript" in actual or "an absolute path" in actual
    assert not any(secret in str(r) or "root:" in str(r) for r in rows.values())  # decoded, not compressed bytes
    long = rows[("long.cli.txt", 1)]["command"]
    assert len(long) < MAX_STORED_OUTPUT + 100 and long.endswith("more characters not stored]")
    report = (out / "report.html").read_bytes()
    assert len(report) < 4 * MAX_STORED_OUTPUT + 100_000
    for directory, _, names in os.walk(out):
        for name in names:
            data = Path(directory, name).read_bytes()
            assert secret.encode() not in data and b"root:" not in data


def test_missing_input_is_an_error(spark, tmp_path):
    from spark_jobs.job import InputError

    with pytest.raises(InputError, match="no such input"):
        _run(spark, [tmp_path / "nope"], tmp_path / "out")


def test_cli_gate_exit_codes(spark, corpus, tmp_path):
    """In-process CLI (reuses the session): --min-pass above the rate exits 1, at or below exits 0."""
    from click.testing import CliRunner

    from spark_jobs.cli import main

    args = ["run", str(corpus), "--no-progress"]
    ok = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a"), "--min-pass", "0.4"])
    assert ok.exit_code == 0, ok.output
    assert "transcripts 5 (passed 2, failed 1, quarantined 2)" in ok.output
    low = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "b"), "--min-pass", "0.5"])
    assert low.exit_code == 1 and "FAILED" in low.output
    cmd = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "c"), "--min-pass", "0.75", "--gate", "commands"])
    assert cmd.exit_code == 0, cmd.output
    missing = CliRunner().invoke(main, ["run", str(tmp_path / "nope"), "--out", str(tmp_path / "d"),
                                        "--no-progress"])
    assert missing.exit_code == 2 and "no such input" in missing.output
    assert spark.sparkContext._jsc is not None, "the CLI must not stop a session it did not create"


def test_cli_reports_a_failed_job_in_one_line(corpus, tmp_path, monkeypatch):
    from click.testing import CliRunner

    import spark_jobs.job
    from spark_jobs.cli import main

    def broken(opts):
        raise RuntimeError("Job aborted due to stage failure: Task 0 in stage 3.0 failed\n\tat org.apache...")

    monkeypatch.setattr(spark_jobs.job, "run", broken)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-progress"])
    assert res.exit_code == 3
    assert res.output == ("solace-conformance: the job failed: RuntimeError: Job aborted due to stage failure: "
                          "Task 0 in stage 3.0 failed\n")


def test_cli_reports_a_java_failure_by_the_jvms_own_line(corpus, tmp_path, monkeypatch):
    """Py4J's message for a Java exception starts "An error occurred while calling ..."; the next line,
    ": <the Java exception>", is what the one line shows."""
    from click.testing import CliRunner
    from py4j.protocol import Py4JJavaError

    import spark_jobs.job
    from spark_jobs.cli import main

    class LostExecutor(Py4JJavaError):
        def __init__(self) -> None:  # the real one needs the JVM's exception object
            Exception.__init__(self)

        def __str__(self) -> str:
            return ("An error occurred while calling z:org.apache.spark.api.python.PythonRDD.runJob.\n"
                    ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 1 in stage 0.0 "
                    "failed 4 times, most recent failure: Lost task 1.3 (executor 2 exited)\n"
                    "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler.scala)\n")

    def broken(opts):
        raise LostExecutor()

    monkeypatch.setattr(spark_jobs.job, "run", broken)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-progress"])
    assert (res.exit_code, res.output) == (3, (
        "solace-conformance: the job failed: org.apache.spark.SparkException: Job aborted due to stage failure: "
        "Task 1 in stage 0.0 failed 4 times, most recent failure: Lost task 1.3 (executor 2 exited)\n"))


def test_a_job_whose_application_was_ended_points_at_sparks_reason():
    """An unreachable standalone master: Spark logs why at ERROR ("All masters are unresponsive! Giving
    up.") and stops the SparkContext; the job's own failure only says the context is stopped (this
    message is the one a real run with `--master spark://127.0.0.1:<closed port>` gave)."""
    from spark_jobs.cli import failure_line

    stopped = RuntimeError("An error occurred while calling o42.runJob.\n"
                           ": java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext.\n"
                           "\tat org.apache.spark.SparkContext.assertNotStopped(SparkContext.scala)\n")
    assert failure_line(stopped) == (
        "java.lang.IllegalStateException: Cannot call methods on a stopped SparkContext. (the Spark application "
        "ended before the job: Spark's ERROR line above says why)")
    assert failure_line(RuntimeError("disk full")) == "RuntimeError: disk full"


def test_cli_without_the_spark_extra_says_what_to_install(corpus, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from spark_jobs.cli import main

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` now raises ImportError
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-progress"])
    assert res.exit_code == 2
    assert res.output == "solace-conformance: the Spark job needs pyarrow: pip install 'solace-shell[spark]'\n"
    assert not (tmp_path / "o").exists()


def test_a_run_that_fails_while_writing_leaves_the_output_as_it_was(spark, corpus, tmp_path, monkeypatch):
    import spark_jobs.job

    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text('{"from": "the previous run"}\n')

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(spark_jobs.job, "_write_partition", full_disk)
    with pytest.raises(OSError, match="No space left"):
        _run(spark, [corpus], out)
    assert [p.name for p in out.iterdir()] == ["summary.json"]
    assert (out / "summary.json").read_text() == '{"from": "the previous run"}\n'
    with pytest.raises(OSError, match="No space left"):
        _run(spark, [corpus], tmp_path / "new")
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_cli_stopped_by_a_signal_cancels_the_job_and_leaves_the_output_as_it_was(tmp_path, signum):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM while the replay
    runs: one line, exit status 128 + the signal, the previous run's output untouched, no staging left."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    long_transcript = "NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n" * 5000
    for i in range(16):  # ~80,000 commands: the replay runs for seconds after it starts
        (corpus / f"long-{i:02d}.cli.txt").write_text(long_transcript)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text('{"from": "the previous run"}\n')
    (out / "commands.parquet").mkdir()
    (out / "commands.parquet" / "part-00000.parquet").write_bytes(b"the previous run's table")
    before = sorted((str(p.relative_to(out)), p.read_bytes() if p.is_file() else b"") for p in out.rglob("*"))
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    status, stdout, stderr = stop_when_ready(
        ["spark_jobs.cli", "run", str(corpus), "--out", str(out), "--master", "local[2]",
         "--conf", "spark.ui.enabled=false"],
        lambda: bool(list(out.glob("_solace-conformance-*"))),  # staged as the first Spark job starts
        signum, env=env)
    name = signal.Signals(signum).name
    assert status == 128 + signum, stderr
    assert stdout == ""
    ours = [line for line in stderr.splitlines() if line.startswith("solace-conformance")]
    assert ours == [f"solace-conformance: interrupted ({name}): the job was cancelled; {out} is as it was"], stderr
    assert "Traceback" not in stderr and "ERROR" not in stderr, stderr
    assert sorted((str(p.relative_to(out)), p.read_bytes() if p.is_file() else b"") for p in out.rglob("*")) == before


def test_spark_submit_script_in_a_fresh_jvm_is_byte_identical(result, corpus, tmp_path):
    """`python spark_jobs/conformance.py` (what spark-submit runs) in a new process and JVM: same bytes,
    exit status 1 below --min-pass."""
    _, out = result
    script = Path(__file__).resolve().parents[2] / "spark_jobs" / "conformance.py"
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.run(
        [sys.executable, str(script), "run", str(corpus), "--out", str(tmp_path / "sub"), "--master", "local[2]",
         "--min-pass", "0.9", "--conf", "spark.ui.enabled=false"],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "gate transcripts >= 90.00%: FAILED" in proc.stdout
    notices = [line for line in proc.stderr.splitlines() if " WARN " in line or "log level" in line]
    assert notices == [], "the session's JVM logs errors only from its start (spark_jobs/log4j2.properties)"
    sub = tmp_path / "sub"
    for rel in BYTE_IDENTICAL[:3]:
        assert (out / rel).read_bytes() == (sub / rel).read_bytes(), rel
    # --min-pass is an argument, so only the gate differs in summary.json and report.html
    s1, s2 = json.loads((out / "summary.json").read_text()), json.loads((sub / "summary.json").read_text())
    assert s1.pop("gate")["min_pass"] == 0.0 and s2.pop("gate")["min_pass"] == 0.9 and s1 == s2
    strip = lambda p: [ln for ln in p.read_text().splitlines() if not ln.startswith("<p>Gate:")]  # noqa: E731
    assert strip(out / "report.html") == strip(sub / "report.html")


def test_the_partitions_jobs_reach_spark_in_partition_order(spark):
    """Threads that submit at once reach Spark's FIFO scheduler in any order; each waits for the job
    before its own to be known to the status tracker (`fetch.InOrder`, `JobGroup.submitted`)."""
    from spark_jobs.fetch import InOrder
    from spark_jobs.job import JobGroup, _collect

    sc = spark.sparkContext
    parts = sc.parallelize(range(8), 8).mapPartitionsWithIndex(lambda k, it: [(k, None, b"", b"")])
    group = JobGroup(sc)
    with InOrder(lambda k: _collect(group, parts, k), 8, 8, cancel=group.cancel, submitted=group.submitted) as fetched:
        assert [k for k, *_ in fetched] == list(range(8))
    deadline = time.monotonic() + 10  # the status tracker hears of a job a moment after it starts
    while not all(group.submitted(k) for k in range(8)) and time.monotonic() < deadline:
        time.sleep(0.01)
    job_ids = [sc.statusTracker().getJobIdsForGroup(group.partition_group(k)) for k in range(8)]
    assert all(len(ids) == 1 for ids in job_ids) and [ids[0] for ids in job_ids] == sorted(ids[0] for ids in job_ids)
