"""The lab console's SwiftMQ HA verbs: `ha ...` (instances, ha.state, System.out, audit, CLI) and
`jms ...` (JMS clients). They act on the engine's HA core through `state_store.swiftmq.operations` and
return its views; lab_renderers.py prints them in the forms docs/lab.md documents."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.kernel import AuditTotals, Finding
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


@dataclass(frozen=True)
class HaRouters:
    now_ms: int
    routers: tuple[RouterView, ...]


@dataclass(frozen=True)
class HaAudit:
    totals: AuditTotals
    findings: tuple[Finding, ...]


@handler("lab_swiftmq.state")
def state(ctx: HandlerContext, args: Args) -> HaRouters:
    core = ctx.engine.kernel()
    names = [str(args["ha-router"])] if "ha-router" in args else ha.routers(core)
    if not names:
        from state_store.errors import EngineError

        raise EngineError("no_ha_router")
    return HaRouters(ctx.engine.now_ms(), tuple(ha.router_view(core, n) for n in names))


@handler("lab_swiftmq.file")
def file(ctx: HandlerContext, args: Args) -> HaFile:
    write = str(args["ha-state"]) if "ha-state" in args else None
    delete = bool(args.get("delete"))
    if delete or write is not None:
        return ctx.engine.kernel_call("swiftmq.file", str(args["ha-instance"]), delete, write)  # type: ignore[no-any-return]
    return ha.ha_file(ctx.engine.kernel(), str(args["ha-instance"]))


@handler("lab_swiftmq.log")
def log(ctx: HandlerContext, args: Args) -> InstanceLog:
    return ha.instance_log(ctx.engine.kernel(), str(args["ha-instance"]))


@handler("lab_swiftmq.audit")
def audit(ctx: HandlerContext, args: Args) -> HaAudit:
    core = ctx.engine.kernel()
    group = ha.router(core, str(args["ha-router"])) if "ha-router" in args else None
    totals, findings = core.audit(group)
    return HaAudit(totals, findings)


@handler("lab_swiftmq.cli")
def cli(ctx: HandlerContext, args: Args) -> SwitchTarget:
    from state_store.errors import EngineError

    if not ha.routers(ctx.engine.kernel()):
        raise EngineError("no_ha_router")
    return SwitchTarget(SYSTEM)


@handler("lab_swiftmq.publish")
def publish(ctx: HandlerContext, args: Args) -> JmsPublish | JmsHeld:
    return ctx.engine.kernel_call("swiftmq.publish", str(args["jms-client"]), str(args["ha-queue"]),  # type: ignore[no-any-return]
                                  int(args.get("count", 1)), not args.get("non-persistent"))


@handler("lab_swiftmq.resend")
def resend(ctx: HandlerContext, args: Args) -> JmsResend | JmsHeld:
    return ctx.engine.kernel_call("swiftmq.resend", str(args["jms-client"]))  # type: ignore[no-any-return]


@handler("lab_swiftmq.consume")
def consume(ctx: HandlerContext, args: Args) -> JmsConsume | JmsHeld:
    return ctx.engine.kernel_call("swiftmq.consume", str(args["jms-client"]), str(args["ha-queue"]),  # type: ignore[no-any-return]
                                  int(args.get("count", 1)))


@handler("lab_swiftmq.stats")
def stats(ctx: HandlerContext, args: Args) -> JmsStats:
    return ha.stats(ctx.engine.kernel(), str(args["jms-client"]))
