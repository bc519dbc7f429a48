"""The lab console's SwiftMQ HA verbs: `ha ...` (instances, ha.state, System.out, audit, CLI) and
`jms ...` (JMS clients). They act on the engine's HA core through `state_store.swiftmq.lab` and
return its views; renderers/lab_swiftmq.py prints them in the forms docs/lab.md documents."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.core import AuditTotals, Finding, Message
from state_store.swiftmq import lab as ha
from state_store.swiftmq.views import (
    HaFile,
    InstanceLog,
    JmsConsume,
    JmsPublish,
    JmsResend,
    JmsStats,
    LinkChange,
    ProcessChange,
    RouterView,
)

from ..results import SwitchTarget
from . import Args, HandlerContext, handler


@dataclass(frozen=True)
class HaRouters:
    now_ms: int
    routers: tuple[RouterView, ...]


@dataclass(frozen=True)
class HaAudit:
    totals: AuditTotals
    findings: tuple[Finding, ...]
    messages: dict[int, Message]


@handler("lab_swiftmq.start")
def start(ctx: HandlerContext, args: Args) -> ProcessChange:
    return ha.start(ctx.engine.ha_core(), str(args["ha-instance"]))


@handler("lab_swiftmq.kill")
def kill(ctx: HandlerContext, args: Args) -> ProcessChange:
    return ha.kill(ctx.engine.ha_core(), str(args["ha-instance"]))


@handler("lab_swiftmq.hang")
def hang(ctx: HandlerContext, args: Args) -> ProcessChange:
    return ha.hang(ctx.engine.ha_core(), str(args["ha-instance"]))


@handler("lab_swiftmq.partition")
def partition(ctx: HandlerContext, args: Args) -> LinkChange:
    return ha.set_link(ctx.engine.ha_core(), str(args["ha-router"]), up=False)


@handler("lab_swiftmq.heal")
def heal(ctx: HandlerContext, args: Args) -> LinkChange:
    return ha.set_link(ctx.engine.ha_core(), str(args["ha-router"]), up=True)


@handler("lab_swiftmq.state")
def state(ctx: HandlerContext, args: Args) -> HaRouters:
    core = ctx.engine.ha_core()
    names = [str(args["ha-router"])] if "ha-router" in args else ha.routers(core)
    if not names:
        from state_store.errors import EngineError

        raise EngineError("no_ha_router")
    return HaRouters(ctx.engine.now_ms(), tuple(ha.router_view(core, n) for n in names))


@handler("lab_swiftmq.file")
def file(ctx: HandlerContext, args: Args) -> HaFile:
    write = str(args["ha-state"]) if "ha-state" in args else None
    return ha.ha_file(ctx.engine.ha_core(), str(args["ha-instance"]), delete=bool(args.get("delete")), write=write)


@handler("lab_swiftmq.log")
def log(ctx: HandlerContext, args: Args) -> InstanceLog:
    return ha.instance_log(ctx.engine.ha_core(), str(args["ha-instance"]))


@handler("lab_swiftmq.audit")
def audit(ctx: HandlerContext, args: Args) -> HaAudit:
    core = ctx.engine.ha_core()
    group = ha.router(core, str(args["ha-router"])) if "ha-router" in args else None
    totals, findings = core.audit(group)
    return HaAudit(totals, findings, core.ledger.messages)


@handler("lab_swiftmq.cli")
def cli(ctx: HandlerContext, args: Args) -> SwitchTarget:
    from state_store.errors import EngineError

    if not ha.routers(ctx.engine.ha_core()):
        raise EngineError("no_ha_router")
    from ..swiftmq_cli import SWIFTMQ_TARGET

    return SwitchTarget(SWIFTMQ_TARGET)


@handler("lab_swiftmq.publish")
def publish(ctx: HandlerContext, args: Args) -> JmsPublish:
    return ha.publish(ctx.engine.ha_core(), str(args["jms-client"]), str(args["ha-queue"]),
                      int(args.get("count", 1)), persistent=not args.get("non-persistent"))


@handler("lab_swiftmq.resend")
def resend(ctx: HandlerContext, args: Args) -> JmsResend:
    return ha.resend(ctx.engine.ha_core(), str(args["jms-client"]))


@handler("lab_swiftmq.consume")
def consume(ctx: HandlerContext, args: Args) -> JmsConsume:
    return ha.consume(ctx.engine.ha_core(), str(args["jms-client"]), str(args["ha-queue"]),
                      int(args.get("count", 1)))


@handler("lab_swiftmq.stats")
def stats(ctx: HandlerContext, args: Args) -> JmsStats:
    return ha.stats(ctx.engine.ha_core(), str(args["jms-client"]))
