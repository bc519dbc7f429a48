"""Queue configuration (configure/message-spool and its queue level). Nothing prints on success.

The VPN comes from `message-spool message-vpn <vpn>`, the queue from `create queue` / `queue`.
Engine rules: a new queue starts shut down; `no queue` only when it is shut down; the replication
queue cannot be configured here.
"""

from __future__ import annotations

from typing import Any

from state_store.errors import EngineError

from ....handlers import Args, HandlerContext, handler


def _queue(ctx: HandlerContext) -> str:
    return ctx.context["queue"]


def _option(ctx: HandlerContext, option: str, value: Any) -> None:
    router, vpn = ctx.router_and_vpn()
    ctx.router_engine.set_queue_option(router, vpn, _queue(ctx), option, value)


@handler("config_spool.create_queue")
def create_queue(ctx: HandlerContext, args: Args) -> None:
    router, vpn = ctx.router_and_vpn()
    ctx.router_engine.create_queue(router, vpn, str(args["queue-name"]))


@handler("config_spool.enter_queue")
def enter_queue(ctx: HandlerContext, args: Args) -> None:
    """Editing needs an existing, configurable queue (not the replication queue)."""
    router, vpn = ctx.router_and_vpn()
    name = str(args["queue-name"])
    if ctx.router_engine.queue_name_is_replication(name):
        raise EngineError("queue_reserved", queue=name)
    if name not in ctx.router_engine.queue_names(router, vpn):
        raise EngineError("queue_not_found", queue=name, vpn=vpn)
    if ctx.router_engine.queue_detail(router, vpn, name).kind == "telemetry":
        raise EngineError("queue_managed", queue=name)


@handler("config_spool.delete_queue")
def delete_queue(ctx: HandlerContext, args: Args) -> None:
    router, vpn = ctx.router_and_vpn()
    ctx.router_engine.delete_queue(router, vpn, str(args["queue-name"]))


@handler("config_spool.shutdown")
def shutdown(ctx: HandlerContext, args: Args) -> None:
    router, vpn = ctx.router_and_vpn()
    direction = "ingress" if args.get("ingress") else "egress" if args.get("egress") else "both"
    ctx.router_engine.set_queue_shutdown(router, vpn, _queue(ctx), not args.get("no"), direction)


@handler("config_spool.subscription")
def subscription(ctx: HandlerContext, args: Args) -> None:
    router, vpn = ctx.router_and_vpn()
    if args.get("no"):
        ctx.router_engine.remove_queue_subscription(router, vpn, _queue(ctx), str(args["topic"]))
    else:
        ctx.router_engine.add_queue_subscription(router, vpn, _queue(ctx), str(args["topic"]))


@handler("config_spool.reject_on_discard")
def reject_on_discard(ctx: HandlerContext, args: Args) -> None:
    """`[no] reject-msg-to-sender-on-discard [including-when-shutdown]`: the `no` form turns both off."""
    on = not args.get("no")
    _option(ctx, "reject-msg-to-sender-on-discard", on)
    when_shut = on and bool(args.get("including-when-shutdown"))
    _option(ctx, "reject-msg-to-sender-on-discard-including-when-shutdown", when_shut)


@handler("config_spool.vpn_max_spool")
def vpn_max_spool(ctx: HandlerContext, args: Args) -> None:
    router, vpn = ctx.router_and_vpn()
    ctx.router_engine.set_vpn_max_spool(router, vpn, None if args.get("no") else int(args["max-spool-mb"]))
