"""The one typed pipeline every CLI of the lab runs a line through.

Why one pipeline: every CLI must behave the same where the lab, not the product, is concerned. A
line is read once, by the CLI's only reader (``read``: the shared grammar, or the CLI's own
option parser); what it reads is also what grading observes (``Reading.command``, through a
``LineWatch``). A command then runs in one store command (``LabStore.run``: caught up with other
shells, run again from the start when another shell wrote first or the write lock is busy, so no
WriteConflict ever reaches the user): it is authorized before its handler runs (``authorize``),
its handler comes from the handler registry (``handle``), and its output is rendered inside that
store command (``output``: output that cannot be made undoes the command). Every failure is one
line (engine refusals through the message table, a busy or damaged lab file, an internal error
logged with the line's secrets masked), and the CLI's own state (mode stack, chosen router,
context) changes only after the commit (``finish``). The Outcome carries the masked line and the
clock the line's store command read, so a line costs one store command. A personality gives only
what differs:

- ``read(line)``: the line as the CLI reads it (pure: it changes nothing), a ``Reading``;
- ``describe(reading)``: the neutral ``ParsedCommand`` grading matches (the grammar's reading by
  default), and ``subjects(engine, reading)``: the kernel nodes or groups the CLI resolves the line
  to act on beyond its arguments (none by default);
- ``plan(reading)``: an answer without the store (a blank line, a comment, a refusal, a shell
  builtin) as an ``Outcome``, or a ``Plan`` whose ``work(engine, plan)`` runs inside the store command
  (and may run more than once: it keeps its effects in the engine and its return value);
- ``output(plan, value)``: the text of what the work returned (the renderer registry's);
- ``finish(plan, value, text)``: apply what the committed command returned (navigation, framing)
  and give its Outcome (``done``);
- ``error_text(plan, text)``: how an error line is printed (some CLIs print notices first, and
  keep what the last attempt observed although the command was refused).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from grammar import Access, Parsed
from grammar.masking import mask_secrets
from state_store.errors import CommitUnknown, EngineError, LabBusy, LabFileError

from ..access import UserAccess, allowed, allows_everything, effective_level
from ..handlers import HANDLERS, HandlerContext, handler_for
from ..messages import engine_error_text, shell_error_text
from ..parsed_command import ParsedCommand, from_grammar, vpn_carriers
from ..renderers import render
from ..results import Outcome
from .host import EngineStore, LabHost

if TYPE_CHECKING:
    from grammar import Command

__all__ = ["Denied", "EngineStore", "LabHost", "LineWatch", "Personality", "Plan", "Reading"]

log = logging.getLogger(__name__)


class Denied(Exception):
    """The user's access level does not allow the command (raised before its handler runs)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class Reading:
    """One line as its CLI read it (``Personality.read``, the CLI's only reader): what the
    pipeline runs and what grading observes. ``parsed``: the grammar's parse, when the grammar
    read the line and it parsed; ``data``: the CLI's own reading (a parse error, gfsh's options, a
    tool's call ...); ``masked``: the line with its secrets masked when the reader knows it
    cheaply (None: the pipeline masks it); ``command``: the neutral reading grading matches
    (``Personality.describe``), made when first asked, which is before the line runs."""

    __slots__ = ("_cli", "_command", "data", "line", "masked", "parsed")

    def __init__(self, cli: Personality, line: str, data: Any = None, parsed: Parsed | None = None,
                 masked: str | None = None) -> None:
        self._cli: Personality | None = cli
        self._command: ParsedCommand | None = None
        self.line = line
        self.data = data
        self.parsed = parsed
        self.masked = masked

    @property
    def command(self) -> ParsedCommand | None:
        cli = self._cli
        if cli is not None:     # described once (the reading then lets go of its CLI)
            self._command, self._cli = cli.describe(self), None
        return self._command


class LineWatch(Protocol):
    """Who watches the lines a CLI runs (grading): told each line's reading before anything runs
    (``wants``: whether to look at the lab for it), then, when it wants to, let look at the lab
    inside the line's own store command, before the command's handler runs, with the kernel
    nodes and groups the CLI resolved the line to act on (``Personality.subjects``)."""

    def wants(self, reading: Reading) -> bool: ...
    def look(self, engine: Any, subjects: tuple[str, ...]) -> None: ...


class Plan:
    """One read line on its way through the store: its ``line``, the ``work`` that runs inside the
    store command, the grammar ``node`` of its leaf ("" until known) and the CLI's ``data``.
    ``notes``: lines a personality prints before its output or error, set by ``work`` on each
    attempt; ``clock_ms``: the lab's clock as the last attempt found it (a refused command changes
    nothing, so it is the clock after it too), then as the committed command left it;
    ``reread_clock``: set by ``finish`` when it changed the lab after the commit (a reset), so the
    clock the command read is no longer the lab's; ``masked``: the line with its secrets masked
    (``done`` puts both in the Outcome). ``cli``, ``reading`` and ``watch``: the CLI running it,
    and the reading a watch looks at. (The values most plans keep are the class's: one is made for
    every line run.)"""

    notes: Sequence[str] = ()
    clock_ms: int | None = None
    reread_clock: bool = False
    masked: str = ""
    cli: Personality | None = None
    reading: Reading | None = None
    watch: LineWatch | None = None

    def __init__(self, line: str, work: Callable[[Any, Plan], Any], node: str = "", data: Any = None) -> None:
        self.line = line
        self.work = work
        self.node = node
        self.data = data

    def __call__(self, engine: Any) -> tuple[Any, str]:
        """The store command's work (run again from the start when another shell wrote first):
        the watch looks, the CLI's work runs, its output is made, the clock read before and after."""
        cli: Any = self.cli     # (set by Personality.execute before the store runs this)
        self.clock_ms = engine.now_ms()
        if self.watch is not None:
            self.watch.look(engine, cli.subjects(engine, self.reading))
        value = self.work(engine, self)
        text = cli.output(self, value)   # inside the store command: output that cannot be made undoes it
        self.clock_ms = engine.now_ms()
        return value, text


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

    def read(self, line: str) -> Reading:
        raise NotImplementedError

    def describe(self, reading: Reading) -> ParsedCommand | None:
        """The neutral reading grading matches (None: blank, a comment, or not a command of the
        CLI): the grammar's, at the CLI's level and in the VPN its level carries. A CLI that reads
        its own words describes its own reading."""
        parsed = reading.parsed
        if parsed is None:
            return None
        if self._carriers is None:
            self._carriers = vpn_carriers(self.lab.grammar)
        return from_grammar(parsed.steps, self.context.get("vpn"), self._carriers)

    def subjects(self, engine: Any, reading: Reading) -> tuple[str, ...]:
        """The kernel nodes and groups the CLI resolves the line to act on beyond what its
        arguments name (its target broker, the servers it addresses), read before it runs."""
        return ()

    def plan(self, reading: Reading) -> Outcome | Plan:
        raise NotImplementedError

    def output(self, plan: Plan, value: Any) -> str:
        """The text of what the work returned, made inside the store command: its renderer's."""
        return "" if value is None else render(value)

    def finish(self, plan: Plan, value: Any, text: str) -> Outcome:
        raise NotImplementedError

    def error_text(self, plan: Plan, text: str) -> str:
        return text

    def parsed_command(self, line: str) -> ParsedCommand | None:
        """The line as this CLI reads it, acting on what the CLI resolves it to, without running
        it (one store read when it names a command)."""
        reading = self.read(line)
        command = reading.command
        if command is None:
            return None
        subjects = self.lab.store.run(lambda engine: self.subjects(engine, reading))
        return replace(command, subjects=subjects) if subjects else command

    # -- the pipeline -----------------------------------------------------------------------------
    def execute(self, line: str, watch: LineWatch | None = None) -> Outcome:
        """Run one line: read, plan, then the store command (authorize, handle, output), then
        apply. The Outcome carries the masked line and, when the line ran a store command, the
        clock that command read. `watch` sees the reading and looks at the lab inside that store
        command (a line answered without the store gets one store command for the look)."""
        if self.ended:
            self.restart()
        reading = self.read(line)
        masked = reading.masked    # masked before the line runs: in the mode it was typed in
        if masked is None:
            masked = self.masked(line)
        looking = None
        if watch is not None and watch.wants(reading):
            looking = watch
        plan = self.plan(reading)
        if isinstance(plan, Outcome):
            clock = None if looking is None else self._look(looking, reading)
            return plan._replace(masked=masked, clock_ms=clock)
        plan.masked = masked
        plan.cli = self
        if looking is not None:
            plan.reading, plan.watch = reading, looking
        try:
            value, text = self.lab.store.run(plan)
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
        return self.finish(plan, value, text)

    def done(self, plan: Plan, text: str, ok: bool = True, error_kind: str | None = None, ended: bool = False,
             switch_to: str | None = None) -> Outcome:
        """The Outcome of a committed command (what ``finish`` returns): with its masked line and
        the clock its store command read (none when ``finish`` changed the lab after the commit)."""
        return Outcome(text, ok, plan.node, error_kind, ended, switch_to, plan.masked,
                       None if plan.reread_clock else plan.clock_ms)

    def _look(self, watch: LineWatch, reading: Reading) -> int | None:
        """Let `watch` look at the lab for a line answered without the store; the clock it read."""
        def look(engine: Any) -> int:
            watch.look(engine, self.subjects(engine, reading))
            return int(engine.now_ms())

        try:
            return self.lab.store.run(look)
        except (LabBusy, LabFileError):   # the watch saw nothing; the line's answer stands
            return None

    def _failed(self, plan: Plan, masked: str, text: str, kind: str) -> Outcome:
        """A line the store command refused: nothing changed, so the clock it read holds (none
        when it never ran: a busy or damaged lab, an internal error)."""
        clock = plan.clock_ms if kind in ("access", "engine") else None
        return Outcome(self.error_text(plan, text), False, plan.node, kind, masked=masked, clock_ms=clock)

    def authorize(self, command: Command, vpn: str | None = None) -> None:
        """Raise ``Denied`` (one line) when the user may not run ``command`` (on ``vpn``)."""
        self.check_access(command.syntax, command.access, vpn)

    def handle(self, engine: Any, command: Command | str, args: dict[str, Any], context: dict[str, str],
               router: str | None = None) -> Any:
        """Run ``command``'s handler from the handler registry (a handler id: for a line the CLI
        runs although it names no command of the grammar) on ``engine`` with ``args`` and what the
        CLI's level carries (``context``); what it returns (None: nothing to print)."""
        fn = HANDLERS[command] if isinstance(command, str) else handler_for(command)
        ctx = HandlerContext(engine, router, self.user.name, self, context)  # type: ignore[arg-type]
        return fn(ctx, args)

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
