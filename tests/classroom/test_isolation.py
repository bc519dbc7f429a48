"""Isolation on every path, attacked as a hostile trainee would: another trainee's name in every
verb, `source script`, names with ../, very long lines. Nothing reaches another lab, and a name of
another lab gets the same answer as a name that does not exist."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from solace_shell.classroom.class_file import ClassFile, ClassFileError, load_class_file
from solace_shell.classroom.console import TrainerConsole
from solace_shell.classroom.room import ClassRoom
from solace_shell.script import run_commands
from state_store.scenario_files import DEFAULT_SCENARIO

from .conftest import CLASS_YAML

SCRIPT = """
cli_scripts:
  - name: failover.cli
    lines: [enable, configure, message-vpn Trading_VPN, replication state standby]
"""


def _lab(room: ClassRoom, class_file: ClassFile, name: str, door: str = "shell"):  # type: ignore[no-untyped-def]
    member = class_file.trainee(name)
    assert member is not None
    return room.trainee_lab(member, door)


def _state(lab) -> str:  # type: ignore[no-untyped-def]
    text = lab.execute("NY_Appliance1", "show message-vpn Trading_VPN replication").text
    return next(line for line in text.splitlines() if line.startswith("Trading_VPN")).split()[2]


def test_another_trainees_name_in_every_verb_is_an_unknown_name(room: ClassRoom, class_file: ClassFile) -> None:
    alice = _lab(room, class_file, "alice")
    for template in ("connect {}", "fail site {}", "restore site {}", "audit {}", "publish {} t/x",
                     "consume {} q", "reset {}", "check {}", "hint {}"):
        other = alice.execute("lab", template.format("bob"))
        nothing = alice.execute("lab", template.format("zzzz"))
        assert other.text.replace("bob", "X") == nothing.text.replace("zzzz", "X"), template
        assert not other.ok
    for line in ("show message-vpn bob", "show client bob", "enable"):
        alice.execute("NY_Appliance1", line)
    assert room.record.lines("bob") == [] and not room.lab_path("bob").exists()


def test_source_script_runs_in_the_trainees_lab_only_and_is_recorded(tmp_path: Path) -> None:
    scenario = tmp_path / "with-script.yaml"
    scenario.write_text(DEFAULT_SCENARIO.read_text() + SCRIPT)
    path = tmp_path / "course.yaml"
    path.write_text(CLASS_YAML.replace("scenario: default", "scenario: with-script.yaml"))
    class_file = load_class_file(path)
    room = ClassRoom(class_file, tmp_path / "course.class")
    try:
        alice, bob = _lab(room, class_file, "alice", "exec"), _lab(room, class_file, "bob")
        assert run_commands(alice, "NY_Appliance1", ["source script failover.cli"], io.StringIO()) == 0
        assert _state(alice) == "S" and _state(bob) == "A"
        assert room.record.lines("alice")[0].line == "source script failover.cli"
        assert "replication state standby" in room.record.lines("alice")[0].output
        assert not bob.execute("NY_Appliance1", "source script ../alice.lab").ok
    finally:
        room.close()


def test_a_trainee_cannot_reach_the_class_console(room: ClassRoom, class_file: ClassFile) -> None:
    console = TrainerConsole(room, "alice")
    text, ok = console.run("reset bob")
    assert not ok and text == "% only a trainer of this class may use the class console"
    assert room.record.notes("bob") == []


def test_trainer_actions_on_someone_not_in_the_class_change_nothing(room: ClassRoom) -> None:
    console = TrainerConsole(room, "trainer")
    for line in ("reset ../alice", "run nobody fail site NY", "extend bob@x 5", "message trainer hi",
                 "watch ../../etc/passwd", "show " + "a" * 10_000):
        text, ok = console.run(line)
        assert not ok and text.startswith("% no trainee '") and len(text) < 100, line
    assert all(room.record.notes(lab) == [] for lab in room.class_file.labs())
    assert console.run("extend alice many")[0].startswith("% MINUTES must be")
    assert console.run("frobnicate")[0].startswith("% unknown command")
    assert console.run("reset")[0] == "% usage: reset TRAINEE"
    for line in ("run alice reset /etc/passwd", "run alice rese bare"):
        assert console.run(line) == ("% use 'reset TRAINEE' to start a lab again", False)
    assert not room.lab_path("alice").exists()


def test_very_long_lines_are_refused_or_cut_never_a_failure(room: ClassRoom, class_file: ClassFile) -> None:
    alice = _lab(room, class_file, "alice")
    for target, line in (("lab", "publish " + "x" * 200_000), ("NY_Appliance1", "show " + "y" * 200_000),
                         ("lab", "message " + "z" * 100)):
        outcome = alice.execute(target, line)
        assert not outcome.ok
    for row in room.record.lines("alice"):
        assert len(row.line) < 9_000


@pytest.mark.parametrize("name", ["../alice", "a/b", ".hidden", "x" * 33, "al ice", "-rf", "alice\u202e"])
def test_names_that_could_leave_the_class_directory_are_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CLASS_YAML.replace("name: bob,", f"name: {name!r},"))
    with pytest.raises(ClassFileError, match=r":7: trainees\[1\]\.name"):
        load_class_file(path)
    team = tmp_path / "t.yaml"
    team.write_text(CLASS_YAML.replace("team: blue}", f"team: {name!r}}}", 1))
    with pytest.raises(ClassFileError, match=r"trainees\[2\]\.team"):
        load_class_file(team)


def test_a_trainees_escape_sequences_never_reach_the_trainers_terminal(room: ClassRoom,
                                                                       class_file: ClassFile) -> None:
    alice = _lab(room, class_file, "alice", "exec")
    alice.execute("NY_Appliance1", "show \x1b]0;pwned\x07\x1b[2J")
    assert "\x1b" in room.record.lines("alice")[0].line  # kept as typed; shown and exported with `?`
    assert "\x1b" not in room.transcript("alice")
    console = TrainerConsole(room, "trainer")
    for line in ("show alice", "watch alice", "roster"):
        text, ok = console.run(line)
        assert ok and "\x1b" not in text and "\x07" not in text
    assert all("\x1b" not in text for text in console.watch_lines("alice", 0)[0])
