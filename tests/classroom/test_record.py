"""The class record: append-only, and nothing acknowledged is lost when the server is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from solace_shell.classroom.class_file import ClassFile
from solace_shell.classroom.record import ClassRecord
from solace_shell.classroom.room import ClassRoom
from solace_shell.grading import load_runbook
from solace_shell.grading.transcript import grade_text
from solace_shell.transcript.format import parse_transcript
from solace_shell.transcript.replay import replay_text

from .conftest import drill_lines

WRITER = """
import sys
from pathlib import Path
from solace_shell.classroom.class_file import load_class_file
from solace_shell.classroom.room import ClassRoom
room = ClassRoom(load_class_file(sys.argv[1]), Path(sys.argv[2]))
lab = room.trainee_lab(room.class_file.trainee("alice"), "shell")
for n in range(1, 1000000):
    outcome = lab.execute("lab", "advance 1s")
    print(n, flush=True)   # the output is acknowledged only after the line is in the record
"""


def test_the_record_is_append_only(tmp_path: Path) -> None:
    record = ClassRecord.open(tmp_path)
    record.add_line(lab="a", member="a", door="shell", clock_ms=0, target="lab", prompt="lab>", line="status",
                    ok=True, error_kind=None, output="")
    record.add_note(lab="a", member="a", by="t", kind="message", text="hi")
    for statement in ("DELETE FROM lines", "UPDATE lines SET line = 'x'", "DELETE FROM notes"):
        with pytest.raises(IntegrityError, match="append-only"), record.engine.begin() as conn:
            conn.execute(text(statement))
    assert len(record.lines("a")) == 1


OLD_LINES = ("CREATE TABLE lines (seq INTEGER PRIMARY KEY AUTOINCREMENT, lab VARCHAR NOT NULL, "
             "member VARCHAR NOT NULL, door VARCHAR NOT NULL, wall VARCHAR NOT NULL, clock_ms BIGINT, "
             "target VARCHAR NOT NULL, prompt VARCHAR NOT NULL, line TEXT NOT NULL, ok BOOLEAN NOT NULL, "
             "error_kind VARCHAR, output TEXT NOT NULL, output_cut INTEGER NOT NULL)")


def test_a_record_file_without_lab_seq_gets_it(tmp_path: Path) -> None:
    """A record an older version wrote (no `lines.lab_seq`) is read and written on: its old lines
    carry no row number."""
    import sqlite3

    with sqlite3.connect(tmp_path / "class-record.sqlite") as con:
        con.execute(OLD_LINES)
        con.execute("INSERT INTO lines (lab, member, door, wall, target, prompt, line, ok, output, output_cut) "
                    "VALUES ('a', 'a', 'shell', '2026-12-01T00:00:00.000Z', 'lab', 'lab>', 'status', 1, '', 0)")
    for _ in range(2):  # (the second opening finds the column there)
        record = ClassRecord.open(tmp_path)
        record.add_line(lab="a", member="a", door="shell", clock_ms=0, target="lab", prompt="lab>", line="audit",
                        ok=True, error_kind=None, output="")
        record.close()
    assert [(r.line, r.lab_seq) for r in ClassRecord.open(tmp_path).lines("a")] == [
        ("status", None), ("audit", None), ("audit", None)]


def test_output_is_capped(tmp_path: Path) -> None:
    record = ClassRecord.open(tmp_path)
    record.add_line(lab="a", member="a", door="shell", clock_ms=0, target="lab", prompt="lab>", line="x",
                    ok=True, error_kind=None, output="y" * 100_000)
    row = record.lines("a")[0]
    assert len(row.output) == 65_536 and row.output_cut == 100_000 - 65_536


def test_sigkill_loses_nothing_acknowledged(class_path: Path, tmp_path: Path) -> None:
    directory = tmp_path / "killed.class"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(class_path), str(directory)],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    acknowledged = 0
    try:
        for line in proc.stdout:
            acknowledged = int(line)
            if acknowledged >= 40:
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    record = ClassRecord.open(directory)
    assert len(record.lines("alice")) >= acknowledged >= 40


def test_the_export_is_a_transcript_that_grades_and_replays(room: ClassRoom, class_file: ClassFile) -> None:
    member = class_file.trainee("alice")
    assert member is not None
    lab = room.trainee_lab(member, "shell")
    for target, line in drill_lines():
        lab.execute(target, line)
    exported = room.transcript("alice")
    parsed = parse_transcript(exported, "alice")
    assert len(parsed.steps) == len(drill_lines())
    assert "#| " in exported and " clock 5.000s alice shell" in exported
    assert grade_text(load_runbook("controlled-failover"), exported, "alice").passed
    result = replay_text(exported, "alice")
    assert result.passed, [c for c in result.commands if c.verdict != "pass"][:2]
