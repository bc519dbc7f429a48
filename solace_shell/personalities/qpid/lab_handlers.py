"""The lab console's Qpid HA verbs: `qpid ...` (brokers, network, resource manager, logs, audit,
the broker shell) and `amqp ...` (clients). They act on the kernel through `state_store.qpid.operations`
and return its views; lab_renderers.py prints them."""

from __future__ import annotations

from dataclasses import dataclass

from grammar.types import duration_ms
from state_store.errors import EngineError
from state_store.qpid import SYSTEM
from state_store.qpid import operations as qp
from state_store.qpid.views import (
    BrokerChange,
    BrokerLog,
    ClientConnect,
    ClientConsume,
    ClientPublish,
    ClientStats,
    ClusterView,
    ManagerChange,
)

from ...handlers import Args, HandlerContext, handler
from ...results import SwitchTarget
from .. import lab_verbs
from ..lab_verbs import AuditResult


@dataclass(frozen=True)
class QpidClusters:
    clusters: tuple[ClusterView, ...]


class QpidAudit(AuditResult):
    """What `qpid audit` prints."""


def _call(ctx: HandlerContext, op: str, *args: object) -> object:
    return lab_verbs.call(ctx, SYSTEM, op, *args)


@handler("lab_qpid.isolate")
def isolate(ctx: HandlerContext, args: Args) -> BrokerChange:
    return _call(ctx, "isolate", str(args["ha-instance"]), True)  # type: ignore[return-value]


@handler("lab_qpid.rejoin")
def rejoin(ctx: HandlerContext, args: Args) -> BrokerChange:
    return _call(ctx, "isolate", str(args["ha-instance"]), False)  # type: ignore[return-value]


@handler("lab_qpid.state")
def state(ctx: HandlerContext, args: Args) -> QpidClusters:
    names = lab_verbs.chosen_groups(ctx, args, "ha-router", qp.clusters, "qpid_no_cluster")
    core = ctx.engine.kernel()
    return QpidClusters(tuple(qp.cluster_view(core, n) for n in names))


@handler("lab_qpid.log")
def log(ctx: HandlerContext, args: Args) -> BrokerLog:
    return qp.broker_log(ctx.engine.kernel(), str(args["ha-instance"]))


@handler("lab_qpid.audit")
def audit(ctx: HandlerContext, args: Args) -> QpidAudit:
    if "ha-router" not in args and not qp.clusters(ctx.engine.kernel()):
        raise EngineError("qpid_no_cluster")
    return QpidAudit(*lab_verbs.audit(ctx, args, "ha-router", qp.cluster))


@handler("lab_qpid.manager")
def manager(ctx: HandlerContext, args: Args) -> ManagerChange:
    poll = None
    if "duration" in args:
        try:
            poll = duration_ms(str(args["duration"]))
        except ValueError:
            raise EngineError("invalid_value", name="duration", value=args["duration"],
                              allowed="250ms, 5s, 2m, 1h") from None
    return _call(ctx, "manager", str(args["ha-router"]), str(args["qpid-manager-mode"]), poll)  # type: ignore[return-value]


@handler("lab_qpid.cli")
def cli(ctx: HandlerContext, args: Args) -> SwitchTarget:
    return lab_verbs.switch_to(ctx, SYSTEM, qp.clusters, "qpid_no_cluster")


@handler("lab_qpid.connect")
def connect(ctx: HandlerContext, args: Args) -> ClientConnect:
    hosts = [h for h in str(args["amqp-hosts"]).split(",") if h]
    return _call(ctx, "connect", str(args["amqp-client"]), hosts)  # type: ignore[return-value]


@handler("lab_qpid.publish")
def publish(ctx: HandlerContext, args: Args) -> ClientPublish:
    return _call(ctx, "publish", str(args["amqp-client"]), str(args["amqp-queue"]),  # type: ignore[return-value]
                 int(args.get("count", 1)), not args.get("unsettled"))


@handler("lab_qpid.consume")
def consume(ctx: HandlerContext, args: Args) -> ClientConsume:
    return _call(ctx, "consume", str(args["amqp-client"]), str(args["amqp-queue"]),  # type: ignore[return-value]
                 int(args.get("count", 1)), not args.get("no-ack"))


@handler("lab_qpid.stats")
def stats(ctx: HandlerContext, args: Args) -> ClientStats:
    return qp.stats(ctx.engine.kernel(), str(args["amqp-client"]))
