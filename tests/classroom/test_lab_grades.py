"""A lab's grade kept up to date line by line (`LabGrades`) is the grade of its whole record made
again (`LabGrades.whole`), whatever the trainees and the trainer do in between: the class drill's
lines in any order (its router lines first: a strategy's first choices are its likeliest), typos,
`lab> reset`, `check` and `hint`, the trainer's reset, run, extend and message, and a row that
sorts before the ones already graded."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert

from solace_shell.classroom.class_file import ClassFile, load_class_file
from solace_shell.classroom.console import TrainerConsole
from solace_shell.classroom.record import notes_table
from solace_shell.classroom.room import ClassRoom

from .conftest import CLASS_YAML, drill_lines

CONSOLE = "console: [publish, consume, advance, audit, reset, check, hint]\n"
LABS = ("alice", "blue")
TRAINEES = ("alice", "carol", "dave")
LINES = [*sorted(drill_lines(), key=lambda line: line[0] == "lab"), ("NY_Appliance1", "shw queue *"),
         ("NY_Appliance1(configure)", "bogus"), ("NJ_Appliance1", "show queue * message-vpn Trading_VPN"),
         ("NY_Appliance1", "! just a comment"), ("NJ_Appliance1", "show message-vpn Trading_VPN replication"),
         ("lab", "reset"), ("lab", "check"), ("lab", "hint"), ("lab", "advance 1s"), ("NY_Appliance1", "")]
TRAINER = ["reset alice", "reset carol", "run alice advance 2s", "run dave publish trader trading/orders/new count 3",
           "run alice fail site NY", "run carol restore site NY", "extend alice 5", "message dave look at NJ"]
Op = tuple[str, str, tuple[str, str]]


@st.composite
def an_op(draw: st.DrawFn) -> Op:
    """Half of them trainees' lines, a third grades, the rest the trainer's and (rarely) late rows."""
    kind = draw(st.integers(0, 23))
    if kind < 12:
        return "line", draw(st.sampled_from(TRAINEES)), draw(st.sampled_from(LINES))
    if kind < 20:
        return "grade", draw(st.sampled_from(LABS)), ("", "")
    if kind < 23:
        return "trainer", draw(st.sampled_from(TRAINER)), ("", "")
    return "late", draw(st.sampled_from(LABS)), ("", "")


def a_class(directory: Path) -> ClassFile:
    path = directory / "course.yaml"
    path.write_text(CLASS_YAML + CONSOLE)
    return load_class_file(path)


def late_note(room: ClassRoom, lab: str) -> None:
    """A login note stamped before every row of the lab (another host's clock behind)."""
    with room.record.engine.begin() as conn:
        conn.execute(insert(notes_table), {"lab": lab, "member": lab, "by": lab, "wall": "2000-01-01T00:00:00.000Z",
                                           "kind": "login", "text": ""})


def same(room: ClassRoom, lab: str) -> None:
    kept, whole = room.grade(lab), room.lab_grades.whole(lab)
    assert kept == whole, (lab, kept, whole)


def play(room: ClassRoom, ops: list[Op]) -> None:
    labs = {}
    console = TrainerConsole(room, "trainer")
    for kind, who, (target, line) in ops:
        if kind == "line":
            if who not in labs:
                member = room.class_file.trainee(who)
                assert member is not None
                labs[who] = room.trainee_lab(member, "shell")
            labs[who].execute(target.split("(")[0], line)
        elif kind == "trainer":
            console.run(who)
        elif kind == "late":
            late_note(room, who)
        else:
            same(room, who)
    for lab in LABS:
        same(room, lab)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(an_op(), min_size=4, max_size=40))
def test_the_kept_grade_is_the_whole_records(ops: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        room = ClassRoom(a_class(Path(tmp)), Path(tmp) / "course.class")
        try:
            play(room, ops)
        finally:
            room.close()


def test_the_class_drill_line_by_line_with_the_trainer_between(tmp_path: Path) -> None:
    room = ClassRoom(a_class(tmp_path), tmp_path / "course.class")
    try:
        ops: list[Op] = []
        for n, line in enumerate(drill_lines()):
            ops += [("line", "alice", line), ("line", "carol" if n % 2 else "dave", line), ("grade", "alice", ("", "")),
                    ("grade", "blue", ("", ""))]
            if n == 5:
                ops += [("trainer", "reset alice", ("", "")), ("trainer", "message carol hi", ("", "")),
                        ("line", "alice", ("lab", "hint"))]
        play(room, ops)
        assert room.grade("blue").grade is not None
        alice = room.grade("alice")
        assert alice.grade is not None and alice.hinted == {"verify-bridge"}
    finally:
        room.close()


def test_an_unchanged_lab_is_not_graded_again(tmp_path: Path) -> None:
    room = ClassRoom(a_class(tmp_path), tmp_path / "course.class")
    try:
        member = room.class_file.trainee("alice")
        assert member is not None
        lab = room.trainee_lab(member, "shell")
        lab.execute("NY_Appliance1", "show message-vpn Trading_VPN replication")
        first = room.grade("alice")
        assert room.grade("alice") is first
        lab.execute("NY_Appliance1", "show queue *")
        assert room.grade("alice") is not first
    finally:
        room.close()


def test_a_lab_let_go_is_graded_from_its_whole_record(tmp_path: Path) -> None:
    room = ClassRoom(a_class(tmp_path), tmp_path / "course.class")
    room.lab_grades.max_followed = 1
    try:
        labs = {name: room.trainee_lab(m, "shell") for name in ("alice", "bob")
                if (m := room.class_file.trainee(name)) is not None}
        for target, line in drill_lines()[:6]:
            for name, lab in labs.items():
                lab.execute(target.split("(")[0], line)
                same(room, name)
        assert len(room.lab_grades._labs) == 1
    finally:
        room.close()
