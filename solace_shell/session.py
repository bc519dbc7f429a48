"""One router in one terminal: its level stack, user and paging setting.

The same Session object serves the REPL, scripts, one-shot commands and transcript replay, so all
four behave identically. A command runs in one database transaction; the level stack changes only
after that transaction commits, so a refused command leaves both the lab and the prompt as they were.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grammar import Parsed, ParseError, Step
from grammar.masking import mask_secrets
from grammar.parser import lex_error
from grammar.prompts import prompt_text
from grammar.tokens import ControlCharacter, check_characters, is_forbidden
from state_store.errors import EngineError
from state_store.solace.frozen import statically_frozen

from .access import UserAccess, allows_everything
from .framing import frame
from .handlers import HANDLERS, HandlerContext, handler_for
from .messages import engine_error_text, parse_error_text, shell_error_text
from .personalities.base import Personality, Plan, Reading
from .renderers import RENDERERS, render
from .results import (
    NAVIGATION,
    EndToPrivileged,
    ExitLevel,
    HomeToExec,
    Lines,
    Outcome,
    Refused,
    ResetLab,
    RunScript,
    SetPaging,
    SwitchTarget,
)

if TYPE_CHECKING:
    from .lab import Lab

log = logging.getLogger(__name__)

COMMENT = "!"
PRAGMA_IGNORE = "pragma:interpreter:ignore-already-exists"
PRAGMA_NO_IGNORE = "pragma:interpreter:no-ignore-already-exists"
# Engine refusals that mean "the object a `create` names is already there".
ALREADY_EXISTS = frozenset({"queue_exists", "replicated_topic_exists", "client_exists"})


@statically_frozen
@dataclass(frozen=True)
class Frame:
    """One level of the stack: its mode, what it carries (a VPN, a queue ...) and, kept with it,
    what the levels up to it carry (`carried`: a later level's value wins), which every step of
    every line asks for."""

    mode: str
    context: tuple[tuple[str, str], ...] = ()
    carried: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def below(self, mode: str, context: tuple[tuple[str, str], ...] = ()) -> Frame:
        """The level `mode` entered from this one, carrying `context`."""
        if not context:
            return Frame(mode, (), self.carried)
        return Frame(mode, context, tuple({**dict(self.carried), **dict(context)}.items()))


class Session(Personality):
    """The Solace router CLI (and the lab console, a pseudo-device of the same grammar) on the
    shared execute loop (``personalities.base``)."""

    def __init__(self, lab: Lab, host: str, router: str | None, start_mode: str, user: UserAccess) -> None:
        super().__init__(lab, host, user)
        self.lab: Lab = lab   # the router CLI also resets the lab and lists its routers
        self.router = router
        self.start_mode = start_mode
        self.stack: list[Frame] = [Frame(start_mode)]
        # `! pragma:interpreter:ignore-already-exists`: a `create` of an existing object enters
        # its level silently, so a script can run twice (T16).
        self.ignore_already_exists = False
        self.sourcing = False  # running the lines of a `source script` (which cannot source another)
        self._prompts: dict[str, str] = {}  # mode -> prompt text (the grammar and host never change)
        self._parser = lab.parser                       # (fixed for a lab, as its grammar)

    # -- state ----------------------------------------------------------------------------------
    @property
    def mode(self) -> str:
        return self.stack[-1].mode

    @property
    def context(self) -> dict[str, str]:
        return _context(self.stack)

    @property
    def prompt(self) -> str:
        current = self.stack[-1].mode
        text = self._prompts.get(current)
        if text is None:
            mode = self.lab.grammar.modes[current]
            text = self._prompts[current] = prompt_text(self.host, mode.prompt, mode.char)
        return text

    def restart(self) -> None:
        """Log in again after `exit` at the top level."""
        self.stack = [Frame(self.start_mode)]
        self.ended = False

    # -- running a line (the pipeline is Personality.execute) ---------------------------------------
    def read(self, line: str) -> Reading:
        """The grammar's reading at the current level (a `!` comment line is not parsed)."""
        if COMMENT in line and line.lstrip(" \t").startswith(COMMENT):
            return Reading(self, line, _COMMENT_LINE)
        mode = self.stack[-1].mode
        parser = self._parser
        parsed = parser.parse(mode, line)
        if parsed is None:
            return Reading(self, line, None, None, line)
        if isinstance(parsed, Parsed):   # (grammar.masking.mask_parsed, inline: every line asks)
            masked = mask_secrets(parser, mode, line, parsed) if parsed.secret else line
            return Reading(self, line, parsed, parsed, masked)
        return Reading(self, line, parsed, None, mask_secrets(parser, mode, line, parsed))

    def plan(self, reading: Reading) -> Outcome | Plan:
        parsed = reading.data
        if parsed is _COMMENT_LINE:
            return self._comment(reading.line)
        if parsed is None:
            return Outcome("", True)
        if isinstance(parsed, ParseError):
            return Outcome(parse_error_text(parsed, len(self.prompt) + 1), False, "", parsed.kind)
        return Plan(reading.line, self._steps, parsed.steps[-1].command.node, parsed)

    def _steps(self, engine: Any, plan: Plan) -> tuple[list[Frame], list[Any]]:
        """A plan's work: each step's handler, on a stack of its own (fresh on every attempt: the
        store runs this again when another shell wrote first); the stack and the results."""
        stack = list(self.stack)
        checked = not allows_everything(self.user)   # (the usual user of drills: no VPN to look up)
        return stack, [result for step in plan.data.steps
                       if (result := self._run_step(engine, step, stack, checked)) is not None]

    def output(self, plan: Plan, value: Any) -> str:
        """Every step's result as CLI text, made inside the store command."""
        results = value[1]
        if len(results) == 1:
            return _render(results[0])
        return "\n".join(t for t in map(_render, results) if t)

    def finish(self, plan: Plan, value: Any, text: str) -> Outcome:
        stack, results = value
        leaf = plan.data.steps[-1].command
        if leaf.enters:
            self.stack = stack
        if len(results) == 1:  # most commands: one result (no set of types to make)
            kind = type(results[0])
            refused = kind is Refused
            acts = kind in _SESSION_ACTIONS
        else:
            kinds = {type(result) for result in results}
            refused = Refused in kinds
            acts = not kinds.isdisjoint(_SESSION_ACTIONS)
        if not refused:
            text = frame(leaf, text)
        if not acts:  # most commands: no level change, nothing to apply (`done`, inline: most lines end here)
            return Outcome(text, not refused, plan.node, "engine" if refused else None, self.ended, None, plan.masked,
                           plan.clock_ms)
        # a reset or a script's lines change the lab after the command: its clock is read anew
        plan.reread_clock = any(type(result) in _RELOADS for result in results)
        return self._navigate(plan, results, text, not refused)

    def _run_step(self, engine: Any, step: Step, stack: list[Frame], checked: bool) -> Any:
        """Run one step's handler (its access `checked` first, unless the user may do everything);
        its result (None: nothing to render or apply)."""
        command = step.command
        context = dict(stack[-1].carried)
        args = dict(step.args)
        if command.negated:
            args["no"] = True
        if checked:
            named = args.get("vpn-name") or args.get("vpn-pattern")
            self.authorize(command, str(named) if named else context.get("vpn"))
        # the base's `handle`, inline: every step of every router line runs here
        run = HANDLERS.get(command.handler) or handler_for(command)
        try:
            result = run(HandlerContext(engine, self.router, self.user.name, self, context), args)
        except EngineError as exc:
            # The engine checks existence before it writes anything, so going on is safe.
            if not (self.ignore_already_exists and command.creates and exc.code in ALREADY_EXISTS):
                raise
            result = None
        if command.enters:
            grammar = self.lab.grammar
            mode = grammar.modes[command.enters]
            # A create several levels down (`create replication replicated-topic ">"` at the
            # message-vpn level) enters the object's level with its structural parents below it,
            # so `exit` lands on the parent (`.../replication`), as the T28 script relies on.
            for between in grammar.levels_between(stack[-1].mode, mode.id):
                stack.append(stack[-1].below(between))
            carried = tuple((key, str(args[param])) for key, param in mode.carries if param in args) \
                if mode.carries else ()
            stack.append(stack[-1].below(mode.id, carried))
        return result

    def _comment(self, line: str) -> Outcome:
        """`!` starts a comment line, in scripts and at the prompt alike; two comments are
        interpreter pragmas. Comment lines with a control character are refused like any line."""
        try:
            check_characters(line)
        except ControlCharacter as exc:
            error = lex_error(exc)
            return Outcome(parse_error_text(error, len(self.prompt) + 1), False, "", error.kind)
        pragma = line.strip(" \t")[1:].strip(" \t")
        if pragma == PRAGMA_IGNORE:
            self.ignore_already_exists = True
        elif pragma == PRAGMA_NO_IGNORE:
            self.ignore_already_exists = False
        return Outcome("", True)

    def _navigate(self, plan: Plan, results: list[Any], text: str, ok: bool) -> Outcome:
        """Apply level changes after the commit; a refused command never reaches here. `ok` is
        False when a result is Refused: it was committed (its counts persist) but reports an error."""
        switch_to: str | None = None
        for result in results:
            if type(result) not in _SESSION_ACTIONS:
                continue
            if isinstance(result, ExitLevel):
                if len(self.stack) > 1:
                    self.stack.pop()
                else:
                    self.ended = True
            elif isinstance(result, EndToPrivileged):
                while len(self.stack) > 1 and self.mode != "privileged":
                    self.stack.pop()
            elif isinstance(result, HomeToExec):
                del self.stack[1:]
            elif isinstance(result, SetPaging):
                self.paging = result.on
            elif isinstance(result, SwitchTarget):
                switch_to = result.target
            elif isinstance(result, ResetLab):
                self.lab.reset(result.scenario)
            elif isinstance(result, RunScript):
                text, ok = self._source(result)
        return self.done(plan, text, ok, None if ok else "engine", self.ended, switch_to)

    def _source(self, script: RunScript) -> tuple[str, bool]:
        """Run a script's lines in this session, each echoed after its prompt and preceded by a
        blank line as C17 prints them (without `no-prompt` the first echo follows the command
        directly); (the text, whether every line succeeded)."""
        if self.sourcing:
            return shell_error_text("script_nested"), False
        parts: list[str] = []
        ok = True
        self.sourcing = True
        try:
            for raw in script.lines:
                line = raw.strip(" \t")
                if not line:
                    continue
                echo = f"{self.prompt} {''.join('?' if is_forbidden(ch) else ch for ch in line)}"
                outcome = self.execute(line)
                parts.append(f"\n{echo}\n" + (outcome.text + "\n" if outcome.text else ""))
                ok = ok and outcome.ok
                if outcome.ended or (script.stop_on_error and not outcome.ok):
                    break
        finally:
            self.sourcing = False
        text = "".join(parts).removesuffix("\n")
        return (text if script.no_prompt else text.removeprefix("\n")), ok


_SESSION_ACTIONS = frozenset({ExitLevel, EndToPrivileged, HomeToExec, SetPaging, SwitchTarget, ResetLab, RunScript})
_RELOADS = frozenset({ResetLab, RunScript})
_COMMENT_LINE = object()   # what the reading of a `!` comment line holds
_SILENT = frozenset(NAVIGATION)  # navigation results print nothing


def _render(result: Any) -> str:
    """A handler result as CLI text: the renderer registered for its type, else the session's own
    result types (navigation prints nothing, Lines as they are, Refused as its error line)."""
    fn = RENDERERS.get(type(result))
    if fn is not None:
        return fn(result)
    if type(result) in _SILENT:
        return ""
    if isinstance(result, Lines):
        return "\n".join(result.lines)
    if isinstance(result, Refused):
        return engine_error_text(EngineError(result.code, **result.params))
    return render(result)  # raises: no renderer for this type


def _context(stack: list[Frame]) -> dict[str, str]:
    """What the stack's levels carry (a later level's value wins)."""
    return dict(stack[-1].carried)
