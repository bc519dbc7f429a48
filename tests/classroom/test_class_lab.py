"""A trainee's lab: their own, recorded line by line, the console limited to the class's verbs."""

from __future__ import annotations

import io
from pathlib import Path

from solace_shell.classroom.class_file import ClassFile
from solace_shell.classroom.room import ClassRoom
from solace_shell.script import run_commands

from .conftest import drill_lines


def _member(class_file: ClassFile, name: str):  # type: ignore[no-untyped-def]
    found = class_file.trainee(name)
    assert found is not None
    return found


def test_each_trainee_has_a_lab_of_their_own(room: ClassRoom, class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "shell")
    bob = room.trainee_lab(_member(class_file, "bob"), "shell")
    for target, line in drill_lines()[:6]:
        assert alice.execute(target, line).ok, line
    # alice's failover changed nothing of bob's lab
    text = bob.execute("NY_Appliance1", "show message-vpn Trading_VPN replication").text
    assert "Active" in text or "active" in text.lower()
    assert "published 0" in bob.execute("lab", "audit").text
    assert "published 10" in alice.execute("lab", "audit").text
    assert {line.lab for line in room.record.lines("alice")} == {"alice"}
    assert room.record.lines("bob")[-1].line == "audit"


def test_a_team_shares_one_lab(room: ClassRoom, class_file: ClassFile) -> None:
    carol = room.trainee_lab(_member(class_file, "carol"), "shell")
    dave = room.trainee_lab(_member(class_file, "dave"), "exec")
    carol.execute("lab", "publish trader trading/orders/new count 3")
    assert "published 3" in dave.execute("lab", "audit").text
    assert [(r.member, r.door) for r in room.record.lines("blue")] == [("carol", "shell"), ("dave", "exec")]


def test_console_verbs_outside_the_class_are_refused_and_change_nothing(room: ClassRoom,
                                                                        class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "shell")
    alice.execute("lab", "publish trader trading/orders/new count 2")
    for line in ("reset", "rese", "reset default", "progress", "grade", "set layout B", "reset /etc/passwd"):
        outcome = alice.execute("lab", line)
        assert not outcome.ok and "not open to trainees" in outcome.text, line
    assert "published 2" in alice.execute("lab", "audit").text
    assert alice.console_refusal() is None and not alice.lab_admin


def test_every_door_is_recorded(room: ClassRoom, class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "exec")
    run_commands(alice, "NY_Appliance1", ["show hostname", "show nonsense"], io.StringIO())
    rows = room.record.lines("alice")
    assert [(r.line, r.ok, r.error_kind, r.prompt) for r in rows] == [
        ("show hostname", True, None, "NY_Appliance1>"), ("show nonsense", False, "invalid", "NY_Appliance1>")]


def test_secrets_never_reach_the_record(room: ClassRoom, class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "shell")
    for line in ("enable", "configure", "create client-username x message-vpn Trading_VPN password hunter2xyz",
                 "username bob password hunter2xyz extra junk"):
        alice.execute("NY_Appliance1", line)
    rows = room.record.lines("alice")
    assert rows and all("hunter2xyz" not in r.line + r.output for r in rows)
    assert "hunter2xyz" not in room.transcript("alice")


def test_check_hint_and_grade(room: ClassRoom, class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "shell")
    check = alice.execute("lab", "check")
    assert check.ok and "0 of 6 steps done" in check.text and "next: verify-bridge" in check.text
    hint = alice.execute("lab", "hint")
    assert hint.ok and "verify-bridge" in hint.text and "why:" in hint.text
    for target, line in drill_lines():
        assert alice.execute(target, line).ok, line
    graded = room.grade("alice")
    assert graded.grade is not None and graded.grade.passed
    assert graded.hinted == {"verify-bridge"} and graded.score < 1.0
    assert not alice.execute("lab", "check extra").ok


def test_trainer_messages_are_shown_once_at_the_next_line(room: ClassRoom, class_file: ClassFile) -> None:
    alice = room.trainee_lab(_member(class_file, "alice"), "shell")
    room.record.add_note(lab="alice", member="alice", by="trainer", kind="message", text="look at NJ")
    assert alice.execute("NY_Appliance1", "show hostname").text.endswith("*** Message from trainer: look at NJ")
    assert "Message" not in alice.execute("NY_Appliance1", "show hostname").text


def test_a_message_written_by_another_server_is_shown_at_the_next_line(room: ClassRoom, class_file: ClassFile) -> None:
    """Lines read the record's messages only when one came (the line's own record says so): one
    another process writes, after lines that found none, still shows at the next line, once."""
    carol = room.trainee_lab(_member(class_file, "carol"), "shell")
    dave = room.trainee_lab(_member(class_file, "dave"), "shell")
    for _ in range(3):
        assert "Message" not in carol.execute("NY_Appliance1", "show hostname").text
    other = ClassRoom(class_file, room.directory)  # another server of the same class
    try:
        other.record.add_note(lab="blue", member="dave", by="trainer", kind="message", text="dave: look at NJ")
    finally:
        other.close()
    assert "Message" not in carol.execute("NY_Appliance1", "show hostname").text  # dave's, not carol's
    assert dave.execute("lab", "audit").text.endswith("*** Message from trainer: dave: look at NJ")
    assert "Message" not in dave.execute("lab", "audit").text


def test_a_reset_the_class_allows_starts_again_from_the_class_scenario(tmp_path: Path) -> None:
    from solace_shell.classroom.class_file import load_class_file

    from .conftest import CLASS_YAML

    path = tmp_path / "resets.yaml"
    path.write_text(CLASS_YAML + "console: [publish, audit, reset, check]\nwindow: {drill_minutes: 30}\n")
    class_file = load_class_file(path)
    room = ClassRoom(class_file, tmp_path / "resets.class")
    try:
        alice = room.trainee_lab(_member(class_file, "alice"), "shell")
        alice.execute("lab", "publish trader trading/orders/new count 4")
        assert alice.execute("lab", "reset").ok
        assert "published 0" in alice.execute("lab", "audit").text
        assert [r.line for r in room.record.lines("alice")][1] == "reset default"  # replays to the same lab
        assert not alice.execute("lab", "reset bare").ok
        assert not alice.execute("lab", "advance 1s").ok  # not in this class's verbs
        assert "time left: 29 min" in alice.execute("lab", "check").text
    finally:
        room.close()
