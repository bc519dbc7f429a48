"""The one execute loop every CLI of the lab runs on.

Why one loop: every CLI must behave the same where the lab, not the product, is concerned: a
command runs in one store command (``LabStore.run``: caught up with other shells, run again from
the start when another shell wrote first or the write lock is busy, so no WriteConflict ever
reaches the user), an access check refuses before anything runs, every failure is one line
(engine refusals through the message table, a busy or damaged lab file, an internal error
logged with the line's secrets masked), and the personality's state (mode stack, chosen router,
context) changes only after the command is committed. A personality gives only what differs:

- ``prepare(line)``: an answer without the store (a blank line, a comment, a parse error) as an
  ``Outcome``, or a ``Plan`` whose ``work(engine)`` runs inside the store command (and may be run
  more than once: it must keep its effects in the engine and in its return value);
- ``finish(plan, value)``: apply what the committed command returned (navigation, framing);
- ``error_text(plan, text)``: how an error line is printed (some CLIs print notices first, and
  keep what the last attempt observed although the command was refused);
- ``parsed_command(line)``: the line as the CLI reads it, for grading (the grammar's reading by
  default; a CLI that parses its own words gives its own).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from grammar import Access, ParseError
from grammar.masking import mask_secrets
from state_store.errors import CommitUnknown, EngineError, LabBusy, LabFileError

from ..access import UserAccess, allowed, allows_everything, effective_level
from ..messages import engine_error_text, shell_error_text
from ..parsed_command import ParsedCommand, from_grammar, vpn_carriers
from ..results import Outcome

if TYPE_CHECKING:
    from grammar import Grammar, Parser
    from state_store.lab_engine import KernelEngine

T = TypeVar("T")


class EngineStore(Protocol):
    """What a CLI uses of the lab's store: one command's work in one transaction, over an engine
    that has at least the lab's neutral part (``state_store.lab_engine.KernelEngine``; the router
    CLI, which drives the root model's whole engine, types its lab as ``Lab``)."""

    def run(self, work: Callable[[KernelEngine], T], *, max_wait_s: float | None = None) -> T: ...


class LabHost(Protocol):
    """What a CLI uses of the lab it runs in (``solace_shell.lab.Lab`` is the one): its store, its
    grammar and the parser over it. Why a Protocol: the lab opens its CLIs, so a CLI that imported
    the lab would close an import circle."""

    @property
    def store(self) -> EngineStore: ...
    @property
    def grammar(self) -> Grammar: ...
    @property
    def parser(self) -> Parser: ...

log = logging.getLogger(__name__)


class Denied(Exception):
    """The user's access level does not allow the command (raised before its handler runs)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass
class Plan:
    """One parsed line on its way through the store. ``node`` is the grammar node of its leaf
    ("" until known); ``notes`` lines a personality prints before its output or error, set by
    ``work`` on each attempt; ``masked`` the line with its secrets masked when the reading gave
    it (None: the base masks the line); ``clock_ms`` the lab's clock as the last attempt found
    it (a refused command changes nothing, so it is the clock after it too); ``reread_clock``
    set by ``finish`` when it changed the lab after the commit (a reset), so the clock the
    command read is no longer the lab's."""

    line: str
    work: Callable[[Any], Any]
    node: str = ""
    data: Any = None
    notes: list[str] = field(default_factory=list)
    masked: str | None = None
    clock_ms: int | None = None
    reread_clock: bool = False


def _spent(engine: Any) -> None:
    raise RuntimeError("a plan's work runs once, through Personality.execute")


class Personality:
    """One CLI in one terminal: its user, paging and end state; the shared execute loop."""

    eof_text = ""   # what the CLI prints when its input ends (nothing by default)
    context_help = True   # `?` asks for help (False: a shell, where `?` is an ordinary character)

    def __init__(self, lab: LabHost, host: str, user: UserAccess) -> None:
        self.lab = lab
        self.host = host
        self.user = user
        self.router: str | None = None   # the router the CLI talks to, when it has one
        self.paging = True
        self.ended = False
        self._allowed: dict[tuple[str, str, str | None], bool] = {}
        self._allowed_for = user
        self._carriers: dict[str, str] | None = None

    # -- what a personality gives -------------------------------------------------------------
    @property
    def mode(self) -> str:
        raise NotImplementedError

    @property
    def prompt(self) -> str:
        raise NotImplementedError

    @property
    def context(self) -> dict[str, str]:
        """What the current level carries (a VPN, a queue ...), for completion."""
        return {}

    def restart(self) -> None:
        """Log in again after the session ended."""
        self.ended = False

    def prepare(self, line: str) -> Outcome | Plan:
        raise NotImplementedError

    def finish(self, plan: Plan, value: Any) -> Outcome:
        raise NotImplementedError

    def error_text(self, plan: Plan, text: str) -> str:
        return text

    def parsed_command(self, line: str) -> ParsedCommand | None:
        """The line as this CLI reads it, in the neutral shape grading matches (None: blank, a
        comment, or not a command of the CLI). Reads only. By default the shared grammar parses
        it at the CLI's level; a CLI that reads its own words gives its own reading."""
        parsed = self.lab.parser.parse(self.mode, line)
        if parsed is None or isinstance(parsed, ParseError):
            return None
        if self._carriers is None:
            self._carriers = vpn_carriers(self.lab.grammar)
        return from_grammar(parsed.steps, self.context.get("vpn"), self._carriers)

    # -- the loop ---------------------------------------------------------------------------------
    def execute(self, line: str) -> Outcome:
        """Run one line: its Outcome carries the masked line and, when the line ran a store
        command, the clock that command read (so a line costs one store command, the toolbar's
        clock and an observer's event included)."""
        if self.ended:
            self.restart()
        plan = self.prepare(line)
        if isinstance(plan, Outcome):
            return plan._replace(masked=self.masked(line))
        # masked before the line runs: in the mode it was typed in
        masked = plan.masked if plan.masked is not None else self.masked(line)
        work, plan.work = plan.work, _spent   # a work that refers to its plan makes no cycle

        def attempt(engine: Any) -> tuple[Any, int]:
            plan.clock_ms = engine.now_ms()
            return work(engine), engine.now_ms()

        try:
            value, clock = self.lab.store.run(attempt)
        except Denied as denied:
            return self._failed(plan, masked, denied.text, "access")
        except EngineError as exc:
            return self._failed(plan, masked, engine_error_text(exc), "engine")
        except LabBusy as busy:
            code = "lab_changed_meanwhile" if busy.changed_meanwhile else "lab_busy"
            return self._failed(plan, masked, shell_error_text(code, seconds=f"{busy.waited_s:.0f}"), "busy")
        except CommitUnknown as unknown:  # a shared database's connection lost during the commit
            return self._failed(plan, masked, shell_error_text("lab_unknown", problem=unknown.problem), "unknown")
        except LabFileError as damaged:  # another process damaged the lab file while it was open
            text = shell_error_text("lab_damaged", path=damaged.path, problem=damaged.problem)
            return self._failed(plan, masked, text, "lab-file")
        except Exception as exc:  # a bug must not cost the user their session or their lab
            log.exception("internal error running %r", masked)
            return self._failed(plan, masked, shell_error_text("internal", detail=type(exc).__name__), "internal")
        outcome = self.finish(plan, value)
        return outcome._replace(masked=masked, clock_ms=None if plan.reread_clock else clock)

    def _failed(self, plan: Plan, masked: str, text: str, kind: str) -> Outcome:
        """A line the store command refused: nothing changed, so the clock it read holds (none
        when it never ran: a busy or damaged lab, an internal error)."""
        clock = plan.clock_ms if kind in ("access", "engine") else None
        return Outcome(self.error_text(plan, text), False, plan.node, kind, masked=masked, clock_ms=clock)

    # -- shared services ---------------------------------------------------------------------------
    def masked(self, line: str) -> str:
        """The line with every secret word masked (history, recordings, logs keep only this)."""
        return mask_secrets(self.lab.parser, self.mode, line)

    def check_access(self, syntax: str, access: Access, vpn: str | None) -> None:
        """Raise ``Denied`` (one line) when the user may not run a command of ``access`` on ``vpn``."""
        if allows_everything(self.user) or self._may(access, vpn):
            return
        raise Denied(self.denied_text(syntax, access, vpn))

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        """The line that refuses a command for access, in this CLI's words (the router CLI's by
        default; a CLI whose product words its refusal otherwise gives its own)."""
        return shell_error_text(
            "access_denied", command=syntax, required=str(access), user=self.user.name,
            actual=f"{access.scope}/{effective_level(self.user, access, vpn)}")

    def _may(self, access: Access, vpn: str | None) -> bool:
        """`allowed` for this user, remembered per (access, vpn): a session asks the same few pairs
        over and over."""
        if self._allowed_for is not self.user:
            self._allowed, self._allowed_for = {}, self.user
        key = (access.scope, access.level, vpn)
        verdict = self._allowed.get(key)
        if verdict is None:
            verdict = self._allowed[key] = allowed(self.user, access, vpn)
        return verdict
