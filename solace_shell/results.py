"""Result types shared by many handlers. Domain results live next to their handlers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from state_store.solace.frozen import statically_frozen


class Outcome(NamedTuple):
    """What one command line did, as the caller of a session sees it. Immutable; a NamedTuple
    rather than a frozen dataclass because every command line makes one and it is made in a third
    of the time."""

    text: str                  # the output, without a trailing newline ("" for none)
    ok: bool
    node: str = ""             # grammar node of the leaf command ("" when it did not parse)
    # invalid | ambiguous | incomplete | invalid-value | access | engine | busy | lab-file | internal
    error_kind: str | None = None
    ended: bool = False        # the session ended (exit at the top level)
    switch_to: str | None = None    # the lab console asked to talk to this target next
    # the line with its secrets masked (grammar.masking), in the mode it was typed in: what a
    # history, a recording, a log or an observer may keep ("" when no CLI read it)
    masked: str = ""
    # the lab's simulated clock after the line, read inside the line's own store command (None:
    # the line ran no store command, or changed the lab after it, so the clock must be read anew)
    clock_ms: int | None = None


@statically_frozen
@dataclass(frozen=True)
class Lines:
    """Plain output lines: for handlers whose output is a fixed message."""

    lines: tuple[str, ...]


# Navigation results: the session applies them to its level stack after the transaction commits.
@statically_frozen
@dataclass(frozen=True)
class ExitLevel:
    pass


@statically_frozen
@dataclass(frozen=True)
class EndToPrivileged:
    pass


@statically_frozen
@dataclass(frozen=True)
class HomeToExec:
    pass


@statically_frozen
@dataclass(frozen=True)
class SetPaging:
    on: bool


@statically_frozen
@dataclass(frozen=True)
class SwitchTarget:
    target: str     # a router, or BACK_TO_ROUTER


# `lab> exit`: back to the router the console was opened from (the REPL knows which).
BACK_TO_ROUTER = "-"


# Lab console results the session acts on after the transaction commits.
@statically_frozen
@dataclass(frozen=True)
class ResetLab:
    """`lab> reset`: the Lab starts again from `scenario` (None: the default lab)."""

    scenario: str | None
    name: str                  # the scenario's name, for the message


@statically_frozen
@dataclass(frozen=True)
class Refused:
    """An action the engine refused but recorded (a publish rejected because the replication
    queue is full: its rejection counts persist). Prints as an engine error; the outcome is not ok."""

    code: str
    params: dict[str, object] = field(default_factory=dict)


@statically_frozen
@dataclass(frozen=True)
class RunScript:
    """`source script`: the session runs these lines after the command commits, echoing each
    after its prompt as a `-s` run does (C17)."""

    lines: tuple[str, ...]
    stop_on_error: bool
    no_prompt: bool


NAVIGATION = (ExitLevel, EndToPrivileged, HomeToExec, SetPaging, SwitchTarget, RunScript)

# Results the session itself turns into text or actions (no renderer needed): navigation, fixed lines,
# refusals, and `lab> reset`. Every other handler result type needs a renderer.
SESSION_RESULTS: tuple[type, ...] = (*NAVIGATION, Lines, Refused, ResetLab)
