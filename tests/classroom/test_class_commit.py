"""A trainee's line and its lab change are one unit of commit (`LabStore.joined`).

On PostgreSQL (a throwaway cluster, through a proxy that loses a COMMIT's answer or the COMMIT
itself): a commit whose answer was lost stands and is answered as it ran; a commit the server
never got is "nothing was changed", as the database confirms; a commit that cannot be checked is
"unknown", never "nothing was changed", and the next command shows it; the connection lost between
the lab's row and the record's line keeps neither. With SQLite files: a process killed between the
record's commit and the lab's leaves a line the lab lacks, which is marked unapplied (at the lab's
first use, or when a later line takes its row) and left out of the export."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from solace_shell.classroom.class_file import ClassFile, Member
from solace_shell.classroom.class_lab import ClassLab
from solace_shell.classroom.record import ClassRecord, Recorded
from solace_shell.classroom.room import ClassRoom
from solace_shell.classroom.web import at_line, views
from state_store import lab_db
from tests.support.pg_proxy import CommitProxy
from tests.support.postgres import Cluster, postgres_cluster
from tests.support.ssh_clients import TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
PUBLISH = "publish trader trading/orders/new count {}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with postgres_cluster() as found:
        yield found


@pytest.fixture()
def proxy(cluster: Cluster) -> Iterator[CommitProxy]:
    found = CommitProxy(cluster.port)
    yield found
    found.close()


def bob(class_file: ClassFile) -> Member:
    member = class_file.trainee("bob")
    assert member is not None
    return member


def published(lab: ClassLab) -> int:
    return int(lab.execute("lab", "audit").text.split()[1])


def journal_calls(cluster: Cluster, url: str) -> int:
    return int(str(cluster.sql(url, "SELECT count(*) FROM lab_journal WHERE lab = 'bob' AND kind = 'calls'")[0][0]))


def publish_lines(room: ClassRoom) -> list[tuple[str, bool, str | None]]:
    return [(r.line, r.ok, r.error_kind) for r in room.record.lines("bob") if r.line.startswith("publish")]


@pytest.mark.slow
def test_a_lost_commit_answer_stands_and_is_answered_as_it_ran(cluster: Cluster, proxy: CommitProxy,
                                                               class_file: ClassFile, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, proxy.url(url))
    try:
        lab = room.trainee_lab(bob(class_file), "shell")
        assert published(lab) == 0
        proxy.lose("answer")
        out = lab.execute("lab", PUBLISH.format(5))
        assert proxy.lost.is_set(), out.text
        assert out.ok and "published 5 " in out.text, out.text  # the database says it committed
        assert "the connection was lost during a commit that happened" in caplog.text
        assert published(lab) == 5 and journal_calls(cluster, url) == 1
        assert publish_lines(room) == [(PUBLISH.format(5), True, None)]
    finally:
        room.close()


@pytest.mark.slow
def test_a_commit_the_server_never_got_changed_nothing_and_says_so(cluster: Cluster, proxy: CommitProxy,
                                                                    class_file: ClassFile, tmp_path: Path) -> None:
    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, proxy.url(url))
    try:
        lab = room.trainee_lab(bob(class_file), "shell")
        proxy.lose("commit")
        out = lab.execute("lab", PUBLISH.format(5))
        assert proxy.lost.is_set(), out.text
        assert not out.ok and len(out.text.splitlines()) == 1
        assert "the database says it was not committed" in out.text and "nothing was changed" in out.text
        assert published(lab) == 0 and journal_calls(cluster, url) == 0
        # recorded as it was answered, once (the line written in the lost transaction went with it)
        assert publish_lines(room) == [(PUBLISH.format(5), False, "lab-file")]
        assert lab.execute("lab", PUBLISH.format(2)).ok
        assert published(lab) == 2 and journal_calls(cluster, url) == 1
    finally:
        room.close()


@pytest.mark.slow
def test_a_commit_that_cannot_be_checked_is_unknown_and_the_next_command_shows_it(
        cluster: Cluster, proxy: CommitProxy, class_file: ClassFile, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lab_db, "COMMIT_CHECK_S", 0.5)
    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, proxy.url(url))
    try:
        lab = room.trainee_lab(bob(class_file), "shell")
        assert published(lab) == 0  # (the pool's connection is open before the database goes away)
        proxy.refusing = True
        proxy.lose("answer")
        out = lab.execute("lab", PUBLISH.format(5))
        assert proxy.lost.is_set(), out.text
        assert not out.ok and len(out.text.splitlines()) == 1
        assert "Whether the command was applied is unknown" in out.text and "nothing was changed" not in out.text
        proxy.refusing = False
        assert published(lab) == 5  # it had committed: the next command reads it
        assert journal_calls(cluster, url) == 1
        assert publish_lines(room) == [(PUBLISH.format(5), True, None)]  # its line committed with it
    finally:
        room.close()


@pytest.mark.slow
def test_a_connection_lost_between_the_lab_row_and_the_record_line_keeps_neither(
        cluster: Cluster, class_file: ClassFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import text

    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, url)
    try:
        lab = room.trainee_lab(bob(class_file), "shell")
        real = ClassRecord.add_line

        def lost(self: ClassRecord, **row: object) -> Recorded:
            unit = row.get("unit")
            if str(row["line"]).startswith("publish") and unit is not None:
                assert getattr(unit, "appended", None) is not None  # the lab's row is written, not committed
                unit.connection.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))  # type: ignore[attr-defined]
            return real(self, **row)  # type: ignore[arg-type]

        monkeypatch.setattr(ClassRecord, "add_line", lost)
        out = lab.execute("lab", PUBLISH.format(5))
        monkeypatch.setattr(ClassRecord, "add_line", real)
        assert not out.ok and out.text.startswith("% the class record cannot be used: ")
        assert "nothing was changed" in out.text
        assert journal_calls(cluster, url) == 0 and publish_lines(room) == []
        assert published(lab) == 0
        assert lab.execute("lab", PUBLISH.format(1)).ok and published(lab) == 1
        assert journal_calls(cluster, url) == 1 and publish_lines(room) == [(PUBLISH.format(1), True, None)]
    finally:
        room.close()


CRASH = """
import os, sys
from pathlib import Path
from solace_shell.classroom.class_file import load_class_file
from solace_shell.classroom.record import ClassRecord, Recorded
from solace_shell.classroom.room import ClassRoom

real = ClassRecord.add_line

def crash(self, **row):
    real(self, **row)
    os._exit(9)  # killed between the record's commit and the lab's

ClassRecord.add_line = crash
room = ClassRoom(load_class_file(sys.argv[1]), Path(sys.argv[2]))
lab = room.trainee_lab(room.class_file.trainee("bob"), "shell")
lab.execute("lab", sys.argv[3])
"""


def crash_in_the_gap(class_file: ClassFile, directory: Path, line: str) -> None:
    done = subprocess.run([sys.executable, "-c", CRASH, str(class_file.path), str(directory), line],
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 9, done.stderr


def test_a_line_whose_lab_commit_a_crash_prevented_is_marked_unapplied(class_file: ClassFile,
                                                                        tmp_path: Path) -> None:
    directory = tmp_path / "course.class"
    ClassRoom(class_file, directory).close()
    crash_in_the_gap(class_file, directory, PUBLISH.format(7))
    room = ClassRoom(class_file, directory)
    try:
        [lost] = [r for r in room.record.lines("bob") if r.line == PUBLISH.format(7)]
        assert lost.ok and lost.lab_seq is not None  # recorded as it ran
        lab = room.trainee_lab(bob(class_file), "shell")  # the lab's first use here: its rows are checked
        assert room.record.unapplied("bob") == {lost.seq}
        assert published(lab) == 0  # the lab never had it
        untouched = views.lab_drawing(room, "bob")
        graded = room.grade("bob")  # (the grade kept line by line leaves the line out too)
        assert graded.lines == len(room.record.lines("bob")) - 1
        # another process dies the same way while this one has the lab open: this one's next change
        # takes the same row, and marks that line
        crash_in_the_gap(class_file, directory, PUBLISH.format(9))
        [second] = [r for r in room.record.lines("bob") if r.line == PUBLISH.format(9)]
        assert lab.execute("lab", PUBLISH.format(3)).ok
        assert room.record.unapplied("bob") == {lost.seq, second.seq}
        assert published(lab) == 3
        [kept] = [r for r in room.record.lines("bob") if r.line == PUBLISH.format(3)]
        assert kept.lab_seq == second.lab_seq  # the row number the lost line had claimed
        assert room.grade("bob") == room.lab_grades.whole("bob")  # the mark came after the line was graded
        assert room.grade("bob").lines == len(room.record.lines("bob")) - 2
        exported = room.transcript("bob")
        assert PUBLISH.format(3) in exported
        assert PUBLISH.format(7) not in exported and PUBLISH.format(9) not in exported
        # the trainee page's lab after the lost line: drawn without its change, and says so
        after = at_line.lab_after(room, "bob", lost.seq)
        assert after is not None and "never reached the lab" in after.note
        assert after.drawing.boxes == untouched.boxes
    finally:
        room.close()
    again = ClassRoom(class_file, directory)  # opening again finds nothing more to mark
    try:
        again.trainee_lab(bob(class_file), "exec")
        assert len(again.record.notes("bob", ("unapplied",))) == 2
    finally:
        again.close()
