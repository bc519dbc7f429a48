"""What a newcomer meets first gives a clear answer: a missing transcript is an error on standard
error (standard output keeps results only), an unknown `--scenario` lists the bundled ones, a long
command is printed once by `replay`, and the Spark commands check their local inputs before starting
a JVM and start no web UI unless asked. Each through the real command in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from state_store.scenario_files import ROOT_DIR

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted(p.stem for p in ROOT_DIR.glob("*.yaml"))


def _run(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(cwd / "data")}
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env, text=True, capture_output=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def test_replay_reports_a_missing_file_on_stderr_without_a_line_number(tmp_path: Path) -> None:
    for json_flag in ([], ["--json"]):
        done = _run("solace_shell.cli", "replay", *json_flag, "nosuch.cli.txt", cwd=tmp_path)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == "solace-shell: nosuch.cli.txt: no such file or directory\n"
    os.mkfifo(tmp_path / "fifo.cli.txt")
    done = _run("solace_shell.cli", "replay", "fifo.cli.txt", cwd=tmp_path)
    assert done.stderr == "solace-shell: fifo.cli.txt: not a regular file or a directory\n"


def test_an_unknown_scenario_lists_the_bundled_ones(tmp_path: Path) -> None:
    done = _run("solace_shell.cli", "--db", "x.lab", "--scenario", "nosuch", "-c", "show hostname", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("solace-shell: scenario 'nosuch' not found (give a YAML file or a bundled "
                                  "scenario name: default, ")
    assert all(name in done.stderr for name in BUNDLED)
    assert not (tmp_path / "x.lab").exists()


def test_replay_prints_a_long_command_once(tmp_path: Path) -> None:
    command = "show " + "x" * 200_000
    (tmp_path / "long.cli.txt").write_text(f"NY_Appliance1> {command}\n")
    done = _run("solace_shell.cli", "replay", "long.cli.txt", cwd=tmp_path)
    assert done.returncode == 1
    long_lines = [line for line in done.stdout.splitlines() if "x" * 1000 in line]
    assert len(long_lines) == 2  # the FAIL line's command (capped) and the parser's echo of its word
    assert len(done.stdout) < 3 * 70_000
    assert "[... 200,005 characters in all]" in done.stdout  # the diff's input lines: its start only
    assert "more characters not shown]" in done.stdout
    done = _run("solace_shell.cli", "replay", "--json", "long.cli.txt", cwd=tmp_path)
    assert done.returncode == 1
    assert len(done.stdout) < 3 * 70_000  # command, expected and actual each capped
    assert "more characters not shown]" in json.loads(done.stdout)["command"]


def test_grade_reports_a_missing_transcript_without_a_line_number(tmp_path: Path) -> None:
    done = _run("solace_shell.cli", "grade", "--runbook", "controlled-failover", "nosuch.cli.txt", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "solace-shell: nosuch.cli.txt: cannot read: No such file or directory\n"


def test_the_spark_commands_check_local_inputs_before_the_jvm(tmp_path: Path) -> None:
    for args in (["run", "nosuchdir", "--out", "x"], ["grade", "--runbook", "controlled-failover", "nosuchdir",
                                                       "--out", "x"]):
        done = _run("spark_jobs.cli", *args, cwd=tmp_path)
        assert (done.returncode, done.stderr) == (2, "solace-conformance: no such input: nosuchdir\n")
        assert not (tmp_path / "x").exists()


def test_the_spark_session_has_no_web_ui_unless_asked() -> None:
    from spark_jobs.job import session_options

    assert session_options("local[2]", "t", None)["spark.ui.enabled"] == "false"
    assert session_options("local[2]", "t", {"spark.ui.enabled": "true"})["spark.ui.enabled"] == "true"
