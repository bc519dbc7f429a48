"""A class at run time: its file, its directory (one lab file per trainee or team, the record),
and what the trainer and the class verbs ask of them.

One `ClassRoom` per server process. Each lab's store is opened at its first use (created from the
lab's scenario at its first login) and shared by every connection of that lab in this process, as
`serve` shares its one store: the trainees of a team see each other's changes at their next
command, and no store is ever shared between two labs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..lab import Lab
from ..results import Outcome
from .class_file import ClassFile, Member
from .lab_grades import HINT_WEIGHT, TRANSCRIPT_NOTES, LabGrade, LabGrades
from .record import ClassRecord, parse_wall

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from state_store.lab_root.model import RootStore

    from ..grading.results import TranscriptGrade
    from ..grading.runbook import Runbook
    from ..ssh.store import SerializedStore
    from .class_lab import ClassLab

LABS_DIR = "labs"
__all__ = ["HINT_WEIGHT", "LABS_DIR", "ClassRoom", "LabGrade"]


class ClassRoom:
    """A class's labs and record: SQLite files in `directory`, or with `database_url` (a
    PostgreSQL URL) the database every host of the class shares (`directory` then keeps only
    this host's SSH host key). Raises `LabFileError` (one line) when the database cannot be used."""

    def __init__(self, class_file: ClassFile, directory: Path, database_url: str | None = None) -> None:
        self.class_file = class_file
        self.directory = directory
        self.database: Engine | None = None
        self.database_shown = ""
        if database_url is not None:
            from state_store import lab_db

            self.database_shown = lab_db.shown_url(database_url)
            self.database = lab_db.connect(database_url)
            try:
                lab_db.ensure_schema(self.database, self.database_shown, "lab_journal", lab_db.LAB_SCHEMA_VERSION,
                                     lab_db.tables().metadata)
                self.record = ClassRecord(database=self.database, shown=self.database_shown)
            except BaseException:
                self.database.dispose()
                raise
        else:
            (directory / LABS_DIR).mkdir(parents=True, exist_ok=True)
            self.record = ClassRecord.open(directory)
        self._stores: dict[str, SerializedStore] = {}
        self._lock = threading.Lock()
        self._runbook: Runbook | None = None
        self.lab_grades = LabGrades(self)
        self._listeners: list[Callable[[str], None]] = []
        self._messages_seen: dict[tuple[str, str], int] = {}  # (lab, member) -> last message looked for

    # -- change listeners (the trainer's web view follows the class through these) -------------------
    def listen(self, callback: Callable[[str], None]) -> None:
        """Call `callback(lab)` after a line or note of the lab is recorded, from the thread that
        recorded it (a listener hands the name on and returns at once)."""
        self._listeners.append(callback)

    def changed(self, lab: str) -> None:
        for callback in list(self._listeners):
            callback(lab)

    def close(self) -> None:
        self.lab_grades.close()
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()
        self.record.close()
        if self.database is not None:
            self.database.dispose()

    # -- labs ---------------------------------------------------------------------------------------
    def lab_path(self, lab: str) -> Path:
        """A lab's file: `labs/<name>.lab` (names are plain: class_file.NAME_RE)."""
        return self.directory / LABS_DIR / f"{lab}.lab"

    def store(self, lab: str) -> SerializedStore:
        """The lab's store in this process, opened (created from its scenario) at first use."""
        from ..ssh.store import SerializedStore

        if lab not in self.class_file.labs():
            raise KeyError(lab)
        with self._lock:
            store = self._stores.get(lab)
            if store is None and self.database is not None:
                from state_store import lab_db

                opened = lab_db.open_store(SerializedStore, self.database, self.database_shown, lab,
                                           self.class_file.scenario_of(lab))
                store = self._stores[lab] = opened
            if store is None:
                opened = SerializedStore.open(self.lab_path(lab), scenario=self.class_file.scenario_of(lab))
                assert isinstance(opened, SerializedStore)
                try:
                    with opened.holding() as head:  # the lab's write lock: no line is between its two commits
                        self.record.mark_unapplied(lab, head)
                except BaseException:
                    opened.close()
                    raise
                store = self._stores[lab] = opened
            return store

    def scenario_ref(self, lab: str) -> str:
        """The lab's scenario as `lab> reset` takes it: a bundled one's name, else its path (so
        a `reset` in the record replays to the same scenario)."""
        from state_store.scenario_files import ROOT_DIR

        path = self.class_file.scenario_of(lab)
        return path.stem if path.parent == ROOT_DIR.resolve() else str(path)

    def opened(self, lab: str) -> bool:
        if lab in self._stores:
            return True
        if self.database is not None:
            from state_store import lab_db

            return lab_db.DbJournal(self.database, lab, self.database_shown).exists()
        return self.lab_path(lab).exists()

    def trainee_lab(self, member: Member, door: str) -> ClassLab:
        from .class_lab import ClassLab

        return ClassLab(self.store(member.lab), self, member, door)

    def trainer_lab(self, lab: str, trainer: str) -> Lab:
        """The lab with every right, for a trainer's `run` and `reset`; its lines are recorded
        as the trainer's (door `trainer`), so the lab's record replays to its state."""
        from .class_lab import TrainerLab

        return TrainerLab(self.store(lab), self, lab, trainer)

    # -- time ---------------------------------------------------------------------------------------
    def drill_start(self, lab: str) -> datetime | None:
        """When the lab's current drill started: its first line after the last trainer reset."""
        resets = self.record.notes(lab, ("reset",))
        return self._first_line_after(lab, resets[-1].wall if resets else "")

    def _first_line_after(self, lab: str, since: str) -> datetime | None:
        first = self.record.first_wall_after(lab, since)
        return parse_wall(first) if first is not None else None

    def seconds_left(self, lab: str, now: datetime | None = None) -> float | None:
        """Time left in the lab's drill (None: no limit); extensions count. (Asked at every line
        and every tile drawn: two reads of the record.)"""
        minutes = self.class_file.window.drill_minutes
        if minutes is None:
            return None
        now = now or datetime.now(timezone.utc)
        notes = self.record.notes(lab, ("reset", "extend"))
        resets = [n for n in notes if n.kind == "reset"]
        since = resets[-1].wall if resets else ""
        extra = sum(int(n.text) for n in notes if n.kind == "extend" and n.wall > since)
        start = self._first_line_after(lab, since)
        used = (now - start).total_seconds() if start is not None else 0.0
        return (minutes + extra) * 60 - used

    def closed_for(self, member: Member) -> str | None:
        """None while the member may run lines; else why not (one line)."""
        now = datetime.now(timezone.utc)
        outside = self.class_file.window.refusal(now)
        if outside is not None:
            return f"% {outside}"
        left = self.seconds_left(member.lab, now)
        if left is not None and left <= 0:
            return "% the drill's time is up (the trainer can give more: extend)"
        return None

    # -- messages -----------------------------------------------------------------------------------
    def deliver_messages(self, member: Member, last_message: int | None = None) -> list[tuple[str, str]]:
        """The trainer's messages to `member` not shown yet (marked shown now). `last_message`:
        the seq of the lab's last message, when the caller read it with the line's record
        (`ClassRecord.add_line`): the record is then read only when it is beyond the last one
        this process looked for the member (messages are rare; a line is not)."""
        key = (member.lab, member.name)
        if last_message is not None and last_message <= self._messages_seen.get(key, 0):
            return []
        notes = self.record.notes(member.lab, ("message", "delivered"))
        delivered = {int(n.text) for n in notes if n.kind == "delivered" and n.member == member.name}
        waiting = [n for n in notes if n.kind == "message" and n.member == member.name and n.seq not in delivered]
        for note in waiting:
            self.record.add_note(lab=member.lab, member=member.name, by=member.name, kind="delivered",
                                 text=str(note.seq))
        seen = max((n.seq for n in notes if n.kind == "message"), default=0)
        self._messages_seen[key] = max(seen, self._messages_seen.get(key, 0))
        return [(n.by, n.text) for n in waiting]

    # -- grading ------------------------------------------------------------------------------------
    @property
    def runbook(self) -> Runbook:
        if self._runbook is None:
            from ..grading.loader import load_runbook

            self._runbook = load_runbook(self.class_file.runbook)
        return self._runbook

    def transcript(self, lab: str) -> str:
        """The lab's record as a transcript: its lines but those whose change the lab does not
        have (`ClassRecord.mark_unapplied`), so that it replays to the lab."""
        lines = self.record.lines(lab)
        unapplied = self.unapplied(lab)
        if unapplied:
            lines = [line for line in lines if line.seq not in unapplied]
        return self.lab_grades.transcript(lab, lines, self.record.notes(lab, TRANSCRIPT_NOTES))

    def unapplied(self, lab: str) -> set[int]:
        """The seqs of the lab's lines whose change the lab does not have (only lab files have
        such lines: in a shared database a line and its change commit together)."""
        return self.record.unapplied(lab) if self.database is None else set()

    def grade(self, lab: str) -> LabGrade:
        """The lab's grade from its record so far (`LabGrades`: kept up to date line by line)."""
        return self.lab_grades.grade(lab)

    def nothing_done(self, lab: str) -> TranscriptGrade:
        """The grade of a lab where nothing has run yet: every step missing."""
        from ..grading.results import StepResult, TranscriptGrade

        book = self.runbook
        seen = "no line has run on a router or system yet"
        steps = tuple(StepResult(s.id, s.title, "missing", None, "", seen, s.rationale, "") for s in book.steps)
        return TranscriptGrade(lab, book.name, False, 0.0, f"fail at {', '.join(s.id for s in steps)}", steps,
                               tuple(s.id for s in steps), (), ())

    def class_verb(self, lab: ClassLab, verb: str) -> Outcome:
        """`check`: the runbook's steps so far; `hint`: the next step's rationale (counted)."""
        graded = self.grade(lab.lab_name)
        if graded.grade is None:
            return Outcome(f"% cannot check the drill yet: {graded.problem}", False, "", "engine")
        steps = graded.grade.steps
        pending = next((s for s in steps if not s.passed), None)
        if verb == "check":
            width = max((len(s.id) for s in steps), default=0)
            out = [f"runbook {graded.grade.runbook}: {sum(s.passed for s in steps)} of {len(steps)} steps done"]
            out += [f"  {s.id:<{width}}  {s.status}{'  (hint taken)' if s.id in graded.hinted else ''}"
                    for s in steps]
            out.append(f"  next: {pending.id} - {pending.title}" if pending else "  all steps done")
            left = self.seconds_left(lab.lab_name)
            if left is not None:
                out.append(f"  time left: {max(0, int(left)) // 60} min")
            self.record.add_note(lab=lab.lab_name, member=lab.member.name, by=lab.member.name, kind="check")
            return Outcome("\n".join(out), True, "class: check")
        if pending is None:
            return Outcome("all steps done: no hint needed", True, "class: hint")
        self.record.add_note(lab=lab.lab_name, member=lab.member.name, by=lab.member.name, kind="hint",
                             text=pending.id)
        text = (f"next step: {pending.id} - {pending.title}\n  why: {' '.join(pending.rationale.split())}\n"
                f"  (a hint counts: this step scores {HINT_WEIGHT:g} when done)")
        return Outcome(text, True, "class: hint")


def admin_lab(store: RootStore) -> Lab:
    """A lab over `store` with every right: as its first lab administrator (the trainer's)."""
    admins = store.run(lambda engine: [u.name for u in engine.users() if u.lab_admin])
    return Lab(store, user=admins[0]) if admins else Lab(store)
