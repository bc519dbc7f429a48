"""A lab whose lines are watched by a grader: the one way lines reach grading, for transcripts
(replay) and live sessions alike.

A line runs on the real `Lab` unchanged, watched (`personalities.base.LineWatch`): grading sees
it as its CLI read it, once (`Reading.command`: the grammar at a router's level, the lab
console's, or a system CLI's own reading of its words), and when it names a step of the runbook
the lab's facts are read inside the line's own store command, before its handler runs. Facts are
read only for those lines, so grading costs little beyond the replay. A line of the lab console
or of a system's CLI acts on the kernel nodes and groups its arguments name or its CLI resolved
it to (a broker addressed, a server named), and on the router its CLI talks to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..parsed_command import ParsedCommand
from ..personalities.base import LineWatch, Personality, Reading
from ..results import Outcome
from ..router_cli import router_cli
from ..session import COMMENT, Session
from .facts import LabFacts, read_facts
from .grader import Grader
from .results import TranscriptGrade
from .vocabulary import ROUTER_SYSTEM, audit_measures

if TYPE_CHECKING:
    from state_store.lab_root.engine import RootEngine as Engine

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
        return self.lab.store.run(self.facts_in)

    def facts_in(self, engine: Any) -> LabFacts:
        """The facts grading needs, read on `engine` (inside a store command)."""
        runbook = self.grader.runbook
        audit = self.audit_reader() if runbook.outcome_from == "begin" else None
        return read_facts(engine, runbook.vpn, audit)

    def audit_reader(self) -> Callable[[Engine], dict[str, int]]:
        """How the runbook's outcome is measured: the Message VPN's audit for router runbooks,
        the HA kernel's for a system on the kernel."""
        runbook = self.grader.runbook
        if runbook.system == ROUTER_SYSTEM:
            return lambda engine: audit_measures(router_cli(engine).audit(vpn=runbook.vpn, limit=0).totals,
                                                 runbook.system)
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
        comment = line.lstrip(" \t").startswith(COMMENT)
        watch = _LineWatch(self, found, router_line, comment)
        outcome, reset = self._run(target, line, number, watch)
        if reset:
            return outcome
        if not comment and line.strip():
            self.grader.line(number, target, text, watch.typed, watch.facts, outcome.ok, outcome.error_kind,
                             watch.subjects)
        return outcome

    def _run(self, target: str, line: str, number: int, watch: LineWatch | None = None) -> tuple[Outcome, bool]:
        """Run the line; after a `lab> reset` grading starts again (True: it was one)."""
        outcome = self.lab.execute(target, line, watch)
        reset = target == LAB_TARGET and outcome.ok and outcome.node in self._reset_nodes
        if reset:
            self.grader.restart(self.facts(), number)
        return outcome, reset

    @staticmethod
    def subjects_of(found: Personality, typed: ParsedCommand | None, resolved: tuple[str, ...],
                    facts: LabFacts) -> tuple[str, ...]:
        """The kernel nodes and groups a console or system CLI line names or its CLI resolved it
        to act on (`resolved`), and its CLI's router, as the facts know them."""
        known = {n.ref for n in facts.nodes} | {g.name for g in facts.groups}
        values: list[Any] = [*typed.args.values(), *typed.subjects, *resolved] if typed is not None else []
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


class _LineWatch:
    """What grading watches of one line (`LineWatch`): its reading (`typed`: None for a comment,
    a blank line or a line its CLI refused), and, when it names a step or a forbidden action of
    the runbook, the lab's facts before it runs (`facts`) and what it acts on (`subjects`: None
    for a router line, which acts on its router)."""

    def __init__(self, graded: GradedLab, found: Personality, router_line: bool, comment: bool) -> None:
        self.graded = graded
        self.found = found
        self.router_line = router_line
        self.comment = comment
        self.typed: ParsedCommand | None = None
        self.facts: LabFacts | None = None
        self.subjects: tuple[str, ...] | None = None if router_line else ()

    def wants(self, reading: Reading) -> bool:
        if self.comment:
            return False
        self.typed = reading.command
        return self.typed is not None and self.graded.grader.wants_facts(self.typed)

    def look(self, engine: Any, subjects: tuple[str, ...]) -> None:
        self.facts = facts = self.graded.facts_in(engine)
        if not self.router_line:
            self.subjects = self.graded.subjects_of(self.found, self.typed, subjects, facts)
