"""Following a runbook as a session's lines run: each step's status, decided on live state.

The grader is told about every line just before it runs (with the facts of that moment when the
line is one a step or forbidden action names) and whether it succeeded; `finish` adds the facts
and audit of the moment it is called and leaves the grader as it was, so a session that goes on
is graded again after its next lines (the class view's tiles) without replaying the lines before.
Steps are ordered: a step performed while an earlier one is still to do passes that one by (it
becomes `missing`, or `out-of-order` if done later); a step whose `when` does not hold when it is
passed by does not apply. An action's first attempt counts; a check may be made good by a later,
correct attempt.
"""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass, field, replace

from ..parsed_command import ParsedCommand
from .facts import LabFacts
from .patterns import matches
from .results import OUTCOME_ID, Status, StepResult, TranscriptGrade
from .runbook import Check, ForbiddenAction, Runbook, RunbookStep
from .vocabulary import AT_BEGIN, LEFTOVER, ROLE_SOURCES, check_holds

PENDING = "pending"


@dataclass
class _StepState:
    status: str = PENDING
    index: int | None = None        # the session line (0-based) that decided it
    reason: str = ""
    final: bool = False             # nothing later changes it
    passed_by: bool = False         # a later step was done while this one was still to do
    covered: set[str] = field(default_factory=set)   # routers an `every` step ran on so far


@dataclass(frozen=True)
class SessionLine:
    """A line of the session as the grader reports it."""

    number: int                     # transcript line, or position in a live session
    text: str                       # prompt and command


class Grader:
    def __init__(self, runbook: Runbook) -> None:
        self.runbook = runbook
        self.lines: list[SessionLine] = []
        self.notes: list[str] = []
        self.router_lines = 0
        self._start(None)

    # -- session events ----------------------------------------------------------------------
    def restart(self, facts: LabFacts, number: int | None = None) -> None:
        """The lab starts (again, after `lab> reset`): roles are read from `facts`."""
        if number is not None:
            self.notes.append(f"line {number}: the lab was reset; the steps are graded from there")
        self._start(facts)

    def _start(self, facts: LabFacts | None) -> None:
        self.start_facts = facts
        self.begin_facts: LabFacts | None = facts if not self.runbook.begin else None
        # a kernel node's group, so that a step on a group is done by a line on one of its nodes
        self._group_of = {n.ref: n.group for n in facts.nodes} if facts is not None else {}
        self.states = {step.id: _StepState() for step in self.runbook.steps}
        self.forbidden_taken: dict[str, tuple[int, str]] = {}
        self._typo: dict[str, int] = {}     # target -> index of its last unparsable line
        self.begun = not self.runbook.begin

    def wants_facts(self, typed: ParsedCommand) -> bool:
        """Whether the line names a step or forbidden action (then the facts before it are needed)."""
        return (any(matches(p, typed) for step in self.runbook.steps for p in step.commands)
                or any(matches(p, typed) for forbidden in self.runbook.forbidden for p in forbidden.commands))

    def line(self, number: int, target: str, text: str, typed: ParsedCommand | None, facts: LabFacts | None,
             ok: bool, error_kind: str | None, subjects: tuple[str, ...] | None = None) -> None:
        """One line, after it ran: `typed` None when it did not parse, `facts` from before it.
        `subjects` are the routers, kernel nodes or groups it acts on (None: a router line, on
        its router `target`; a line of the lab console or of an HA system's CLI acts on what it
        names)."""
        index = len(self.lines)
        self.lines.append(SessionLine(number, text))
        router_line = subjects is None
        if subjects is None:
            self.router_lines += 1
            subjects = (target,)
        typo = self._typo.pop(target, None)
        if typo is not None:
            fixed = f"corrected by line {number}" if ok else "not corrected"
            self.notes.append(f"line {self.lines[typo].number}: typo ({fixed}), not graded: {self.lines[typo].text}")
        if typed is None:
            if error_kind in ("invalid", "ambiguous", "incomplete", "invalid-value"):
                self._typo[target] = index
            return
        if facts is None:
            return
        if not self.begun:
            if not all(self.holds(c, facts) for c in self.runbook.begin):
                return
            self.begun = True
            self.begin_facts = facts
            self.notes.append(f"line {number}: the procedure begins here ("
                              + ", ".join(self.describe(c) for c in self.runbook.begin) + ")")
        for forbidden in self.runbook.forbidden:
            if ok and forbidden.id not in self.forbidden_taken and self._forbidden(forbidden, subjects, typed, facts):
                self.forbidden_taken[forbidden.id] = (index, f"ran on {', '.join(subjects) or target}")
        candidates = [s for s in self.runbook.steps
                      if not self.states[s.id].final and any(matches(p, typed) for p in s.commands)
                      and not (s.others_ignored and not self._on(s.on, subjects))]
        if not candidates:
            return
        if not ok:
            by = "the router" if router_line else "the lab"
            self.notes.append(f"line {number}: refused by {by} ({error_kind}), not counted for step "
                              f"{candidates[0].id}: {text}")
            return
        # the same command may serve two steps (a look before and after): a check already passed by
        # a later step gives way to a step still in order
        step = next((s for s in candidates if not self.states[s.id].passed_by), candidates[0])
        self._attempt(step, index, target, subjects, facts)

    # -- deciding a step ---------------------------------------------------------------------
    def routers(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The routers, kernel nodes and groups that `names` (roles or their own names) stand for."""
        roles = dict(self.runbook.roles)
        out: list[str] = []
        for name in names:
            if name in roles:
                source = ROLE_SOURCES[roles[name]]
                facts = self.begin_facts if source.name.endswith(AT_BEGIN) else self.start_facts
                if facts is not None:
                    out += source.pick(facts, self.runbook.vpn)
            else:
                out.append(name)
        return tuple(dict.fromkeys(out))

    def _on(self, names: tuple[str, ...], subjects: tuple[str, ...]) -> bool:
        """Whether a line acting on `subjects` runs where `names` say (no names: anywhere); a
        line on a node is on its group too."""
        if not names:
            return True
        wanted = set(self.routers(names))
        return any(s in wanted or self._group_of.get(s) in wanted for s in subjects)

    def holds(self, check: Check, facts: LabFacts) -> bool:
        routers = self.routers((check.on,))
        return bool(routers) and all(check_holds(check.name, facts, r, self.runbook.vpn) for r in routers)

    def describe(self, check: Check) -> str:
        routers = ", ".join(self.routers((check.on,))) or "none"
        return f"{check.name} on {check.on} ({routers})"

    def _forbidden(self, forbidden: ForbiddenAction, subjects: tuple[str, ...], typed: ParsedCommand,
                   facts: LabFacts) -> bool:
        return (any(matches(p, typed) for p in forbidden.commands) and self._on(forbidden.on, subjects)
                and all(self.holds(c, facts) for c in forbidden.when))

    def _set(self, step: RunbookStep, status: str, index: int, reason: str, final: bool) -> None:
        state = self.states[step.id]
        state.status, state.index, state.reason, state.final = status, index, reason, final
        if status == "done":
            state.final = True

    def _attempt(self, step: RunbookStep, index: int, target: str, subjects: tuple[str, ...],
                 facts: LabFacts) -> None:
        state = self.states[step.id]
        routers = self.routers(step.on)
        action = step.kind == "action"
        if not self._on(step.on, subjects):
            self._set(step, "wrong-router", index,
                      f"ran on {', '.join(subjects) or target}; the step runs on {' and '.join(step.on)} "
                      f"({', '.join(routers) or 'none'})", action)
            return
        unmet = [c for c in step.preconditions if not self.holds(c, facts)]
        if unmet:
            self._set(step, "precondition-not-met", index,
                      "when it ran, not " + "; not ".join(self.describe(c) for c in unmet), action)
            return
        if not all(self.holds(c, facts) for c in step.until):
            if state.status == PENDING:
                state.index = index
            return
        if step.every:
            state.covered.update(s if s in routers else self._group_of.get(s, s) for s in subjects)
            if not set(routers) <= state.covered:
                state.index = index
                return
        self._pass_earlier(step, facts, index)
        if state.passed_by:
            self._set(step, "out-of-order", index, "done after a later step", True)
        else:
            self._set(step, "done", index, "", True)

    def _pass_earlier(self, step: RunbookStep, facts: LabFacts, index: int) -> None:
        for earlier in self.runbook.steps:
            if earlier.id == step.id:
                return
            state = self.states[earlier.id]
            if state.final or state.passed_by:
                continue
            state.passed_by = True
            if state.status == PENDING:
                self._decide_pending(earlier, facts, index)

    def _decide_pending(self, step: RunbookStep, facts: LabFacts | None, index: int | None) -> None:
        state = self.states[step.id]
        if facts is not None and not all(self.holds(c, facts) for c in step.when):
            state.status, state.reason, state.final = "not-applicable", "its conditions did not hold", True
            state.index = None
            return
        missing = [r for r in self.routers(step.on) if r not in state.covered] if step.every else []
        if step.every and state.covered:
            state.status, state.reason = "missing", f"not run on {', '.join(missing)}"
        elif step.until and state.index is not None:
            state.status = "missing"
            state.reason = "run, but never when " + " and ".join(self.describe(c) for c in step.until)
        else:
            state.status, state.reason, state.index = "missing", "never done", None
        if state.reason == "never done" and index is not None:
            state.reason = f"never done before line {self.lines[index].number}"

    # -- the end -----------------------------------------------------------------------------
    def fork(self) -> Grader:
        """A copy that later lines and `finish` change without touching this grader (the
        runbook, the lines so far and the facts, never changed in place, are shared)."""
        other = copy(self)
        other.lines = list(self.lines)
        other.notes = list(self.notes)
        other.states = {sid: replace(state, covered=set(state.covered)) for sid, state in self.states.items()}
        other.forbidden_taken = dict(self.forbidden_taken)
        other._typo = dict(self._typo)
        return other

    def finish(self, name: str, facts: LabFacts, audit: dict[str, int]) -> TranscriptGrade:
        """The grade if the session ended now, with the lab's `facts` and `audit` of now; the
        grader itself is not changed (its session may go on)."""
        return self.fork()._finish(name, facts, audit)

    def _finish(self, name: str, facts: LabFacts, audit: dict[str, int]) -> TranscriptGrade:
        for step in self.runbook.steps:
            state = self.states[step.id]
            if state.status == PENDING and not self.begun:
                state.status, state.reason = "missing", "the procedure never began (its begin conditions never held)"
            elif state.status == PENDING:
                self._decide_pending(step, facts, None)
        for typo in self._typo.values():
            line = self.lines[typo]
            self.notes.append(f"line {line.number}: typo (not corrected), not graded: {line.text}")
        measured = dict(audit)
        if self.runbook.outcome_from == "begin":
            before = dict(self.begin_facts.audit) if self.begin_facts is not None else {}
            # what the procedure itself cost: a message counted lost at its begin and found later
            # is no gain of the procedure's
            measured = {m: max(0, v - before.get(m, 0)) for m, v in measured.items()}
        measured[LEFTOVER] = sum(v.prepared_xa + v.completed for r in facts.routers
                                 if (v := r.vpn(self.runbook.vpn)) is not None)
        expected = dict(self.runbook.outcome)
        outcome = tuple((m, e, measured.get(m, 0)) for m, e in self.runbook.outcome)
        results = [self._result(step, measured, expected) for step in self.runbook.steps]
        results += [self._forbidden_result(f, measured, expected) for f in self.runbook.forbidden
                    if f.id in self.forbidden_taken]
        failed = [r.id for r in results if not r.passed]
        if any(e != v for _, e, v in outcome):
            failed.append(OUTCOME_ID)
        counted = [r for r in results if r.status != "not-applicable"]
        score = sum(r.passed for r in counted) / len(counted) if counted else 1.0
        return TranscriptGrade(name, self.runbook.name, not failed, round(score, 4),
                               "pass" if not failed else "fail at " + ", ".join(failed), tuple(results),
                               tuple(failed), outcome, tuple(self.notes))

    def _where(self, index: int | None) -> tuple[int | None, str]:
        if index is None:
            return None, ""
        line = self.lines[index]
        return line.number, line.text

    def _consequence(self, measures: tuple[str, ...], measured: dict[str, int], expected: dict[str, int]) -> str:
        if not measures:
            return "not measured"
        off = [f"{m} {measured.get(m, 0)} (expected {expected.get(m, 0)})" for m in measures
               if measured.get(m, 0) != expected.get(m, 0)]
        return ", ".join(off) if off else "none measured: " + ", ".join(f"{m} {measured.get(m, 0)}" for m in measures)

    def _result(self, step: RunbookStep, measured: dict[str, int], expected: dict[str, int]) -> StepResult:
        state = self.states[step.id]
        status: Status = state.status  # type: ignore[assignment]  # PENDING never survives finish
        number, text = self._where(state.index)
        passed = status in ("done", "not-applicable")
        return StepResult(step.id, step.title, status, number, text, state.reason, step.rationale,
                          "" if passed else self._consequence(step.measures, measured, expected))

    def _forbidden_result(self, forbidden: ForbiddenAction, measured: dict[str, int],
                          expected: dict[str, int]) -> StepResult:
        index, reason = self.forbidden_taken[forbidden.id]
        number, text = self._where(index)
        return StepResult(forbidden.id, forbidden.title, "forbidden-action", number, text, reason,
                          forbidden.rationale, self._consequence(forbidden.measures, measured, expected))
