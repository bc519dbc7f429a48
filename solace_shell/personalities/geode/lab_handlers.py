"""The lab console's Geode verbs (`geode ...`): cache server failures, a lost queue-removal message,
client pools and events, logs, the audit and the way to gfsh. They act on the kernel through
`state_store.geode.operations` (changes as journaled calls) and return its views; lab_renderers.py
prints them in the forms docs/lab-geode.md documents."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.errors import EngineError
from state_store.geode import SYSTEM
from state_store.geode import operations as gf
from state_store.geode.views import (
    ClientChange,
    ClientLog,
    ClientStats,
    ClusterView,
    PutResult,
    QrmDrop,
    ServerLog,
)
from state_store.kernel import AuditTotals, Finding

from ...handlers import Args, HandlerContext, handler
from ...results import SwitchTarget
from .. import lab_verbs
from ..lab_verbs import AuditResult


@dataclass(frozen=True)
class GeodeClusters:
    clusters: tuple[ClusterView, ...]


@dataclass(frozen=True)
class GeodeAudit(AuditResult):
    """The cluster's totals, then each subscriber's: every queued event is one subscriber's."""

    clients: tuple[tuple[str, AuditTotals, tuple[Finding, ...]], ...] = ()


def _call(ctx: HandlerContext, op: str, *args: object) -> object:
    return lab_verbs.call(ctx, SYSTEM, op, *args)


@handler("lab_geode.state")
def state(ctx: HandlerContext, args: Args) -> GeodeClusters:
    names = lab_verbs.chosen_groups(ctx, args, "gf-cluster", gf.clusters, "no_gf_cluster")
    core = ctx.engine.kernel()
    return GeodeClusters(tuple(gf.cluster_view(core, n) for n in names))


@handler("lab_geode.drop_qrm")
def drop_qrm(ctx: HandlerContext, args: Args) -> QrmDrop:
    return _call(ctx, "drop_qrm", str(args["gf-server"]), str(args["gf-peer"]))  # type: ignore[return-value]


# the pool settings `geode connect` takes: grammar parameter -> PoolParams field
CONNECT_SETTINGS = {
    "gf-redundancy": "subscription_redundancy",
    "gf-ack-interval": "subscription_ack_interval_ms",
    "gf-ping-interval": "ping_interval_ms",
    "gf-read-timeout": "read_timeout_ms",
    "gf-durable-timeout": "durable_client_timeout_s",
}


@handler("lab_geode.connect")
def connect(ctx: HandlerContext, args: Args) -> ClientChange:
    settings = {field: int(str(args[param])) for param, field in CONNECT_SETTINGS.items() if param in args}
    return _call(ctx, "connect", str(args["gf-client"]), settings or None)  # type: ignore[return-value]


@handler("lab_geode.close")
def close(ctx: HandlerContext, args: Args) -> ClientChange:
    return _call(ctx, "disconnect", str(args["gf-client"]), bool(args.get("keepalive")))  # type: ignore[return-value]


@handler("lab_geode.ready")
def ready(ctx: HandlerContext, args: Args) -> ClientChange:
    return _call(ctx, "ready", str(args["gf-client"]))  # type: ignore[return-value]


@handler("lab_geode.register_interest")
def register_interest(ctx: HandlerContext, args: Args) -> ClientChange:
    return _call(ctx, "register_interest", str(args["gf-client"]), str(args["gf-region"]))  # type: ignore[return-value]


@handler("lab_geode.put")
def put(ctx: HandlerContext, args: Args) -> PutResult:
    return _call(ctx, "put", str(args["gf-client"]), str(args["gf-region"]),  # type: ignore[return-value]
                 int(str(args.get("count", 1))), str(args.get("gf-key", "k")))


@handler("lab_geode.ack")
def ack(ctx: HandlerContext, args: Args) -> ClientChange:
    return _call(ctx, "ack", str(args["gf-client"]))  # type: ignore[return-value]


@handler("lab_geode.stats")
def stats(ctx: HandlerContext, args: Args) -> ClientStats:
    return gf.stats(ctx.engine.kernel(), str(args["gf-client"]))


@handler("lab_geode.log")
def log(ctx: HandlerContext, args: Args) -> ClientLog:
    return gf.client_log(ctx.engine.kernel(), str(args["gf-client"]))


@handler("lab_geode.server_log")
def server_log(ctx: HandlerContext, args: Args) -> ServerLog:
    return gf.server_log(ctx.engine.kernel(), str(args["gf-server"]))


@handler("lab_geode.audit")
def audit(ctx: HandlerContext, args: Args) -> GeodeAudit:
    core = ctx.engine.kernel()
    names = [gf.cluster(core, str(args["gf-cluster"]))] if "gf-cluster" in args else gf.clusters(core)
    if not names:
        raise EngineError("no_gf_cluster")
    totals, findings = core.audit(names[0]) if len(names) == 1 else core.audit()
    subscribers = sorted({c for name in names for c in core.ledger.clients_in(name)})
    per = tuple((c, *core.audit(core.clients[c].group, client=c)) for c in subscribers)
    return GeodeAudit(totals, findings, per)


@handler("lab_geode.gfsh")
def gfsh(ctx: HandlerContext, args: Args) -> SwitchTarget:
    return lab_verbs.switch_to(ctx, SYSTEM, gf.clusters, "no_gf_cluster")
