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

import time
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from grammar.masking import MASK
from grammar.parser import Parsed

from ..access import UserAccess
from ..lab import LAB_TARGET, Lab
from ..line_event import LineEvent
from ..results import Outcome

if TYPE_CHECKING:
    from state_store.solace.lab import RootStore

    from .class_file import Member
    from .room import ClassRoom

CLASS_VERBS = ("check", "hint")


def verb_refusal(verb: str) -> str:
    return f"% '{verb}' is not open to trainees in this class (ask the trainer)"


class ClassLab(Lab):
    """One trainee's connection to their class lab (one per SSH channel, as `serve` makes a Lab)."""

    def __init__(self, store: RootStore, room: ClassRoom, member: Member, door: str) -> None:
        super().__init__(store, user=trainee_user(store))
        with_trainee_rights(self, member.name)
        self.room = room
        self.member = member
        self.door = door
        self.lab_name = member.lab
        self._prompt_before = ""
        self._secrets: list[str] = []
        self.last_active = time.monotonic()  # when the last line was typed (the idle timeout)
        self.observe(self._record)

    def console_refusal(self) -> str | None:
        return None  # the console is the trainee's own; `execute` lets only the class's verbs through

    def execute(self, target: str, line: str) -> Outcome:
        """The line run and recorded; when the record (a shared database) cannot be read or
        written, one line saying so (a lab line that ran is then not in the record). The room hears
        of the change either way (the class view's live tiles)."""
        try:
            return self._execute(target, line)
        except SQLAlchemyError as exc:
            from state_store.lab_db import one_line

            return Outcome(f"% the class record cannot be used: {one_line(exc)}", False, "", "record")
        finally:
            self.room.changed(self.lab_name)

    def _execute(self, target: str, line: str) -> Outcome:
        self.last_active = time.monotonic()
        if target == LAB_TARGET:
            answered = self._console_gate(line)
            if answered is None and _is_reset(self, line):
                line = f"reset {self.room.scenario_ref(self.lab_name)}"  # the class's, and replays so
        else:
            closed = self.room.closed_for(self.member)
            answered = None if closed is None else Outcome(closed, False, "", "access")
        if answered is not None:  # refused, or a class verb's answer: not a lab line
            if answered.error_kind == "access":  # a refusal is a note (replaying it as a line would run it)
                shown = self.target(target).masked(line) if target in self.targets() else line
                self.room.record.add_note(lab=self.lab_name, member=self.member.name, by=self.member.name,
                                          kind="refused", text=f"{target}: {shown}"[:1024])
            return self._with_messages(answered)
        self._prompt_before, self._secrets = target, []
        if target in self.targets():
            self._prompt_before = self.prompt(target)
            self._secrets = _secrets_of(line, self.target(target).masked(line))
        return self._with_messages(super().execute(target, line))

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
        messages = self.room.deliver_messages(self.member)
        if not messages:
            return outcome
        shown = "\n".join(f"*** Message from {by}: {text}" for by, text in messages)
        return outcome._replace(text=f"{outcome.text}\n{shown}" if outcome.text else shown)

    def _record(self, event: LineEvent) -> None:
        """Committed before `execute` returns: what a trainee saw is in the record."""
        output = event.outcome.text
        if self._secrets:
            from ..transcript.record import mask_secrets

            output = mask_secrets(output, self._secrets)
        self.room.record.add_line(lab=self.lab_name, member=self.member.name, door=self.door,
                                  clock_ms=event.clock_ms, target=event.target, prompt=self._prompt_before,
                                  line=event.line, ok=event.outcome.ok, error_kind=event.outcome.error_kind,
                                  output=output)


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
