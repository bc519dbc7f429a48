"""Show objects about the router itself: hostname and version."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen

from ....banner import product_name
from ....handlers import Args, HandlerContext, handler


@statically_frozen
@dataclass(frozen=True)
class Hostname:
    name: str


@statically_frozen
@dataclass(frozen=True)
class Version:
    product: str
    version: str
    uptime_ms: int


@handler("show.hostname")
def show_hostname(ctx: HandlerContext, args: Args) -> Hostname:
    return Hostname(ctx.router or "")


@handler("show.version")
def show_version(ctx: HandlerContext, args: Args) -> Version:
    settings = ctx.router_engine.settings()
    return Version(product_name(settings), settings["software_version"],
                   ctx.router_engine.now_ms())
