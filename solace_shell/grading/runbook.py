"""A runbook as typed data: what `load_runbook` returns and the grader follows."""

from __future__ import annotations

from dataclasses import dataclass

from .patterns import CommandPattern

STEP_KINDS = ("action", "check")


@dataclass(frozen=True)
class Check:
    """A state check (`vocabulary.CHECKS`, maybe `not-<check>`) asked of the routers of a role or
    of one named router."""

    name: str
    on: str                                     # a role, a router, a kernel node or group


@dataclass(frozen=True)
class RunbookStep:
    """One step. An `action` changes the lab: its first attempt counts (a deviation is final). A
    `check` only looks: a later correct attempt makes up for an early, wrong or premature one, and
    it is done only once its `until` checks hold when it runs (a drained queue seen, not just asked
    about)."""

    id: str
    title: str
    rationale: str
    kind: str                                   # action | check
    on: tuple[str, ...]                         # roles or router names; the line must run on one
    every: bool                                 # ... or on each of them (a check on both sites)
    commands: tuple[CommandPattern, ...]
    when: tuple[Check, ...]                     # the step applies only when these hold
    preconditions: tuple[Check, ...]            # must hold just before the line runs
    until: tuple[Check, ...]                    # a check is done once these hold as it runs
    measures: tuple[str, ...]                   # outcome measures that show what skipping it cost
    line: int                                   # where the runbook file declares it
    others_ignored: bool = False                # its command on another router is not this step


@dataclass(frozen=True)
class ForbiddenAction:
    id: str
    title: str
    rationale: str
    on: tuple[str, ...]
    commands: tuple[CommandPattern, ...]
    when: tuple[Check, ...]
    measures: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Runbook:
    name: str
    title: str
    source: str                                 # the file it was read from
    system: str                                 # the CLI its commands belong to (`solace`)
    vpn: str
    roles: tuple[tuple[str, str], ...]          # role name -> role source (vocabulary.ROLE_SOURCES)
    begin: tuple[Check, ...]                    # lines count from the first step line where these hold
    steps: tuple[RunbookStep, ...]
    forbidden: tuple[ForbiddenAction, ...]
    outcome: tuple[tuple[str, int], ...]        # measure -> expected value at the end
    outcome_from: str = "start"                 # start | begin: the audit counts from there
    console: bool = False                       # a step or forbidden action is written at a console level

    def step(self, step_id: str) -> RunbookStep:
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)
