"""Handler registry: grammar handler ids -> functions that return structured results.

A handler never prints: it reads or changes the engine and returns a dataclass (or None); a
renderer turns that into CLI text. ``load_all`` registers every handler: this package's shared
ones (the lab console's verbs, the HA failure verbs), the Solace router CLI's
(solace_shell/personalities/solace/handlers) and each HA system's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grammar.model import Command
    from state_store.solace.engine import Engine

    from ..session import Session

Args = dict[str, Any]


@dataclass(slots=True)  # one per command step
class HandlerContext:
    engine: Engine
    router: str | None            # hostname of the session's router (None at the lab console)
    user: str
    session: Session
    context: dict[str, str] = field(default_factory=dict)   # what the levels carry: vpn, queue, topic

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
HANDLERS: dict[str, Handler] = {}


def handler(handler_id: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        if handler_id in HANDLERS:
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


@functools.cache
def load_own() -> dict[str, Handler]:
    """Import this package's handler modules and the router CLI's (the lab's own commands);
    returns the registry. An HA system's handlers are registered when one of its commands first
    runs (``handler_for``). Once per process: the registry is process-wide, and scanning the
    package again for every Lab cost replay time."""
    from ..personalities.plugin import import_modules, register_root

    import_modules(__name__)
    register_root("handlers")   # the root model's CLI (the router CLI): its own handlers
    return HANDLERS


def load_all() -> dict[str, Handler]:
    """Every handler: the lab's own and every registered HA system's; returns the registry."""
    load_own()
    from ..personalities.plugin import register_all

    register_all()
    return HANDLERS


def handler_for(command: Command) -> Handler:
    """The function of a grammar command's handler, registering the HA system that declares the
    command first (``personalities.plugin.register``); a handler that does not exist is the
    installation's problem, raised as ``RegistryError`` with the command's file and line."""
    fn = HANDLERS.get(command.handler)
    if fn is None and command.system:
        from ..personalities.plugin import register

        register(command.system)
        fn = HANDLERS.get(command.handler)
    if fn is None:
        from ..registries import RegistryError

        raise RegistryError([f"{command.source}: handler {command.handler!r} does not exist"])
    return fn
