"""System replication: the replication mate (configure/replication/mate). Nothing prints on success.

The engine refuses a mate change while replication is enabled on any Message VPN of the router.
"""

from __future__ import annotations

from . import Args, HandlerContext, handler


@handler("config_system.mate_virtual_router_name")
def mate_virtual_router_name(ctx: HandlerContext, args: Args) -> None:
    router = ctx.router or ""
    if args.get("no"):
        ctx.engine.set_replication_mate(router, "virtual-router-name", None)
        return
    ctx.engine.set_replication_mate(router, "virtual-router-name", str(args["virtual-router-name"]))
    if args.get("connect-via"):
        ctx.engine.set_replication_mate(router, "connect-via", str(args["connect-via"]))


@handler("config_system.mate_connect_via")
def mate_connect_via(ctx: HandlerContext, args: Args) -> None:
    value = None if args.get("no") else str(args["connect-via"])
    ctx.engine.set_replication_mate(ctx.router or "", "connect-via", value)
