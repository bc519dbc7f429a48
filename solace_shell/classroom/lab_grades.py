"""Each lab's grade from its class record, kept up to date line by line.

Contract: `LabGrades.grade(lab)` is the grade of the lab's record as it is when called: the grade of
its transcript (`ClassRoom.transcript`, graded by `grade_text`), with the hints taken. Why it is
kept rather than made again: the class view shows every lab's progress after each of its lines,
and grading the whole record again (a replay of every line on a fresh lab) made a class of a
hundred cost more the longer it ran. So each lab keeps its replayed lab and grader
(`GrowingTranscript`) and the record position they reached; a call reads only the lines and notes
recorded since, and runs only the new lines. A lab whose record did not change is not graded
again. When the new rows do not come after the ones already read in the transcript's order (two
writers' clocks a millisecond apart), or the addition cannot be read on its own, the lab is graded
from its whole record, as before.

Thread-safe: one lock per lab (a trainee's `check`, the trainer's page and the live tiles may ask
at once); at most `MAX_FOLLOWED` labs keep their replay (the least recently graded is let go and
replayed whole at its next change).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..lab import LAB_TARGET
from .record import Note, RecordedLine, now_text, transcript_body, transcript_of

if TYPE_CHECKING:
    from ..grading.growing import GrowingTranscript
    from ..grading.results import TranscriptGrade
    from .room import ClassRoom

HINT_WEIGHT = 0.5  # a step done after its hint counts this much
TRANSCRIPT_NOTES = ("login", "reset", "extend", "message", "hint", "run")  # the notes a transcript shows
MAX_FOLLOWED = 1000  # labs whose replay is kept (a class file holds at most 1000 members)

Order = tuple[str, int, int]  # where a row sorts in the transcript: wall, notes before lines, seq


@dataclass(frozen=True)
class LabGrade:
    """A lab's grade from its record so far (None with `problem` when it cannot be graded), and
    the record's last line and hint it was made from (what a tile shows besides the grade)."""

    lab: str
    lines: int
    grade: TranscriptGrade | None
    hinted: frozenset[str]
    problem: str = ""
    last_line: RecordedLine | None = None
    last_hint: Note | None = None

    def step_score(self, step_id: str, passed: bool) -> float:
        if not passed:
            return 0.0
        return HINT_WEIGHT if step_id in self.hinted else 1.0

    @property
    def score(self) -> float:
        if self.grade is None or not self.grade.steps:
            return 0.0
        steps = [s for s in self.grade.steps if s.status != "not-applicable"]
        if not steps:
            return 1.0
        return sum(self.step_score(s.id, s.passed) for s in steps) / len(steps)


def _order(row: RecordedLine | Note) -> Order:
    """`transcript_of`'s order: by wall time, a note before a line of the same time, then seq."""
    return (row.wall, 0 if isinstance(row, Note) else 1, row.seq)


@dataclass
class _Followed:
    """What a lab's grade was made of: the record read up to `line_seq` and `note_seq`."""

    line_seq: int = 0
    note_seq: int = 0
    last: Order = ("", 0, 0)
    lines: int = 0
    on_routers: bool = False       # a line ran elsewhere than on the lab console
    hinted: set[str] = field(default_factory=set)
    unapplied: set[int] = field(default_factory=set)  # lines the transcript leaves out
    last_line: RecordedLine | None = None
    last_hint: Note | None = None
    follower: GrowingTranscript | None = None
    grade: LabGrade | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
            self.follower = None

    def reset(self) -> None:
        """As new: nothing of the record read."""
        self.close()
        self.line_seq = self.note_seq = self.lines = 0
        self.last = ("", 0, 0)
        self.on_routers = False
        self.hinted = set()
        self.unapplied = set()
        self.last_line = self.last_hint = None
        self.grade = None


class LabGrades:
    def __init__(self, room: ClassRoom, max_followed: int = MAX_FOLLOWED) -> None:
        self.room = room
        self.max_followed = max_followed
        self._labs: OrderedDict[str, _Followed] = OrderedDict()
        self._lock = threading.Lock()

    def title(self, lab: str) -> str:
        members = ", ".join(m.name for m in self.room.class_file.members_of(lab))
        return f"class record of lab {lab} ({members}), exported {now_text()}"

    def transcript(self, lab: str, lines: list[RecordedLine], notes: list[Note]) -> str:
        return transcript_of(lines, self.room.class_file.scenario_of(lab), self.title(lab), notes)

    def grade(self, lab: str) -> LabGrade:
        """The lab's grade from its record as it is now."""
        with self._lock:
            state = self._labs.get(lab)
            if state is None:
                state = self._labs[lab] = _Followed()
            self._labs.move_to_end(lab)
        with state.lock:
            found = self._update(lab, state)
        self._let_go()
        return found

    def whole(self, lab: str) -> LabGrade:
        """The lab's grade made from its whole record now, nothing kept or reused: what `grade`
        equals (the reference its tests compare with)."""
        from ..grading.results import GradeError
        from ..grading.transcript import grade_text

        lines, notes = self.room.record.lines(lab), self.room.record.notes(lab, TRANSCRIPT_NOTES)
        unapplied = self.room.unapplied(lab)
        lines = [line for line in lines if line.seq not in unapplied] if unapplied else lines
        hints = [n for n in notes if n.kind == "hint"]
        last = (lines[-1] if lines else None, hints[-1] if hints else None)
        hinted = frozenset(n.text for n in hints)
        if all(line.target == LAB_TARGET for line in lines):
            return LabGrade(lab, len(lines), self.room.nothing_done(lab), hinted, "", *last)
        try:
            grade = grade_text(self.room.runbook, self.transcript(lab, lines, notes), lab)
            return LabGrade(lab, len(lines), grade, hinted, "", *last)
        except GradeError as exc:
            return LabGrade(lab, len(lines), None, hinted, exc.error, *last)

    def forget(self, lab: str) -> None:
        """Grade the lab from its whole record at its next `grade`."""
        with self._lock:
            state = self._labs.pop(lab, None)
        if state is not None:
            with state.lock:
                state.close()

    def close(self) -> None:
        for lab in list(self._labs):
            self.forget(lab)

    def _let_go(self) -> None:
        if len(self._labs) <= self.max_followed:
            return
        with self._lock:
            extra = list(self._labs)[:max(0, len(self._labs) - self.max_followed)]
        for lab in extra:
            self.forget(lab)

    def _update(self, lab: str, state: _Followed) -> LabGrade:
        record = self.room.record
        # a lab file's record may mark a line `unapplied` later (ClassRecord.mark_unapplied): the
        # transcript leaves it out, so a mark of a line already graded grades the whole record again
        kinds = TRANSCRIPT_NOTES if self.room.database is not None else (*TRANSCRIPT_NOTES, "unapplied")
        lines = record.lines(lab, state.line_seq)
        notes = record.notes(lab, kinds, state.note_seq)
        marked = {int(n.text) for n in notes if n.kind == "unapplied" and n.text.isdigit()}
        if state.grade is not None:
            if not lines and not notes:
                return state.grade
            rows: list[RecordedLine | Note] = [*lines, *notes]
            stale = min(map(_order, rows)) <= state.last  # the transcript changed, not only grew
            stale = stale or any(seq <= state.line_seq for seq in marked)
            start = state.follower is None and (state.on_routers or any(r.target != LAB_TARGET for r in lines))
            if stale or start:  # graded from the whole record (and followed from there)
                state.reset()
                lines, notes = record.lines(lab), record.notes(lab, kinds)
                marked = {int(n.text) for n in notes if n.kind == "unapplied" and n.text.isdigit()}
        whole = state.grade is None
        if lines:
            state.line_seq, state.last_line = lines[-1].seq, lines[-1]
        if notes:
            state.note_seq = notes[-1].seq
        state.unapplied |= marked
        if state.unapplied:
            lines = [line for line in lines if line.seq not in state.unapplied]
        notes = [n for n in notes if n.kind != "unapplied"]
        state.last_hint = next((n for n in reversed(notes) if n.kind == "hint"), state.last_hint)
        state.last = max([state.last, *map(_order, lines), *map(_order, notes)])
        state.lines += len(lines)
        state.on_routers = state.on_routers or any(line.target != LAB_TARGET for line in lines)
        state.hinted.update(n.text for n in notes if n.kind == "hint")
        if not state.on_routers:  # no step can have been done yet
            graded: tuple[TranscriptGrade | None, str] = (self.room.nothing_done(lab), "")
        elif whole:
            graded = self._started(lab, state, self.transcript(lab, lines, notes))
        else:
            found = self._extended(lab, state, "\n".join(transcript_body(lines, notes)) + "\n")
            if found is None:  # graded whole now, and from the whole record at its next change
                state.grade = self.whole(lab)
                return state.grade
            graded = found
        state.grade = LabGrade(lab, state.lines, graded[0], frozenset(state.hinted), graded[1], state.last_line,
                               state.last_hint)
        return state.grade

    def _started(self, lab: str, state: _Followed, text: str) -> tuple[TranscriptGrade | None, str]:
        from ..grading.growing import GrowingTranscript
        from ..grading.results import GradeError

        state.close()
        try:
            state.follower = GrowingTranscript(self.room.runbook, text, lab)
            return state.follower.grade(), ""
        except GradeError as exc:
            return None, exc.error

    def _extended(self, lab: str, state: _Followed, added: str) -> tuple[TranscriptGrade | None, str] | None:
        """The grade after `added`; None when it cannot be followed (the replay is let go)."""
        from ..grading.growing import Unfollowable
        from ..grading.results import GradeError

        assert state.follower is not None
        try:
            state.follower.extend(added)
            return state.follower.grade(), ""
        except GradeError as exc:
            return None, exc.error
        except Unfollowable:
            state.close()
            return None
