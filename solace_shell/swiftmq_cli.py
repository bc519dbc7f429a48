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
come from grammar/data/commands/swiftmq-cli.yaml through the shared parser.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from grammar import ParseError
from state_store.errors import EngineError
from state_store.swiftmq import lab as ha

from .access import UserAccess
from .handlers import HANDLERS, HandlerContext
from .handlers.swiftmq_cli import Bye, ChangeContext, SwitchRouter
from .messages import engine_error_text, shell_error_text
from .renderers import render
from .results import Outcome

if TYPE_CHECKING:
    from .lab import Lab

log = logging.getLogger(__name__)

SWIFTMQ_TARGET = "swiftmq"
MODE = "swiftmq"
LOCAL = frozenset({"sr", "ar", "help", "exit"})   # answered by the CLI itself, not sent to a router
USAGE = {"sr": "sr <router>", "cc": "cc <context>", "lc": "lc [<context>]", "set": "set <prop> [<value>]"}
UNAVAILABLE = "Router '{router}' is unavailable for administration."
AVAILABLE = "Router '{router}' is available for administration."
CANCELLED = "Reconnect occured: Request cancelled."


class SwiftMqCli:
    def __init__(self, lab: Lab, user: UserAccess) -> None:
        self.lab = lab
        self.host = SWIFTMQ_TARGET
        self.user = user
        self.mode = MODE
        self.paging = False
        self.context: dict[str, str] = {}
        self.router: str | None = None
        self.path: tuple[str, ...] = ()
        self.ended = False
        with lab.store.transaction() as engine:
            self.seen = self._serving(engine)

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

    def execute(self, line: str) -> Outcome:
        if self.ended:
            self.restart()
        words = line.split()
        first = words[0] if words else ""
        notices: list[str] = []
        try:
            with self.lab.store.transaction() as engine:
                notices, cancelled = self._notices(engine, first)
                if cancelled:
                    return Outcome("\n".join(notices), False, "", "engine")
                if not words:
                    return Outcome("\n".join(notices), True)
                parsed = self.lab.parser.parse(MODE, line)
                if parsed is None:
                    return Outcome("\n".join(notices), True)
                if isinstance(parsed, ParseError):
                    usage = USAGE.get(first, "help")
                    text = f"Invalid command, please try '{usage}'"
                    return Outcome("\n".join([*notices, text]), False, "", parsed.kind)
                command = parsed.leaf.command
                ctx = HandlerContext(engine=engine, router=None, user=self.user.name, session=self)  # type: ignore[arg-type]
                result = HANDLERS[command.handler](ctx, dict(parsed.leaf.args))
                text = "" if result is None else render(result)
        except EngineError as exc:
            return Outcome("\n".join([*notices, engine_error_text(exc)]), False, "", "engine")
        except Exception as exc:  # a bug must not cost the user their session or their lab
            log.exception("internal error running %r", line)
            return Outcome(shell_error_text("internal", detail=type(exc).__name__), False, "", "internal")
        if isinstance(result, SwitchRouter):
            self.router, self.path = result.router, ()
        elif isinstance(result, ChangeContext):
            self.path = result.path
        elif isinstance(result, Bye):
            self.ended = True
        body = [*notices, text] if text else notices
        return Outcome("\n".join(body), True, command.node, None, self.ended)

    def _notices(self, engine: Any, first: str) -> tuple[list[str], bool]:
        """The router listener's notices since the last command, and whether this command was
        a request in flight when its router's connection moved (then it is cancelled)."""
        now = self._serving(engine)
        notices: list[str] = []
        cancelled = False
        for router, instance in now.items():
            before = self.seen.get(router)
            if instance == before:
                continue
            if before is not None:
                notices.append(UNAVAILABLE.format(router=router))
            if instance is not None:
                if router == self.router and before is not None and first not in LOCAL:
                    notices.append(CANCELLED)
                    cancelled = True
                notices.append(AVAILABLE.format(router=router))
            if router == self.router and before is not None:
                self.router, self.path = None, ()   # sr/cc are not restored after a reconnect
        self.seen = now
        return notices, cancelled
