"""The command-line entry points: one-shot commands, scripts, lab files, exit status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solace_shell.cli import main

ROOT = Path(__file__).resolve().parents[2]


def invoke(*args: str, db: Path):
    return CliRunner().invoke(main, ["--db", str(db), *args], catch_exceptions=False)


def test_one_shot_command_prints_output_only(tmp_path: Path) -> None:
    result = invoke("-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert result.exit_code == 0
    assert result.stdout == "\nHostname: NY_Appliance1\n"
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
    assert result.stdout == "\nHostname: NJ_Appliance1\n"
    bad = invoke("--router", "Nowhere", "-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert bad.exit_code == 2 and "no router named 'Nowhere'" in bad.stderr


BANNER_10_4 = [
    "Solace PubSub+ Enterprise Version 10.4.1.52",
    "",
    "This Solace product is proprietary software of",
    "Solace Corporation. By accessing this Solace product",
    "you are agreeing to the license terms and conditions",
    "located at http://www.solace.com/license-software",
    "",
    "Copyright 2004-2023 Solace Corporation. All rights reserved.",
    "",
    "Operating Mode: Message Routing Node",
]


def test_script_is_framed_like_cli_dash_s(tmp_path: Path) -> None:
    """T15: the banner, two blank lines, then each echoed line after a blank line, output after
    its echo (show output with its own leading blank line); comments are echoed (C17)."""
    script = tmp_path / "drill.cli"
    script.write_text("! pragma:interpreter:ignore-already-exists\nhome\nenable\nconfigure\n"
                      "  message-vpn Trading_VPN\nend\n\nshow hostname\n", encoding="utf-8")
    result = invoke("-s", str(script), db=tmp_path / "lab.sqlite")
    assert result.exit_code == 0
    assert result.stdout.split("\n") == [*BANNER_10_4, "", "",
        "NY_Appliance1> ! pragma:interpreter:ignore-already-exists", "",
        "NY_Appliance1> home", "",
        "NY_Appliance1> enable", "",
        "NY_Appliance1# configure", "",
        "NY_Appliance1(configure)# message-vpn Trading_VPN", "",
        "NY_Appliance1(configure/message-vpn)# end", "",
        "NY_Appliance1# show hostname", "",
        "Hostname: NY_Appliance1",
        "",
    ]


T16 = """home
enable
configure
message-spool message-vpn "default"
! pragma:interpreter:ignore-already-exists
  create queue "connector-quickstart" primary
! pragma:interpreter:no-ignore-already-exists
    access-type "exclusive"
    permission all "delete"
    no shutdown
    exit
  exit
"""


def test_the_t16_script_runs_twice_on_one_lab(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    script = tmp_path / "create_queue_cmd"
    script.write_text(T16, encoding="utf-8")
    for _ in range(2):
        result = invoke("-s", str(script), db=db)
        assert result.exit_code == 0, result.stdout
        assert "ERROR" not in result.stdout
    # without the pragma the second create is refused
    script.write_text(T16.replace("! pragma:interpreter:ignore-already-exists\n", ""), encoding="utf-8")
    result = invoke("-s", str(script), db=db)
    assert result.exit_code == 1 and "already exists" in result.stdout


def test_piped_standard_input_runs_as_a_script(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--db", str(tmp_path / "lab.sqlite")], input="enable\nshow hostname\n",
                                catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout.split("\n")[-6:] == [
        "NY_Appliance1> enable", "", "NY_Appliance1# show hostname", "", "Hostname: NY_Appliance1", ""]
    assert "\x1b" not in result.stdout and "Input is not a terminal" not in result.output
    failing = CliRunner().invoke(main, ["--db", str(tmp_path / "lab.sqlite")], input="show nonsense\n",
                                 catch_exceptions=False)
    assert failing.exit_code == 1


def test_script_lines_split_only_on_newline(tmp_path: Path) -> None:
    """FF, VT, NEL, LS, PS stay inside their line: a comment cannot smuggle a command."""
    script = tmp_path / "smuggle.cli"
    for sep in ("\x0c", "\x0b", "\x85", "\u2028", "\u2029", "\x1c"):
        script.write_text(f"enable\r\n! comment{sep}configure\n", encoding="utf-8")
        result = invoke("-s", str(script), db=tmp_path / "lab.sqlite")
        assert result.exit_code == 1, repr(sep)
        assert "NY_Appliance1(configure)#" not in result.stdout
        assert "Control character" in result.stdout and "! comment?configure" in result.stdout


def test_undecodable_script_and_arguments_are_one_clear_line(tmp_path: Path) -> None:
    script = tmp_path / "bad.cli"
    script.write_bytes(b"enable\nshow \xff\n")
    result = invoke("-s", str(script), db=tmp_path / "lab.sqlite")
    assert result.exit_code == 2 and result.stderr == f"solace-shell: {script}:2: not valid UTF-8 (byte offset 12)\n"
    bad_arg = invoke("-c", "show \udcff", db=tmp_path / "lab.sqlite")
    assert bad_arg.exit_code == 2 and bad_arg.stderr == "solace-shell: -c argument 1 is not valid UTF-8\n"


def test_a_failing_one_shot_command_is_echoed_above_its_caret(tmp_path: Path) -> None:
    result = invoke("-c", "show nonsense", db=tmp_path / "lab.sqlite")
    lines = result.stdout.split("\n")
    assert lines[0] == "NY_Appliance1> show nonsense"
    assert lines[1].index("^") == lines[0].index("nonsense")


def test_version_option() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("solace-shell, version ")


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
    assert allowed.exit_code == 0 and allowed.stdout == "\nHostname: NY_Appliance1\n"


def test_named_user_without_a_terminal_or_password_is_told_how(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("SOLACE_SHELL_PASSWORD", raising=False)
    result = invoke("--user", "monitor", "-c", "show hostname", db=tmp_path / "lab.sqlite")
    assert result.exit_code == 2 and "set SOLACE_SHELL_PASSWORD" in result.stderr


def test_replay_subcommand_runs_a_transcript(tmp_path: Path) -> None:
    good = tmp_path / "good.cli.txt"
    good.write_text("NY_Appliance1> show hostname\n\nHostname: NY_Appliance1\n")
    bad = tmp_path / "bad.cli.txt"
    bad.write_text("NY_Appliance1> show hostname\nHostname: elsewhere\n")
    runner = CliRunner()
    assert runner.invoke(main, ["replay", str(good)], catch_exceptions=False).exit_code == 0
    assert runner.invoke(main, ["replay", str(bad)], catch_exceptions=False).exit_code == 1


def test_a_new_lab_can_be_built_from_a_scenario(tmp_path: Path) -> None:
    scenario = Path(__file__).resolve().parents[2] / "transcripts" / "scenarios" / "blue_02.yaml"
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


def test_a_script_on_a_lab_of_ha_systems_has_no_router_banner(tmp_path: Path) -> None:
    """`cli -A -s` framing is the router CLI's: a gfsh script on a Geode lab prints gfsh's lines only."""
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "--db", str(tmp_path / "g.lab"),
                           "--scenario", "geode-ha"], input="list members\n", capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Solace" not in done.stdout
    assert "gfsh> list members\nMember Count : 4\n" in done.stdout
