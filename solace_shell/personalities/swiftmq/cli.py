"""The SwiftMQ admin CLI as a prompt personality of the lab (target `swiftmq`).

Why a session class of its own: the SwiftMQ CLI has no router host in its prompt (`> `, then
`ha1> ` after `sr ha1`, `ha1/sys$hacontroller/usage> ` after `cc`), prints errors as bare message
lines, and lives through failovers: it is connected (over JMS) to whichever instance serves. Before
each command it compares, per HA router, the serving instance with the one it last saw and prints
the router listener's notices (`Router 'ha1' is unavailable for administration.` / `... is
available ...`). When its router's connection moved to the other instance, the request being sent
is cancelled (`Reconnect occured: Request cancelled.`) and, as the real CLI does, the `sr`/`cc`
context is not restored: the prompt falls back to `> `. While no instance serves, a request to the
chosen router answers with the unavailable notice (the lab does not block). Grammar, `?` and Tab
come from grammar/data/systems/swiftmq/commands/admin-cli.yaml through the shared parser, which reads
a line once, before its store command (whose attempts the notices are decided in afresh).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grammar import Access, Parsed, ParseError
from grammar.masking import mask_parsed
from state_store.errors import EngineError
from state_store.swiftmq import SYSTEM
from state_store.swiftmq import operations as ha

from ...access import UserAccess
from ...renderers import render
from ...results import Outcome
from ..base import Personality, Plan, Reading
from .cli_handlers import Bye, ChangeContext, SwitchRouter

if TYPE_CHECKING:
    from ...lab import Lab

SWIFTMQ_TARGET = SYSTEM   # the lab's target for this CLI, and its one grammar mode
MODE = SYSTEM
LOCAL = frozenset({"sr", "ar", "help", "exit"})   # answered by the CLI itself, not sent to a router
USAGE = {"sr": "sr <router>", "cc": "cc <context>", "lc": "lc [<context>]", "set": "set <prop> [<value>]",
         "new": "new <name> [<prop> <value> ...]", "delete": "delete <entity>"}
UNAVAILABLE = "Router '{router}' is unavailable for administration."
AVAILABLE = "Router '{router}' is available for administration."
CANCELLED = "Reconnect occured: Request cancelled."
# The router's refusal of a command its management role does not grant the user (swiftmq-client
# com.swiftmq.mgmt.CommandRegistry.executeCommand), printed by the CLI as the bare message line.
NOT_GRANTED = "Command execution is not granted!"


class SwiftMqCli(Personality):
    """The SwiftMQ admin CLI on the shared execute loop (``personalities.base``)."""

    eof_text = "Bye."

    def __init__(self, lab: Lab, user: UserAccess) -> None:
        super().__init__(lab, SWIFTMQ_TARGET, user)
        self.paging = False
        self.router: str | None = None
        self.path: tuple[str, ...] = ()
        self.seen = lab.store.run(self._serving)

    @property
    def mode(self) -> str:
        return MODE

    @property
    def prompt(self) -> str:
        if self.router is None:
            return ">"
        return "/".join((self.router, *self.path)) + ">"

    @staticmethod
    def _serving(engine: Any) -> dict[str, str | None]:
        """Per HA router, the serving instance and when its process started (a reboot of the same
        instance is a new connection too)."""
        core = engine.kernel()
        out: dict[str, str | None] = {}
        for r in ha.routers(core):
            name = ha.serving_instance(core, r)
            out[r] = None if name is None else f"{name}@{core.node(r, name).started_ms}"
        return out

    def restart(self) -> None:
        self.router, self.path, self.ended = None, (), False

    def read(self, line: str) -> Reading:
        """The grammar's reading of the line (its words, for the CLI's own checks)."""
        words = line.split()
        if not words:
            return Reading(self, line, (words, None), masked=line)
        parsed = self.lab.parser.parse(MODE, line)
        if isinstance(parsed, Parsed):
            return Reading(self, line, (words, parsed), parsed, mask_parsed(self.lab.parser, MODE, line, parsed))
        return Reading(self, line, (words, parsed))

    def plan(self, reading: Reading) -> Outcome | Plan:
        words, parsed = reading.data
        first = words[0] if words else ""
        def attempt(engine: Any, plan: Plan) -> tuple[dict[str, str | None], Outcome | None, Any]:
            # Fresh on every attempt (the store runs it again after another shell wrote first):
            # the notices are decided on the caught-up lab and applied only after the commit.
            now = self._serving(engine)
            notices, cancelled, router = self._notices(now, first)
            plan.notes, plan.data = notices, (now, router)
            if cancelled:
                return now, Outcome("\n".join(notices), False, "", "engine"), router
            if parsed is None:
                return now, Outcome("\n".join(notices), True), router
            if isinstance(parsed, ParseError):
                text = f"Invalid command, please try '{USAGE.get(first, 'help')}'"
                return now, Outcome("\n".join([*notices, text]), False, "", parsed.kind), router
            command = parsed.leaf.command
            if router is None and first not in LOCAL:   # the CLI's own refusal: no router to ask
                raise EngineError("swift_no_router")
            self.authorize(command)   # the router's, before it runs
            return now, self.handle(engine, command, dict(parsed.leaf.args), {"router": router or ""}), router

        return Plan(reading.line, attempt, parsed.leaf.command.node if isinstance(parsed, Parsed) else "")

    def output(self, plan: Plan, value: Any) -> str:
        result = value[1]
        return "" if result is None or isinstance(result, Outcome) else render(result)

    def denied_text(self, syntax: str, access: Access, vpn: str | None) -> str:
        return NOT_GRANTED

    def error_text(self, plan: Plan, text: str) -> str:
        """A refused request still saw the listener's notices: they print first and their effect
        on the chosen router holds (the lab did not change)."""
        if plan.data is not None:
            self._saw(*plan.data)
        return "\n".join([*plan.notes, text])

    def _saw(self, now: dict[str, str | None], router: str | None) -> None:
        self.seen = now
        if router != self.router:     # sr/cc are not restored after a reconnect
            self.router, self.path = router, ()

    def finish(self, plan: Plan, value: Any, text: str) -> Outcome:
        now, result, router = value
        self._saw(now, router)
        if isinstance(result, Outcome):   # the CLI's own answer, decided on the caught-up lab
            return result._replace(masked=plan.masked, clock_ms=plan.clock_ms)
        if isinstance(result, SwitchRouter):
            self.router, self.path = result.router, ()
        elif isinstance(result, ChangeContext):
            self.path = result.path
        elif isinstance(result, Bye):
            self.ended = True
        body = [*plan.notes, text] if text else list(plan.notes)
        return self.done(plan, "\n".join(body), True, None, self.ended)

    def _notices(self, now: dict[str, str | None], first: str) -> tuple[list[str], bool, str | None]:
        """The router listener's notices since the last command, whether this command was a
        request in flight when its router's connection moved (then it is cancelled), and the
        router chosen after them (None once its connection moved)."""
        notices: list[str] = []
        cancelled = False
        router = self.router
        for name, instance in now.items():
            before = self.seen.get(name)
            if instance == before:
                continue
            if before is not None:
                notices.append(UNAVAILABLE.format(router=name))
            if instance is not None:
                if name == self.router and before is not None and first not in LOCAL:
                    notices.append(CANCELLED)
                    cancelled = True
                notices.append(AVAILABLE.format(router=name))
            if name == self.router and before is not None:
                router = None
        return notices, cancelled, router
