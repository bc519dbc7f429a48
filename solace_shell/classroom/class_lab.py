"""The lab a trainee works in: their own (or their team's), over its own lab file.

A `ClassLab` is a `Lab` whose user is the trainee (read-write on the routers and HA CLIs, never a
lab administrator), whose lab console is open to them but runs only the class's console verbs
(`class_file.console`), and whose every line is recorded in the class record before its output is
returned (through `Lab.observe`, so every door: shell, exec, `source script`, F2 console). `check`
and `hint` are the class's own console verbs, answered by the room (`room.ClassRoom`).

Nothing a trainee types can name another lab: the lab holds only its own routers and systems, the
console verbs that take a file (`reset SCENARIO`) are refused with an argument (a `reset` the class
allows starts the lab again from the class's own scenario), and the class's
verbs take no name at all.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError

from grammar.masking import MASK
from grammar.parser import Parsed
from state_store.errors import CommitUnknown, LabFileError

from ..access import UserAccess
from ..lab import LAB_TARGET, Lab
from ..line_event import LineEvent
from ..messages import shell_error_text
from ..results import Outcome

if TYPE_CHECKING:
    from state_store.commit_unit import CommitUnit
    from state_store.lab_root.model import RootStore

    from ..personalities.base import LineWatch
    from .class_file import Member
    from .room import ClassRoom

CLASS_VERBS = ("check", "hint")
log = logging.getLogger(__name__)


def verb_refusal(verb: str) -> str:
    return f"% '{verb}' is not open to trainees in this class (ask the trainer)"


class RecordedLab(Lab):
    """A lab of the class whose every line is recorded, in one unit of commit with the lab's
    change (`LabStore.joined`; the record's module docstring says how, per kind of storage).

    When the unit's commit fails the line's answer says so instead of its output: "nothing was
    changed" only when that is known (the database said so, or a lab file's commit failed), else
    that whether it was applied is unknown (the next command reads the lab as it is)."""

    def __init__(self, store: RootStore, room: ClassRoom, lab_name: str, user: str) -> None:
        super().__init__(store, user=user)
        self.room = room
        self.lab_name = lab_name
        self._unit: CommitUnit | None = None
        self._row: dict[str, Any] | None = None  # the line's record row, once written in the unit
        self._line_seq = 0
        self._message_seq: int | None = None  # the lab's last trainer message as of the line (None: not read)
        self.observe(self._record)

    def _row_of(self, event: LineEvent) -> dict[str, Any]:
        """The record's row for the line (`ClassRecord.add_line`'s arguments but the unit)."""
        raise NotImplementedError

    def _record(self, event: LineEvent) -> None:
        """Written before `execute` returns, in the line's unit: what anyone saw is in the record."""
        self._row = self._row_of(event)
        self._line_seq, self._message_seq = self.room.record.add_line(**self._row, unit=self._unit)

    def _run_recorded(self, target: str, line: str, watch: LineWatch | None = None) -> Outcome:
        """`Lab.execute` and its record line as one unit; a failed commit answered in one line."""
        self._row, self._line_seq, self._message_seq = None, 0, None
        try:
            with self.store.joined() as unit:
                self._unit = unit
                outcome = super().execute(target, line, watch)
        except CommitUnknown as unknown:
            log.warning("lab %s: %s", self.lab_name, unknown.problem)
            return Outcome(shell_error_text("lab_unknown", problem=unknown.problem), False, "", "unknown")
        except LabFileError as failed:
            answer = Outcome(shell_error_text("lab_damaged", path=failed.path, problem=failed.problem), False, "",
                             "lab-file")
            self._record_failed(answer)
            return answer
        finally:
            self._unit = None
        return outcome

    def _record_failed(self, answer: Outcome) -> None:
        """The line's record after its unit's commit failed (nothing of it was kept in the lab): in
        a shared database the line is written again, failed, in its own transaction (the first was
        rolled back with the lab's change); in a record file it was committed first, so it is
        marked unapplied. A record that cannot be written now is left so (the answer says what
        happened)."""
        if self._row is None:
            return
        record = self.room.record
        try:
            if record.shared:
                record.add_line(**{**self._row, "ok": False, "error_kind": answer.error_kind,
                                   "output": answer.text})
            elif self._line_seq:
                record.add_note(lab=self.lab_name, member=str(self._row["member"]), by="-", kind="unapplied",
                                text=str(self._line_seq))
        except SQLAlchemyError:
            log.warning("lab %s: the record of a line whose commit failed could not be written", self.lab_name)


class TrainerLab(RecordedLab):
    """A trainer's way into a trainee's lab (`run`, `reset`): every right, lines recorded as the
    trainer's (door `trainer`), so the lab's record replays to its state."""

    def __init__(self, store: RootStore, room: ClassRoom, lab_name: str, trainer: str) -> None:
        admins = store.run(lambda engine: [u.name for u in engine.users() if u.lab_admin])
        super().__init__(store, room, lab_name, admins[0] if admins else "admin")
        self.trainer = trainer

    def execute(self, target: str, line: str, watch: LineWatch | None = None) -> Outcome:
        try:
            return self._run_recorded(target, line, watch)
        finally:
            self.room.changed(self.lab_name)

    def _row_of(self, event: LineEvent) -> dict[str, Any]:
        return {"lab": self.lab_name, "member": self.trainer, "door": "trainer", "clock_ms": event.clock_ms,
                "target": event.target, "prompt": f"{LAB_TARGET}>", "line": event.line, "ok": event.outcome.ok,
                "error_kind": event.outcome.error_kind, "output": event.outcome.text}


class ClassLab(RecordedLab):
    """One trainee's connection to their class lab (one per SSH channel, as `serve` makes a Lab)."""

    def __init__(self, store: RootStore, room: ClassRoom, member: Member, door: str) -> None:
        super().__init__(store, room, member.lab, trainee_user(store))
        with_trainee_rights(self, member.name)
        self.member = member
        self.door = door
        self._prompt_before = ""
        self._secrets: list[str] = []
        self.last_active = time.monotonic()  # when the last line was typed (the idle timeout)

    def console_refusal(self) -> str | None:
        return None  # the console is the trainee's own; `execute` lets only the class's verbs through

    def execute(self, target: str, line: str, watch: LineWatch | None = None) -> Outcome:
        """The line run and recorded; when the record cannot be read or written, one line saying
        so (the line's change to the lab, if any, is then not kept either: they are one unit).
        The room hears of the change either way (the class view's live tiles)."""
        try:
            return self._execute(target, line, watch)
        except SQLAlchemyError as exc:
            from state_store.lab_db import one_line

            return Outcome(f"% the class record cannot be used: {one_line(exc)}; nothing was changed", False, "",
                           "record")
        finally:
            self.room.changed(self.lab_name)

    def _execute(self, target: str, line: str, watch: LineWatch | None) -> Outcome:
        self.last_active = time.monotonic()
        if target == LAB_TARGET:
            answered = self._console_gate(line)
            if answered is None and _is_reset(self, line):
                line = f"reset {self.room.scenario_ref(self.lab_name)}"  # the class's, and replays so
        else:
            closed = self.room.closed_for(self.member)
            answered = None if closed is None else Outcome(closed, False, "", "access")
        if answered is not None:  # refused, or a class verb's answer: not a lab line
            self._message_seq = None
            if answered.error_kind == "access":  # a refusal is a note (replaying it as a line would run it)
                shown = self.target(target).masked(line) if target in self.targets() else line
                self.room.record.add_note(lab=self.lab_name, member=self.member.name, by=self.member.name,
                                          kind="refused", text=f"{target}: {shown}"[:1024])
            return self._with_messages(answered)
        self._prompt_before, self._secrets = target, []
        if target in self.targets():
            self._prompt_before = self.prompt(target)
            self._secrets = _secrets_of(line, self.target(target).masked(line))
        return self._with_messages(self._run_recorded(target, line, watch))

    def _console_gate(self, line: str) -> Outcome | None:
        """None when the line may run on the console; else the Outcome that refuses it (or the
        answer of `check`/`hint`)."""
        words = line.split()
        if not words:
            return None
        if words[0] in CLASS_VERBS:
            if words[0] not in self.room.class_file.console:
                return Outcome(verb_refusal(words[0]), False, "", "access")
            if len(words) > 1:
                return Outcome(f"% '{words[0]}' takes no argument", False, "", "invalid")
            return self.room.class_verb(self, words[0])
        parsed = self.parser.parse("lab", line)
        if not isinstance(parsed, Parsed):
            return None  # the console says what is wrong with it; it cannot run
        verb = parsed.leaf.command.syntax.split()[0]
        if verb not in self.room.class_file.console:
            return Outcome(verb_refusal(verb), False, parsed.leaf.command.node, "access")
        if verb == "reset" and parsed.leaf.args.get("scenario") is not None:
            return Outcome("% in a class, 'reset' starts the lab again from the class's scenario; it takes "
                           "no scenario", False, parsed.leaf.command.node, "access")
        if verb != "exit" and verb != "help" and verb != "connect":
            closed = self.room.closed_for(self.member)
            if closed is not None:
                return Outcome(closed, False, parsed.leaf.command.node, "access")
        return None

    def _with_messages(self, outcome: Outcome) -> Outcome:
        """The trainer's messages waiting for the member, after the line's answer (a record that
        cannot be read now leaves them waiting: the line itself was committed)."""
        try:
            messages = self.room.deliver_messages(self.member, self._message_seq)
        except SQLAlchemyError:
            log.warning("lab %s: the trainer's messages could not be read", self.lab_name)
            return outcome
        if not messages:
            return outcome
        shown = "\n".join(f"*** Message from {by}: {text}" for by, text in messages)
        return outcome._replace(text=f"{outcome.text}\n{shown}" if outcome.text else shown)

    def _row_of(self, event: LineEvent) -> dict[str, Any]:
        output = event.outcome.text
        if self._secrets:
            from ..transcript.record import mask_secrets

            output = mask_secrets(output, self._secrets)
        return {"lab": self.lab_name, "member": self.member.name, "door": self.door, "clock_ms": event.clock_ms,
                "target": event.target, "prompt": self._prompt_before, "line": event.line, "ok": event.outcome.ok,
                "error_kind": event.outcome.error_kind, "output": output}


def trainee_user(store: RootStore) -> str:
    """The scenario's CLI user a trainee's lab is built on (`with_trainee_rights` then makes its
    rights the trainee's)."""
    users = store.run(lambda engine: [u.name for u in engine.users()])
    if not users:
        raise ValueError("the class scenario has no CLI user to build a trainee's lab on")
    return str(users[0])


def with_trainee_rights(lab: Lab, name: str) -> Lab:
    """`lab` acting as trainee `name`: read-write on the routers and HA CLIs, never a lab
    administrator."""
    lab.user = UserAccess(name, "read-write")
    lab.lab_admin = False
    return lab


def _is_reset(lab: Lab, line: str) -> bool:
    parsed = lab.parser.parse("lab", line)
    return isinstance(parsed, Parsed) and parsed.leaf.command.syntax.split()[0] == "reset"


def _secrets_of(line: str, masked: str) -> list[str]:
    """The words of `line` its mask hides (a password), by the grammar's masking and the
    recorder's keyword rule, so that an output echoing them (an error's caret line) hides them too."""
    from ..transcript.record import redact_secrets

    secrets = set(redact_secrets(line)[1])
    raw, hidden = line.split(), masked.split()
    if len(raw) == len(hidden):
        secrets.update(word for word, shown in zip(raw, hidden, strict=True) if shown == MASK and word != MASK)
    return sorted(secrets, key=len, reverse=True)
