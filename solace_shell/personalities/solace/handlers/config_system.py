"""System replication (configure/replication: mate, interface, config-sync bridge) and
config-sync (configure/config-sync). Nothing prints on success.

The engine refuses a mate change while replication is enabled on any Message VPN of the router
(an unchanged value is accepted, so a saved configuration re-runs).
"""

from __future__ import annotations

from typing import Literal

from state_store.passwords import HashedSecret
from state_store.solace.config_objects import AttrValue

from ....handlers import Args, HandlerContext, chosen_keyword, handler


@handler("config_system.mate_virtual_router_name")
def mate_virtual_router_name(ctx: HandlerContext, args: Args) -> None:
    router = ctx.router or ""
    if args.get("no"):
        ctx.router_engine.set_replication_mate(router, "virtual-router-name", None)
        return
    ctx.router_engine.set_replication_mate(router, "virtual-router-name", str(args["virtual-router-name"]))
    if args.get("connect-via"):
        ctx.router_engine.set_replication_mate(router, "connect-via", str(args["connect-via"]))


@handler("config_system.mate_connect_via")
def mate_connect_via(ctx: HandlerContext, args: Args) -> None:
    value = None if args.get("no") else str(args["connect-via"])
    ctx.router_engine.set_replication_mate(ctx.router or "", "connect-via", value)
    transport: AttrValue = None
    if value is not None and any(args.get(word) for word in ("plain-text", "compressed", "ssl")):
        transport = chosen_keyword(args, "plain-text", "compressed", "ssl")
    ctx.router_engine.set_object_attr(ctx.router or "", None, "replication-mate", ("",), "transport", transport)


@handler("config_system.interface")
def interface(ctx: HandlerContext, args: Args) -> None:
    ctx.router_engine.set_replication_interface(ctx.router or "", None if args.get("no") else str(args["interface"]))


def _router_attr(ctx: HandlerContext, kind: Literal["config-sync", "replication-config-sync-bridge"],
                 attr: str, value: AttrValue) -> None:
    ctx.router_engine.set_object_attr(ctx.router or "", None, kind, ("",), attr, value)


@handler("config_system.cs_bridge_shutdown")
def cs_bridge_shutdown(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "replication-config-sync-bridge", "enabled", bool(args.get("no")))


@handler("config_system.cs_bridge_psk")
def cs_bridge_psk(ctx: HandlerContext, args: Args) -> None:
    # (the keywords of a line are in `args` too, so the values have names of their own)
    key = str(args["psk"]) if "psk" in args else HashedSecret(str(args["psk-hash"]))
    _router_attr(ctx, "replication-config-sync-bridge", "pre-shared-key", key)


@handler("config_system.cs_bridge_insecure")
def cs_bridge_insecure(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "replication-config-sync-bridge", "insecure-upgrade-mode", not args.get("no"))


@handler("config_system.cs_bridge_ssl")
def cs_bridge_ssl(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "replication-config-sync-bridge", "ssl", not args.get("no"))


@handler("config_system.cs_bridge_compressed")
def cs_bridge_compressed(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "replication-config-sync-bridge", "compressed-data", not args.get("no"))


@handler("config_system.config_sync_ssl")
def config_sync_ssl(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "config-sync", "ssl", not args.get("no"))


@handler("config_system.config_sync_shutdown")
def config_sync_shutdown(ctx: HandlerContext, args: Args) -> None:
    _router_attr(ctx, "config-sync", "enabled", bool(args.get("no")))
