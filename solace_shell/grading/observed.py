"""A lab whose lines are watched by a grader: the one way lines reach grading, for transcripts
(replay) and live sessions alike.

Before a line runs it is read as its session's CLI reads it (`Personality.parsed_command`: the
grammar at a router's level, the lab console's, or a system CLI's own reading of its words), and
when it names a step of the runbook the lab's facts are read then; the line then runs on the real
`Lab` unchanged. Facts are read only for those lines, so grading costs little beyond the replay.
A line of the lab console or of a system's CLI acts on the kernel nodes and groups its arguments
name or its CLI resolved it to (a broker addressed, a server named), and on the router its CLI
talks to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..parsed_command import ParsedCommand
from ..personalities.base import Personality
from ..results import Outcome
from ..session import COMMENT, Session
from .facts import LabFacts, read_facts
from .grader import Grader
from .results import TranscriptGrade
from .vocabulary import ROUTER_SYSTEM, audit_measures

if TYPE_CHECKING:
    from state_store.solace.engine import Engine

    from ..lab import Lab

RESET_HANDLER = "lab.reset"
LAB_TARGET = "lab"      # the lab console's target (solace_shell.lab.LAB_TARGET)


class GradedLab:
    """`LabLike` for replay: a real Lab plus a grader. `numbers` gives each executed line its
    transcript line number; without it (a live session's lines) lines are counted."""

    def __init__(self, lab: Lab, grader: Grader, name: str, numbers: list[int] | None = None,
                 keep_open: bool = False) -> None:
        """With `keep_open`, `close` (the end of a replay) takes the grade and leaves the lab open
        for more lines (`execute`, then `finish` again); its owner closes `lab`."""
        self.lab = lab
        self.keep_open = keep_open
        self.hosts = frozenset(lab.targets())  # the lab's as it was built: how its transcript reads
        self.grader = grader
        self.name = name
        self.numbers = numbers      # the transcript line of each executed line, in order
        self._reset_nodes = frozenset(c.node for c in lab.grammar.commands if c.handler == RESET_HANDLER)
        self.count = 0
        self.result: TranscriptGrade | None = None
        grader.restart(self.facts())

    def facts(self) -> LabFacts:
        runbook = self.grader.runbook
        audit = self.audit_reader() if runbook.outcome_from == "begin" else None
        return self.lab.store.run(lambda engine: read_facts(engine, runbook.vpn, audit))

    def audit_reader(self) -> Callable[[Engine], dict[str, int]]:
        """How the runbook's outcome is measured: the Message VPN's audit for router runbooks,
        the HA kernel's for a system on the kernel."""
        runbook = self.grader.runbook
        if runbook.system == ROUTER_SYSTEM:
            return lambda engine: audit_measures(engine.audit(vpn=runbook.vpn, limit=0).totals, runbook.system)
        return lambda engine: audit_measures(engine.kernel().audit()[0], runbook.system)

    # -- LabLike -------------------------------------------------------------------------------
    def targets(self) -> list[str]:
        return self.lab.targets()

    def prompt(self, target: str) -> str:
        return self.lab.prompt(target)

    def execute(self, target: str, line: str, number: int | None = None) -> Outcome:
        self.count += 1
        if number is None:
            numbers = self.numbers
            number = numbers[self.count - 1] if numbers is not None and self.count <= len(numbers) else self.count
        found = self.lab.target(target) if target in self.lab.targets() else None
        if not isinstance(found, Personality):
            return self.lab.execute(target, line)
        router_line = isinstance(found, Session) and target != LAB_TARGET
        if not router_line and not self.grader.runbook.console:
            # the lab console drives a router drill: its lines are the harness, not the procedure
            return self._run(target, line, number)[0]
        text = f"{self.lab.prompt(target)} {line}".rstrip()
        typed = self._typed(found, line)
        facts = self.facts() if typed is not None and self.grader.wants_facts(typed) else None
        subjects = None if router_line else self._subjects(found, typed, facts)
        outcome, reset = self._run(target, line, number)
        if reset:
            return outcome
        if not line.lstrip(" \t").startswith(COMMENT) and line.strip():
            self.grader.line(number, target, text, typed, facts, outcome.ok, outcome.error_kind, subjects)
        return outcome

    def _run(self, target: str, line: str, number: int) -> tuple[Outcome, bool]:
        """Run the line; after a `lab> reset` grading starts again (True: it was one)."""
        outcome = self.lab.execute(target, line)
        reset = target == LAB_TARGET and outcome.ok and outcome.node in self._reset_nodes
        if reset:
            self.grader.restart(self.facts(), number)
        return outcome, reset

    @staticmethod
    def _typed(found: Personality, line: str) -> ParsedCommand | None:
        """The line as its CLI reads it (the personality's own reading: the grammar's, or its own)."""
        if line.lstrip(" \t").startswith(COMMENT):
            return None
        return found.parsed_command(line)

    @staticmethod
    def _subjects(found: Personality, typed: ParsedCommand | None, facts: LabFacts | None) -> tuple[str, ...]:
        """The kernel nodes and groups a console or system CLI line names or its CLI resolved it
        to act on, and its CLI's router."""
        if facts is None:
            return ()
        known = {n.ref for n in facts.nodes} | {g.name for g in facts.groups}
        values: list[Any] = [*typed.args.values(), *typed.subjects] if typed is not None else []
        if found.router is not None:
            values.append(found.router)
        return tuple(dict.fromkeys(str(v) for v in values if isinstance(v, str) and v in known))

    def finish(self, name: str) -> TranscriptGrade:
        """The grade, from the facts and audit of the lab as it is now."""
        vpn = self.grader.runbook.vpn
        reader = self.audit_reader()

        def read(engine: Engine) -> tuple[LabFacts, dict[str, int]]:
            return read_facts(engine, vpn), reader(engine)

        facts, audit = self.lab.store.run(read)
        self.result = self.grader.finish(name, facts, audit)
        return self.result

    def close(self) -> None:
        """Replay closes the lab after its last line: the grade is taken then."""
        try:
            self.finish(self.name)
        finally:
            if not self.keep_open:
                self.lab.close()
