"""The class file: checked strictly, every problem at once with its line, nothing used otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from solace_shell.classroom.class_file import DEFAULT_CONSOLE, ClassFileError, load_class_file

GOOD = """\
scenario: default
runbook: controlled-failover
trainers:
  - {name: trainer, password: trainerpw}
trainees:
  - {name: alice, password: alicepw}
  - {name: bob, password: bobpw, team: blue}
  - {name: carol, password: carolpw, team: blue}
window: {start: 2026-01-01T09:00:00Z, end: 2099-01-01T17:00:00Z, drill_minutes: 45, idle_minutes: 15}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "class.yaml"
    path.write_text(text)
    return path


def test_a_good_class_file(tmp_path: Path) -> None:
    cls = load_class_file(_write(tmp_path, GOOD))
    assert [t.name for t in cls.trainees] == ["alice", "bob", "carol"]
    assert cls.labs() == ["alice", "blue"]
    assert cls.is_trainer("trainer") and not cls.is_trainer("alice")
    assert set(DEFAULT_CONSOLE) <= cls.console and "reset" not in cls.console
    assert cls.window.drill_minutes == 45
    assert cls.scenario_of("blue").name == "default.yaml"


def test_every_problem_is_reported_at_once_with_its_line(tmp_path: Path) -> None:
    text = """\
scenario: no-such-scenario
runbook: no-such-runbook
trainers:
  - {name: trainer, password: pw}
trainees:
  - {name: alice, password: pw}
  - {name: alice, password: pw2}
  - {name: Trainer, password: pw}
  - {name: ../etc, password: pw}
  - {name: dave, password: pw, colour: red}
window: {start: tomorrow}
console: [publish, format-disk]
extra: 1
"""
    with pytest.raises(ClassFileError) as caught:
        load_class_file(_write(tmp_path, text))
    problems = caught.value.problems
    text_all = "\n".join(problems)
    assert ":1: scenario: scenario 'no-such-scenario' not found" in text_all
    assert ":2: runbook: 'no-such-runbook' cannot be used" in text_all
    assert ":7: trainee 'alice': defined twice" in text_all
    assert ":8: trainee 'Trainer': named like a trainer" in text_all
    assert ":9: trainees[3].name: '../etc' is not a name" in text_all
    assert ":10: trainees[4]: unknown key 'colour'" in text_all
    assert ":11: window.start: expected a time" in text_all
    assert ":12: console[1]: 'format-disk' is not a console verb" in text_all
    assert ":13: top level: unknown key 'extra'" in text_all
    assert "pw2" not in text_all


def test_passwords_are_never_shown(tmp_path: Path) -> None:
    text = GOOD.replace("alicepw", '"secret\\x01word"')
    with pytest.raises(ClassFileError) as caught:
        load_class_file(_write(tmp_path, text))
    assert "secret" not in str(caught.value) and ":6: trainees[0].password" in str(caught.value)


def test_not_a_regular_file_or_too_large(tmp_path: Path) -> None:
    with pytest.raises(ClassFileError, match="not a regular file"):
        load_class_file(tmp_path)
    big = _write(tmp_path, "#" * 1_000_001)
    with pytest.raises(ClassFileError, match="longer than"):
        load_class_file(big)
    with pytest.raises(ClassFileError, match="cannot read"):
        load_class_file(tmp_path / "missing.yaml")


def test_a_scenario_per_team(tmp_path: Path) -> None:
    text = GOOD.replace("scenario: default", "scenario: {default: default, blue: bare, green: default}")
    with pytest.raises(ClassFileError, match=r":1: scenario: 'green' is no team or trainee"):
        load_class_file(_write(tmp_path, text))
    per_team = GOOD.replace("scenario: default", "scenario: {default: default, blue: bare}")
    cls = load_class_file(_write(tmp_path, per_team))
    assert cls.scenario_of("blue").name == "bare.yaml" and cls.scenario_of("alice").name == "default.yaml"


def test_a_team_named_like_a_trainee(tmp_path: Path) -> None:
    text = GOOD.replace("team: blue}\n  - {name: carol", "team: alice}\n  - {name: carol")
    with pytest.raises(ClassFileError, match="team 'alice' has the name of trainee 'alice'"):
        load_class_file(_write(tmp_path, text))
