"""Handler registry: grammar handler ids -> functions that return structured results.

A handler never prints: it reads or changes the engine and returns a dataclass (or None); a
renderer turns that into CLI text. This module is the registry only: the shell's loader
(``solace_shell.loader``) imports the handler modules, this package's shared ones (the lab
console's verbs, the HA failure verbs), the router CLI's and those of each system a lab
holds, and each registers itself with ``@handler``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from state_store.systems import ROUTER_CLI

from ..lazy_registry import LazyRegistry

if TYPE_CHECKING:
    from grammar.model import Command
    from state_store.lab_root.engine import RootEngine as Engine
    from state_store.solace.engine import Engine as RouterEngine

    from ..access import UserAccess

from ..personalities.host import LabHost

Args = dict[str, Any]
_ROUTER_CLI = ROUTER_CLI.name


class ConsoleLab(LabHost, Protocol):
    """What a handler may ask of the lab (``solace_shell.lab.Lab`` is the one; the lab console's
    grading verbs, which need the whole lab, take it as that)."""

    def systems(self) -> list[str]: ...
    def routers(self) -> list[str]: ...


class HandlerSession(Protocol):
    """What a handler may ask of the CLI session it runs in (``solace_shell.session.Session`` is
    one). Why a Protocol: the session runs the handlers, so a handler module that imported it would
    close an import circle."""

    @property
    def lab(self) -> ConsoleLab: ...
    @property
    def user(self) -> UserAccess: ...


@dataclass(slots=True)  # one per command step
class HandlerContext:
    engine: Engine
    router: str | None            # hostname of the session's router (None at the lab console)
    user: str
    session: HandlerSession
    context: dict[str, str] = field(default_factory=dict)   # what the levels carry: vpn, queue, topic

    @property
    def router_engine(self) -> RouterEngine:
        """The router CLI's engine (the section of ``state_store.systems.ROUTER_CLI``; over an
        empty section in a lab without routers: ``RootEngine.system_view``), which that CLI's
        handlers and the lab console's replication verbs drive; the lab's own calls (clock,
        settings, users, failures) are ``engine``'s."""
        found: RouterEngine = self.engine.views[_ROUTER_CLI]  # (system_view, one lookup)
        return found

    @property
    def vpn(self) -> str | None:
        return self.context.get("vpn")

    def router_and_vpn(self) -> tuple[str, str]:
        """The router and the VPN a level below `message-vpn` / `message-spool` carries."""
        if self.vpn is None:  # the grammar offers these commands only at levels that carry a VPN
            from state_store.errors import EngineError

            raise EngineError("vpn_not_found", vpn="", router=self.router)
        return self.router or "", self.vpn


Handler = Callable[[HandlerContext, Args], Any]
HANDLERS: LazyRegistry[str, Handler] = LazyRegistry()


def handler(handler_id: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        if HANDLERS.registered(handler_id):
            raise RuntimeError(f"handler {handler_id} registered twice")
        HANDLERS[handler_id] = fn
        return fn
    return register


def chosen_keyword(args: Args, *words: str) -> str:
    """Which of `{a | b}`'s keywords the line used (the parser guarantees exactly one)."""
    for word in words:
        if args.get(word):
            return word
    from state_store.errors import EngineError

    raise EngineError("invalid_value", name="/".join(words), value="", allowed="|".join(words))


def handler_for(command: Command) -> Handler:
    """The function of a grammar command's handler. The loader registered the handlers of every
    system the lab holds when the lab opened, so a handler that does not exist is the
    installation's problem, raised as ``RegistryError`` with the command's file and line."""
    fn = HANDLERS.get(command.handler)
    if fn is None:
        from ..registry_error import RegistryError

        raise RegistryError([f"{command.source}: handler {command.handler!r} does not exist"])
    return fn
