"""Helpers shared by the show handlers (show_*.py): router and VPN-pattern checks."""

from __future__ import annotations

from state_store.errors import EngineError
from state_store.solace.topics import has_wildcard

from ....handlers import HandlerContext

__all__ = ["has_wildcard", "router_of", "check_vpn_pattern"]


def router_of(ctx: HandlerContext) -> str:
    """The router a show command looks at (show objects run only at router levels)."""
    if ctx.router is None:
        raise EngineError("router_not_found", router="")
    return ctx.router


def check_vpn_pattern(ctx: HandlerContext, pattern: str | None) -> None:
    """An exact VPN name the router does not have is refused (`ERROR: Message VPN 'X' not
    found.`); a pattern matching nothing is not an error (the table is just empty). Also
    refuses a down router, like every show."""
    ctx.router_engine.vpn_replication(router_of(ctx), pattern or "*")
