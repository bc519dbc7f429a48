"""`show client <p> [message-vpn <p>] [detail]` and `show bridge <p> [message-vpn <p>] [detail]`
(reference 5.4, 3.5 end)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen
from state_store.solace.views import BridgeInfo, ClientInfo

from ....handlers import Args, HandlerContext, handler
from .show_common import check_vpn_pattern, router_of


@statically_frozen
@dataclass(frozen=True)
class ClientTable:
    now_ms: int
    rows: tuple[ClientInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class ClientDetails:
    now_ms: int
    details: tuple[ClientInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class BridgeTable:
    rows: tuple[BridgeInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class BridgeDetails:
    details: tuple[BridgeInfo, ...]


@handler("show.client")
def show_client(ctx: HandlerContext, args: Args) -> ClientDetails | ClientTable:
    """Clients connected to this router (a disconnected client is listed on no router)."""
    router = router_of(ctx)
    vpn = args.get("vpn-pattern")
    check_vpn_pattern(ctx, vpn)
    rows = tuple(ctx.router_engine.clients(router, args["client-pattern"], vpn))
    now = ctx.router_engine.now_ms()
    return ClientDetails(now, rows) if args.get("detail") else ClientTable(now, rows)


@handler("show.bridge")
def show_bridge(ctx: HandlerContext, args: Args) -> BridgeDetails | BridgeTable:
    rows = tuple(ctx.router_engine.bridges(router_of(ctx), args["bridge-pattern"], args.get("vpn-pattern")))
    return BridgeDetails(rows) if args.get("detail") else BridgeTable(rows)
