"""Drill planning (pure), drill recording, and the Spark-free half of the conformance job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from solace_shell.transcript.replay import replay_file
from spark_jobs import job
from spark_jobs import summary as summ
from spark_jobs.drills import COMMENT, FAILOVER_TYPES, LAB, SITES, plan_drill, plan_drills
from spark_jobs.generate import INDEX_FILE, PARTIAL_SUFFIX, TRANSCRIPT_SUFFIX, generate, transcript_name
from spark_jobs.job import LOG_CONFIG, _display, _norm_uri, _quoted, partition_count, split_names
from tests.support.signalled import ROOT, stop_when_ready


def test_plans_are_pure_and_independent_of_count():
    assert plan_drill(3, 17) == plan_drill(3, 17)
    assert plan_drills(40, 3)[17] == plan_drills(20, 3)[17]
    assert plan_drill(3, 17).steps != plan_drill(4, 17).steps


def test_plans_cover_types_mistakes_and_transactions():
    drills = plan_drills(300, 11)
    assert [d.kind for d in drills[:4]] == list(FAILOVER_TYPES)
    assert set(Counter(d.kind for d in drills)) == set(FAILOVER_TYPES)
    mistakes = Counter(d.mistake for d in drills)
    assert mistakes[None] > 100 and len(mistakes) >= 8, "correct drills and most kinds of mistake"
    assert {d.transaction for d in drills} == {None, "xa", "local"}
    for d in drills:
        targets = {t for t, _ in d.commands()}
        assert targets <= {LAB, *SITES.values()}
        assert d.commands()[-1] == (LAB, "audit Trading_VPN")
        assert d.steps[0][0] == COMMENT
        for router in SITES.values():
            first = next((c for t, c in d.commands() if t == router), None)
            assert first in (None, "enable") or (d.mistake == "forgot-enable" and first == "configure")


@pytest.mark.parametrize("kind", ["controlled", "uncontrolled"])
def test_xa_drills_prepare_then_complete_heuristically(kind):
    """On the formerly active site in a controlled failover (its runbook), on the survivor otherwise."""
    d = next(d for d in plan_drills(100, 5) if d.transaction == "xa" and d.kind == kind)
    cmds = [c for _, c in d.commands()]
    start = next(c for c in cmds if c.startswith("transaction xa start "))
    client, xid = start.split()[3:5]
    assert f"transaction xa prepare {client} {xid}" in cmds
    where = {SITES["NY"] if kind == "controlled" else SITES["NJ"]}
    decisions = (f"commit-transaction xid {xid}", f"rollback-transaction xid {xid}")
    assert {t for t, c in d.commands() if c in decisions} == where


def test_generate_is_deterministic_whatever_the_jobs_and_replays_as_pass(tmp_path):
    a = generate(count=12, seed=9, out=tmp_path / "a", jobs=1)
    b = generate(count=12, seed=9, out=tmp_path / "b", jobs=2)
    assert a == b and len(a) == 12
    for name in a:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        result = replay_file(tmp_path / "a" / name)
        assert result.error is None and result.passed, (name, [c for c in result.commands if c.verdict != "pass"][:1])
    index = [json.loads(line) for line in (tmp_path / "a" / INDEX_FILE).read_text().splitlines()]
    assert [row["name"] for row in index] == a


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_generate_stopped_by_a_signal_keeps_only_complete_drills(tmp_path, signum):
    """Ctrl-C (SIGINT to the process group, workers included) or SIGTERM (to the command alone, as a
    supervisor sends it): exit 128 + the signal, one line with the count, and every transcript left is
    whole (no half-recorded drill under any name)."""
    out = tmp_path / "corpus"
    status, stdout, stderr = stop_when_ready(
        ["spark_jobs.cli", "generate", "--count", "20000", "--seed", "3", "--out", str(out), "--jobs", "2"],
        lambda: len(list(out.glob("*.cli.txt"))) >= 40, signum)
    left = sorted(p.name for p in out.iterdir() if p.name != INDEX_FILE)
    assert status == 128 + signum, stderr
    name = signal.Signals(signum).name
    assert (stdout, stderr) == ("", f"solace-conformance: interrupted ({name}): {len(left):,} of 20,000 drills are "
                                    f"in {out} (its index lists all 20,000)\n")
    indexed = {json.loads(line)["name"] for line in (out / INDEX_FILE).read_text().splitlines()}
    assert left and set(left) <= indexed
    newest = sorted(left, key=lambda name: (out / name).stat().st_mtime_ns)[-6:]
    for name in newest:  # the last ones written: a drill cut short by the signal would be among them
        result = replay_file(out / name)
        assert result.error is None and result.passed, name


@pytest.mark.parametrize(("point", "signame", "jobs"), [("staged", "INT", 2), ("renaming", "INT", 2),
                                                      ("staged", "TERM", 2), ("staged", "INT", 1)])
def test_generate_stopped_at_a_chosen_point_of_a_drill_says_how_many_drills_it_left(tmp_path, point, signame,
                                                                                      jobs):
    """The signal sent at a chosen point of a drill's recording (tests.support.signal_at): as its
    staging file is made, or as it is about to be renamed into place. The recording workers take no
    signal of their own: each ends the drill it is recording, whole, before the command counts; the
    command itself (`--jobs 1`) drops the drill it was recording, leaving no part of it. Either way
    the count printed is what the directory holds, and nothing else is there."""
    out, flag = tmp_path / "corpus", tmp_path / "signalled"
    proc = subprocess.run([sys.executable, "-m", "tests.support.signal_at", point, "3", signame, str(flag),
                           "generate", "--count", "64", "--seed", "3", "--out", str(out), "--jobs", str(jobs)],
                          capture_output=True, text=True, timeout=120, start_new_session=True, cwd=ROOT)
    signum = signal.Signals[f"SIG{signame}"]
    left = sorted(p.name for p in out.iterdir() if p.name != INDEX_FILE)
    assert proc.returncode == 128 + signum, proc.stderr
    assert (proc.stdout, proc.stderr) == ("", f"solace-conformance: interrupted ({signum.name}): {len(left):,} of 64 "
                                              f"drills are in {out} (its index lists all 64)\n")
    assert all(name.endswith(TRANSCRIPT_SUFFIX) and not name.startswith((".", "_")) for name in left), left
    assert (flag.read_text() in left) == (jobs > 1), (flag.read_text(), left)
    for name in left:
        result = replay_file(out / name)
        assert result.error is None and result.passed, name


def test_generate_removes_the_half_recorded_drills_a_killed_generate_left(tmp_path):
    """SIGKILL (here to the whole process group, recording workers included) leaves no time to remove a
    drill being recorded; the next `generate` into the same DIR removes what is left of it."""
    out = tmp_path / "corpus"
    first_three = [out / transcript_name(plan_drill(3, i)) for i in range(3)]
    status, _, _ = stop_when_ready(  # the workers record their chunks in no fixed order: wait for drills 0-2
        ["spark_jobs.cli", "generate", "--count", "20000", "--seed", "3", "--out", str(out), "--jobs", "2"],
        lambda: all(p.exists() for p in first_three) and len(list(out.glob(f"*{TRANSCRIPT_SUFFIX}"))) >= 40,
        signal.SIGKILL)
    assert status == -signal.SIGKILL
    (out / f"_drill-left-by-an-older-run{TRANSCRIPT_SUFFIX}{PARTIAL_SUFFIX}").write_text("half a drill")
    (out / f"._drill-left-by-an-older-run{TRANSCRIPT_SUFFIX}{PARTIAL_SUFFIX}.k2j3x9q1.new").write_text("")  # staging
    complete = sorted(p.name for p in out.glob(f"*{TRANSCRIPT_SUFFIX}"))
    generate(count=3, seed=3, out=out, jobs=1)
    assert list(out.glob(f"_*{PARTIAL_SUFFIX}")) == list(out.glob(f"._*{PARTIAL_SUFFIX}.*")) == []
    assert sorted(p.name for p in out.glob(f"*{TRANSCRIPT_SUFFIX}")) == complete  # drills 0-2 were among them


def test_the_jvm_log_configuration_ships_with_the_package_and_survives_spaces_in_its_path():
    assert Path(LOG_CONFIG).is_file() and "rootLogger.level = error" in Path(LOG_CONFIG).read_text()
    assert _quoted("/opt/site/spark_jobs/log4j2.properties") == "/opt/site/spark_jobs/log4j2.properties"
    # Spark splits extraJavaOptions at spaces and honours double quotes
    assert _quoted("/Users/a b/spark_jobs/log4j2.properties") == '"/Users/a b/spark_jobs/log4j2.properties"'


def test_plan_only_needs_no_engine(tmp_path):
    assert generate(count=3, seed=1, out=tmp_path, plan_only=True) == [INDEX_FILE]
    rows = [json.loads(line) for line in (tmp_path / INDEX_FILE).read_text().splitlines()]
    assert [r["kind"] for r in rows] == ["controlled", "uncontrolled", "link-loss"] and rows[0]["steps"]


def test_naming_and_partitioning_helpers():
    assert _norm_uri("file:///a/b") == _norm_uri("file:/a/b") == "file:/a/b"
    assert _norm_uri("hdfs://nn:8020/x") == "hdfs://nn:8020/x"
    assert _display("corpus/*/x*.txt", "file:/work/corpus/sub/x1.txt") == "corpus/sub/x1.txt"
    assert partition_count(1, 2) == 1 and partition_count(10_000, 2) == 4 and partition_count(10**7, 8) == 8 * 306
    assert split_names({"b": 10, "a": 10, "c": 10, "d": 10}, 2) == {"a": 0, "b": 0, "c": 1, "d": 1}


def test_a_local_transcript_is_read_whole_and_anything_else_gives_its_reason(tmp_path):
    good = tmp_path / "good.cli.txt"
    good.write_bytes(b"NY_Appliance1> enable\n")
    (tmp_path / "empty.cli.txt").write_bytes(b"")
    os.mkfifo(tmp_path / "fifo.cli.txt")  # opened, it would wait for a writer: it must not be opened
    (tmp_path / "dir.cli.txt").mkdir()
    assert job.read_local(os.fsencode(good)) == b"NY_Appliance1> enable\n"
    assert job.read_local(os.fsencode(tmp_path / "empty.cli.txt")) == b""
    assert job.read_local(os.fsencode(tmp_path / "fifo.cli.txt")) == "unreadable: not a regular file"
    assert job.read_local(os.fsencode(tmp_path / "dir.cli.txt")) == "unreadable: not a regular file"
    assert job.read_local(os.fsencode(tmp_path / "nope.cli.txt")) == "unreadable: No such file or directory"


@pytest.mark.parametrize(("growth", "read"), [(30, 60),
                                              (100, "too large: 130 bytes (the limit per transcript is 100)")])
def test_a_transcript_that_grows_after_its_stat_is_read_on_to_one_byte_over_the_limit(tmp_path, monkeypatch,
                                                                                    growth, read):
    """What the stat said is not the end: a file written to while the job reads it is read on, and
    one that grew past the limit is too large."""
    monkeypatch.setattr(job, "MAX_TRANSCRIPT_BYTES", 100)
    path = tmp_path / "growing.cli.txt"
    path.write_bytes(b"a" * 30)
    real_stat = os.stat

    def stat_then_grow(p: bytes, *args: object, **kwargs: object) -> os.stat_result:
        st = real_stat(p, *args, **kwargs)  # type: ignore[arg-type]
        if os.fsdecode(p) == str(path):  # only this file: os.stat is every module's (linecache's too)
            with open(p, "ab") as fh:
                fh.write(b"b" * growth)
        return st

    monkeypatch.setattr(job.os, "stat", stat_then_grow)
    data = job.read_local(os.fsencode(path))
    assert data == ((b"a" * 30 + b"b" * growth)[:read] if isinstance(read, int) else read)


def test_a_partition_reads_its_local_files_ahead_in_bounded_runs(tmp_path, monkeypatch):
    """Sorted by name, each yielded as read; read in runs of READ_AHEAD_FILES, or fewer once the run
    holds READ_AHEAD_BYTES (the file that reaches the bound closes the run)."""
    for i in range(7):
        (tmp_path / f"{i}.cli.txt").write_bytes(b"x" * (10 if i != 1 else 50))
    items = [(f"{i}.cli.txt", ("local", os.fsencode(tmp_path / f"{i}.cli.txt"))) for i in reversed(range(7))]
    items.append(("8.cli.txt", ("bad", "too large: on the driver")))
    reads: list[str] = []
    real_read = job.read_local

    def read_local(path: bytes) -> job.Source:
        reads.append(os.path.basename(os.fsdecode(path)))
        return real_read(path)

    monkeypatch.setattr(job, "read_local", read_local)
    monkeypatch.setattr(job, "READ_AHEAD_FILES", 3)
    monkeypatch.setattr(job, "READ_AHEAD_BYTES", 60)
    seen = []
    for name, (base, data) in job.sources(items):
        seen.append((name, len(reads)))
        assert base == (str(tmp_path) if name != "8.cli.txt" else None)
        if name == "8.cli.txt":
            assert data == "too large: on the driver"
        else:
            assert data == b"x" * (50 if name == "1.cli.txt" else 10)
    # 0 and 1 hold 60 bytes: a run of two; then a run of three; the rest, the driver's reason among them, at the end
    assert seen == [("0.cli.txt", 2), ("1.cli.txt", 2), ("2.cli.txt", 5), ("3.cli.txt", 5), ("4.cli.txt", 5),
                    ("5.cli.txt", 7), ("6.cli.txt", 7), ("8.cli.txt", 7)]


def test_invalid_input_regex_follows_the_message_table():
    import re

    from solace_shell.messages import PARSE_ERRORS

    text = PARSE_ERRORS["invalid"].format(word="frob")
    assert re.search(summ.invalid_input_regex(), text)
    invalid_value = PARSE_ERRORS["invalid-value"].format(word="x", param="p", reason="r")
    assert not re.search(summ.invalid_input_regex(), invalid_value)


def _summary(**kw):
    base = dict(inputs=["c"], transcripts={"total": 2, "passed": 1, "failed": 1, "quarantined": 0},
                verdicts={"pass": 3, "fail": 1}, by_node=[{"node": "", "pass": 0, "fail": 1, "error": 0},
                                                          {"node": "show.clock", "pass": 3, "fail": 0, "error": 0}],
                by_signature=[], grammar_nodes=None, grammar_reason="not built", exercised=["show.clock", ""],
                unknown_commands=[], quarantine=[], min_pass=0.6, gate_of="transcripts")
    base.update(kw)
    return summ.build_summary(**base)


def test_summary_gate_and_missing_grammar():
    s = _summary()
    assert s["gate"] == {"min_pass": 0.6, "of": "transcripts", "rate": 0.5, "ok": False}
    assert s["pass_rate"] == {"commands": 0.75, "transcripts": 0.5}
    assert s["coverage"]["available"] is False and s["coverage"]["reason"] == "not built"
    assert s["coverage"]["exercised_nodes"] == ["show.clock"]
    assert s["by_node"][0]["node"] == summ.UNPARSED
    assert _summary(gate_of="commands")["gate"]["ok"] is True


def test_report_is_escaped_html_with_an_svg_chart():
    s = _summary(by_signature=[{"signature": "output:line 1:<b>", "count": 1, "transcripts": 1, "nodes": ["x"],
                                "example": {"transcript": "t<1>", "line": 2}}])
    html = summ.render_report(s)
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "<rect" in html
    assert "output:line 1:&lt;b&gt;" in html and "t&lt;1&gt;:2" in html and "<b>" not in html
    assert summ.render_report(s) == html


def test_table_bytes_do_not_depend_on_how_the_sorted_rows_arrive(tmp_path):
    """The driver writes partitions as they come; row groups of a fixed size keep the file's bytes
    the same whatever the partition boundaries (more rows than one row group here)."""
    import pyarrow as pa

    from spark_jobs.tables import ROWS_PER_GROUP, SortedTableWriter

    n = ROWS_PER_GROUP * 2 + 123
    table = pa.table({"transcript": [f"t{i // 7:06d}" for i in range(n)], "line": pa.array(range(n), pa.int32())})
    written = []
    for cuts in ([n], [5, ROWS_PER_GROUP, ROWS_PER_GROUP + 1, n], [ROWS_PER_GROUP - 1, 2 * ROWS_PER_GROUP + 1, n]):
        writer = SortedTableWriter(str(tmp_path / f"t{len(written)}"), table.schema)
        start = 0
        for end in cuts:
            writer.write(table.slice(start, min(end, n) - start))
            start = min(end, n)
        writer.close()
        written.append((tmp_path / f"t{len(written)}" / "part-00000.parquet").read_bytes())
    assert written[0] == written[1] == written[2]
    assert sorted(p.name for p in (tmp_path / "t0").iterdir()) == ["_SUCCESS", "part-00000.parquet"]


def test_the_daemon_warm_up_starts_no_thread_before_the_workers_fork():
    """Spark forks its Python workers from `spark_jobs.daemon` after `warm_up()`: a thread alive then
    (native ones included) would be lost in every worker, holding whatever lock it held."""

    code = ("import os, threading; from spark_jobs.daemon import warm_up; warm_up(); "
            "import sys; assert 'pyarrow' not in sys.modules, 'pyarrow starts threads'; "
            "print(threading.active_count(), len(os.listdir('/proc/self/task')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["1", "1"]


def test_the_daemon_warm_up_leaves_what_the_workers_inherit_frozen_for_the_collector():
    """A full collection in a worker (pyspark.daemon runs one after every task) skips the grammar and
    the lab template it inherited: the warm-up leaves them in the permanent generation, none tracked."""
    code = ("import gc; from spark_jobs.daemon import warm_up; warm_up(); "
            "print(gc.get_freeze_count(), len(gc.get_objects()))")
    frozen, tracked = map(int, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                              check=True).stdout.split())
    assert frozen > 10_000
    assert tracked == 0


def _shipped(root, *names):
    lib = root / "pyspark" / "python" / "lib"
    lib.mkdir(parents=True)
    for name in names:
        (lib / name).write_bytes(b"")
    return [str(lib / name) for name in names]


def _installed(site, *packages):
    for package in packages:
        (site / package).mkdir(parents=True, exist_ok=True)
        (site / package / "__init__.py").write_text("")


def test_the_daemon_drops_the_source_zips_shipped_inside_an_installed_pyspark(tmp_path):
    """Spark puts the zips first on its workers' path: from them every daemon compiled pyspark anew."""
    from spark_jobs.daemon import without_shipped_sources

    site = tmp_path / "site"
    zips = _shipped(site, "pyspark.zip", "py4j-0.10.9.9-src.zip")
    _installed(site, "pyspark", "py4j")
    path = [str(tmp_path / "work"), *zips, str(site / "pyspark" / "jars" / "spark-core.jar"), str(site)]
    rest = [path[0], *path[3:]]
    assert without_shipped_sources(path, lambda: "0.10.9.9") == rest
    assert without_shipped_sources(path, lambda: "0.10.9.7") == [path[0], zips[1], *path[3:]], "other py4j"
    assert without_shipped_sources(path, lambda: None) == [path[0], zips[1], *path[3:]], "no py4j installed"


def test_the_daemon_keeps_the_zips_when_the_installed_package_would_not_be_imported(tmp_path):
    """Workers on another interpreter (PYSPARK_PYTHON) lack the driver's site directory; a package
    earlier on the path would shadow the installed one; a Spark distribution has no package around."""
    from spark_jobs.daemon import without_shipped_sources

    def never_asked() -> str:
        raise AssertionError("py4j's version is asked only when the installed py4j would be imported")

    site = tmp_path / "site"
    zips = _shipped(site, "pyspark.zip", "py4j-0.10.9.9-src.zip")
    _installed(site, "pyspark", "py4j")
    path = [*zips, str(tmp_path / "other-site")]
    assert without_shipped_sources(path, never_asked) == path
    _installed(tmp_path / "earlier", "pyspark", "py4j")
    path = [*zips, str(tmp_path / "earlier"), str(site)]
    assert without_shipped_sources(path, never_asked) == path

    home = tmp_path / "spark-3.5.1-bin-hadoop3"
    (home / "python" / "lib").mkdir(parents=True)
    path = [str(home / "python" / "lib" / "pyspark.zip"), str(home / "python" / "lib" / "py4j-0.10.9.7-src.zip"),
            str(site)]
    assert without_shipped_sources(path, never_asked) == path
