"""A lab whose lines are watched by a grader: the one way lines reach grading, for transcripts
(replay) and live sessions alike.

Before a router line runs it is parsed at the session's level, as the session will parse it, and
when it names a step of the runbook the lab's facts are read then; the line then runs on the real
`Lab` unchanged. Facts are read only for those lines, so grading costs little beyond the replay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grammar import ParseError

from ..results import Outcome
from ..session import COMMENT, Session
from .facts import LabFacts, read_facts
from .grader import Grader, audit_measures
from .patterns import TypedLine, effective_vpn
from .results import TranscriptGrade

if TYPE_CHECKING:
    from ..lab import Lab

RESET_HANDLER = "lab.reset"
LAB_TARGET = "lab"      # the lab console's target (solace_shell.lab.LAB_TARGET)


class GradedLab:
    """`LabLike` for replay: a real Lab plus a grader. `numbers` gives each executed line its
    transcript line number; without it (a live session's lines) lines are counted."""

    def __init__(self, lab: Lab, grader: Grader, name: str, numbers: list[int] | None = None) -> None:
        self.lab = lab
        self.grader = grader
        self.name = name
        self.numbers = numbers      # the transcript line of each executed line, in order
        self._carries = {m.id: param for m in lab.grammar.modes.values() for key, param in m.carries
                         if key == "vpn"}
        self._reset_nodes = frozenset(c.node for c in lab.grammar.commands if c.handler == RESET_HANDLER)
        self.count = 0
        self.result: TranscriptGrade | None = None
        grader.restart(self.facts())

    def facts(self) -> LabFacts:
        vpn = self.grader.runbook.vpn
        return self.lab.store.run(lambda engine: read_facts(engine, vpn))

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
        if target == LAB_TARGET:
            outcome = self.lab.execute(target, line)
            if outcome.ok and outcome.node in self._reset_nodes:
                self.grader.restart(self.facts(), number)
            return outcome
        found = self.lab.target(target) if target in self.lab.targets() else None
        if not isinstance(found, Session):
            return self.lab.execute(target, line)
        text = f"{found.prompt} {line}".rstrip()
        typed = self._typed(found, line)
        facts = self.facts() if typed is not None and self.grader.wants_facts(typed) else None
        outcome = self.lab.execute(target, line)
        if not line.lstrip(" \t").startswith(COMMENT) and line.strip():
            self.grader.line(number, target, text, typed, facts, outcome.ok, outcome.error_kind)
        return outcome

    def _typed(self, session: Session, line: str) -> TypedLine | None:
        if line.lstrip(" \t").startswith(COMMENT):
            return None
        parsed = self.lab.parser.parse(session.mode, line)
        if parsed is None or isinstance(parsed, ParseError):
            return None
        return TypedLine(parsed.leaf, effective_vpn(parsed.steps, session.context.get("vpn"), self._carries))

    def finish(self, name: str) -> TranscriptGrade:
        """The grade, from the facts and audit of the lab as it is now."""
        vpn = self.grader.runbook.vpn

        def read(engine: object) -> tuple[LabFacts, dict[str, int]]:
            from state_store.engine import Engine
            assert isinstance(engine, Engine)
            return read_facts(engine, vpn), audit_measures(engine.audit(vpn=vpn, limit=0).totals)

        facts, audit = self.lab.store.run(read)
        self.result = self.grader.finish(name, facts, audit)
        return self.result

    def close(self) -> None:
        """Replay closes the lab after its last line: the grade is taken then."""
        try:
            self.finish(self.name)
        finally:
            self.lab.close()
