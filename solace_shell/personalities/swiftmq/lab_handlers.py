"""The lab console's SwiftMQ HA verbs: `ha ...` (instances, ha.state, System.out, audit, CLI) and
`jms ...` (JMS clients). They act on the engine's HA core through `state_store.swiftmq.operations` and
return its views; lab_renderers.py prints them in the forms docs/lab.md documents."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.swiftmq import SYSTEM
from state_store.swiftmq import operations as ha
from state_store.swiftmq.views import (
    HaFile,
    InstanceLog,
    JmsConsume,
    JmsHeld,
    JmsPublish,
    JmsResend,
    JmsStats,
    RouterView,
)

from ...handlers import Args, HandlerContext, handler
from ...results import SwitchTarget
from .. import lab_verbs
from ..lab_verbs import AuditResult


@dataclass(frozen=True)
class HaRouters:
    now_ms: int
    routers: tuple[RouterView, ...]


class HaAudit(AuditResult):
    """What `ha audit` prints."""


@handler("lab_swiftmq.state")
def state(ctx: HandlerContext, args: Args) -> HaRouters:
    names = lab_verbs.chosen_groups(ctx, args, "ha-router", ha.routers, "no_ha_router")
    core = ctx.engine.kernel()
    return HaRouters(ctx.engine.now_ms(), tuple(ha.router_view(core, n) for n in names))


@handler("lab_swiftmq.file")
def file(ctx: HandlerContext, args: Args) -> HaFile:
    write = str(args["ha-state"]) if "ha-state" in args else None
    delete = bool(args.get("delete"))
    if delete or write is not None:
        return lab_verbs.call(ctx, SYSTEM, "file", str(args["ha-instance"]), delete, write)  # type: ignore[no-any-return]
    return ha.ha_file(ctx.engine.kernel(), str(args["ha-instance"]))


@handler("lab_swiftmq.log")
def log(ctx: HandlerContext, args: Args) -> InstanceLog:
    return ha.instance_log(ctx.engine.kernel(), str(args["ha-instance"]))


@handler("lab_swiftmq.audit")
def audit(ctx: HandlerContext, args: Args) -> HaAudit:
    return HaAudit(*lab_verbs.audit(ctx, args, "ha-router", ha.router))


@handler("lab_swiftmq.cli")
def cli(ctx: HandlerContext, args: Args) -> SwitchTarget:
    return lab_verbs.switch_to(ctx, SYSTEM, ha.routers, "no_ha_router")


@handler("lab_swiftmq.publish")
def publish(ctx: HandlerContext, args: Args) -> JmsPublish | JmsHeld:
    return lab_verbs.call(ctx, SYSTEM, "publish", str(args["jms-client"]), str(args["ha-queue"]),  # type: ignore[no-any-return]
                          int(args.get("count", 1)), not args.get("non-persistent"))


@handler("lab_swiftmq.resend")
def resend(ctx: HandlerContext, args: Args) -> JmsResend | JmsHeld:
    return lab_verbs.call(ctx, SYSTEM, "resend", str(args["jms-client"]))  # type: ignore[no-any-return]


@handler("lab_swiftmq.consume")
def consume(ctx: HandlerContext, args: Args) -> JmsConsume | JmsHeld:
    return lab_verbs.call(ctx, SYSTEM, "consume", str(args["jms-client"]), str(args["ha-queue"]),  # type: ignore[no-any-return]
                          int(args.get("count", 1)))


@handler("lab_swiftmq.stats")
def stats(ctx: HandlerContext, args: Args) -> JmsStats:
    return ha.stats(ctx.engine.kernel(), str(args["jms-client"]))
