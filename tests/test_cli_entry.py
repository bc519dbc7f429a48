"""The command-line entry points: one-shot commands, scripts, lab files, exit status."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from solace_shell.cli import main


def invoke(*args: str, db: Path):
    return CliRunner().invoke(main, ["--db", str(db), *args], catch_exceptions=False)


def test_one_shot_command_prints_output_only(tmp_path: Path) -> None:
    result = invoke("-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert result.exit_code == 0
    assert result.stdout == "Hostname: NY_Appliance1\n"
    assert "created lab database" in result.stderr


def test_lab_file_is_created_once_and_reused(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    invoke("-c", "show hostname", db=db)
    second = invoke("-c", "show hostname", db=db)
    assert "created lab database" not in second.stderr


def test_one_shot_failure_sets_exit_status(tmp_path: Path) -> None:
    result = invoke("-c", "show nonsense", db=tmp_path / "lab.sqlite")
    assert result.exit_code == 1
    assert "Invalid command input" in result.stdout


def test_router_option(tmp_path: Path) -> None:
    result = invoke("--router", "NJ_Appliance1", "-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert result.stdout == "Hostname: NJ_Appliance1\n"
    bad = invoke("--router", "Nowhere", "-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert bad.exit_code == 2 and "no router named 'Nowhere'" in bad.stderr


def test_script_echoes_lines_after_the_prompt_and_skips_comments(tmp_path: Path) -> None:
    script = tmp_path / "drill.cli"
    script.write_text("! pragma:interpreter:ignore-already-exists\nhome\nenable\nconfigure\n"
                      "  message-vpn Trading_VPN\nend\nshow hostname\n", encoding="utf-8")
    result = invoke("-s", str(script), db=tmp_path / "lab.sqlite")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "NY_Appliance1> home",
        "NY_Appliance1> enable",
        "NY_Appliance1# configure",
        "NY_Appliance1(configure)# message-vpn Trading_VPN",
        "NY_Appliance1(configure/message-vpn)# end",
        "NY_Appliance1# show hostname",
        "Hostname: NY_Appliance1",
        "NY_Appliance1# ",
    ]


def test_script_with_a_failing_line_exits_non_zero(tmp_path: Path) -> None:
    script = tmp_path / "bad.cli"
    script.write_text("enable\nconfigure\nmessage-vpn Nowhere\n", encoding="utf-8")
    result = invoke("-s", str(script), db=tmp_path / "lab.sqlite")
    assert result.exit_code == 1
    assert "ERROR: Message VPN 'Nowhere' not found." in result.stdout


def test_corrupt_lab_file_gives_one_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    db.write_bytes(b"\x00garbage" * 100)
    result = invoke("-c", "show hostname", db=db)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"solace-shell: cannot open lab {db}")
    assert "Traceback" not in result.output


def test_unknown_user_and_wrong_password_get_the_same_answer(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "lab.sqlite"
    invoke("-c", "show hostname", db=db)
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "guess")
    unknown = invoke("--user", "mallory", "-c", "show hostname", db=db)
    wrong = invoke("--user", "monitor", "-c", "show hostname", db=db)
    assert (unknown.exit_code, unknown.stderr) == (2, "solace-shell: login failed for CLI user 'mallory'\n")
    assert (wrong.exit_code, wrong.stderr) == (2, "solace-shell: login failed for CLI user 'monitor'\n")


def test_a_failed_login_waits_before_answering(tmp_path: Path, monkeypatch) -> None:
    import time

    db = tmp_path / "lab.sqlite"
    invoke("-c", "show hostname", db=db)
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "guess")
    monkeypatch.setenv("SOLACE_SHELL_LOGIN_DELAY", "0.3")
    for user in ("mallory", "monitor"):
        started = time.monotonic()
        assert invoke("--user", user, "-c", "show hostname", db=db).exit_code == 2
        assert time.monotonic() - started >= 0.3


def test_named_user_must_give_the_right_password(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "lab.sqlite"
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "wrong")
    refused = invoke("--user", "monitor", "-c", "show hostname", db=db)
    assert refused.exit_code == 2 and "login failed for CLI user 'monitor'" in refused.stderr
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "monitor")
    allowed = invoke("--user", "monitor", "-c", "show hostname", db=db)
    assert allowed.exit_code == 0 and allowed.stdout == "Hostname: NY_Appliance1\n"


def test_named_user_without_a_terminal_or_password_is_told_how(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLACE_SHELL_PASSWORD", raising=False)
    result = invoke("--user", "monitor", "-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert result.exit_code == 2 and "set SOLACE_SHELL_PASSWORD" in result.stderr


def test_replay_subcommand_runs_a_transcript(tmp_path: Path) -> None:
    good = tmp_path / "good.cli.txt"
    good.write_text("NY_Appliance1> show hostname\nHostname: NY_Appliance1\n")
    bad = tmp_path / "bad.cli.txt"
    bad.write_text("NY_Appliance1> show hostname\nHostname: elsewhere\n")
    runner = CliRunner()
    assert runner.invoke(main, ["replay", str(good)], catch_exceptions=False).exit_code == 0
    assert runner.invoke(main, ["replay", str(bad)], catch_exceptions=False).exit_code == 1


def test_a_new_lab_can_be_built_from_a_scenario(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parent.parent / "transcripts" / "scenarios" / "blue_02.yaml"
    db = tmp_path / "blue.sqlite"
    result = invoke("--scenario", str(scenario), "-c", "show message-vpn blue_02 replication", db=db)
    assert result.exit_code == 0, result.output
    assert "blue_02" in result.stdout
    again = invoke("--scenario", str(scenario), "-c", "show hostname", db=db)
    assert again.exit_code == 2 and "already exists; --scenario only builds a new lab" in again.stderr


def test_an_invalid_scenario_lists_every_problem_and_creates_nothing(tmp_path: Path) -> None:
    scenario = tmp_path / "bad.yaml"
    scenario.write_text("sites:\n  - name: NY\n    colour: red\nrouters:\n  - {name: R1, site: Nowhere}\n",
                        encoding="utf-8")
    db = tmp_path / "lab.sqlite"
    result = invoke("--scenario", str(scenario), "-c", "show hostname", db=db)
    assert result.exit_code == 2
    assert f"scenario {scenario} has" in result.stderr
    assert result.stderr.count(f"{scenario}:") >= 2, result.stderr
    assert "Traceback" not in result.output
    assert not db.exists()


def _wrong_schema(db: Path) -> None:
    import sqlite3

    invoke("-c", "show hostname", db=db)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    con.commit()
    con.close()


@pytest.mark.parametrize("make", [
    lambda db: db.write_bytes(os.urandom(4096)),
    lambda db: db.write_text("this is not a lab\n", encoding="utf-8"),
    lambda db: db.write_bytes(b""),
    lambda db: (invoke("-c", "show hostname", db=db), db.write_bytes(db.read_bytes()[:3000])),
    lambda db: __import__("sqlite3").connect(db).execute("CREATE TABLE t(x)").connection.commit(),
    _wrong_schema,
], ids=["random-bytes", "text-file", "empty", "truncated", "foreign-sqlite", "wrong-schema-version"])
def test_every_kind_of_bad_lab_file_gives_one_clear_error(tmp_path: Path, make) -> None:
    db = tmp_path / "lab.sqlite"
    make(db)
    result = invoke("-c", "show hostname", db=db)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"solace-shell: cannot open lab {db}: "), result.stderr
    assert "Traceback" not in result.output
