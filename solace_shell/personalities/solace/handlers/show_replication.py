"""`show message-vpn <p>`, `show message-vpn <p> replication [detail | stats]`,
`show replication [stats]` (reference 3.5, 5.4)."""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen
from state_store.solace.views import (
    ConfigSyncBridgeConfig,
    ReplicationStats,
    SystemReplication,
    VpnReplicationDetail,
    VpnReplicationRow,
)

from ....handlers import Args, HandlerContext, handler
from .show_common import router_of
from .show_service import VpnDetailShow, vpn_detail


@statically_frozen
@dataclass(frozen=True)
class VpnSummaryRow:
    name: str
    status: str          # Up | Down | Standby
    clients: int         # clients connected to this router in the VPN
    queues: int          # configured (normal) queues
    messages_spooled: int
    usage_mb: float


@statically_frozen
@dataclass(frozen=True)
class VpnSummary:
    rows: tuple[VpnSummaryRow, ...]


@statically_frozen
@dataclass(frozen=True)
class VpnReplicationTable:
    layout: str          # "B" (newer broker, default) or "A" (the older docs / seed 000)
    rows: tuple[VpnReplicationRow, ...]


@statically_frozen
@dataclass(frozen=True)
class VpnReplicationDetails:
    details: tuple[VpnReplicationDetail, ...]


@statically_frozen
@dataclass(frozen=True)
class VpnReplicationStats:
    stats: tuple[ReplicationStats, ...]


@statically_frozen
@dataclass(frozen=True)
class SystemReplicationShow:
    info: SystemReplication
    with_stats: bool
    config_sync_bridge: ConfigSyncBridgeConfig


def _status(row: VpnReplicationRow) -> str:
    """Down while the Message VPN is shut down; Standby while replication is enabled in the
    standby state (the VPN refuses clients); Up otherwise."""
    if not row.vpn_enabled:
        return "Down"
    return "Standby" if row.admin_enabled and row.role == "standby" and not row.internal else "Up"


@handler("show.message_vpn")
def show_message_vpn(ctx: HandlerContext, args: Args) -> VpnSummary | VpnDetailShow:
    """A pattern lists the VPNs; an exact name prints that VPN's detail block (C08, the codelab)."""
    router = router_of(ctx)
    engine = ctx.router_engine
    pattern = str(args["vpn-pattern"])
    if "*" not in pattern and "?" not in pattern:
        (flags,) = engine.vpn_replication(router, pattern)
        return VpnDetailShow((vpn_detail(ctx, flags.name, _status(flags)),))
    rows = []
    for flags in engine.vpn_replication(router, pattern):
        spool = engine.message_spool(router, flags.name)
        clients = engine.clients(router, "*", flags.name)
        rows.append(VpnSummaryRow(flags.name, _status(flags), len(clients), spool.queues,
                                  spool.messages_spooled, spool.usage_mb))
    return VpnSummary(tuple(rows))


@handler("show.message_vpn_replication")
def show_message_vpn_replication(
        ctx: HandlerContext, args: Args) -> VpnReplicationDetails | VpnReplicationStats | VpnReplicationTable:
    router = router_of(ctx)
    engine = ctx.router_engine
    rows = engine.vpn_replication(router, args["vpn-pattern"])
    if args.get("detail"):
        return VpnReplicationDetails(tuple(
            engine.vpn_replication_detail(router, r.name) for r in rows if not r.name.startswith("#")))
    if args.get("stats"):
        return VpnReplicationStats(tuple(
            engine.replication_stats(router, r.name) for r in rows if not r.name.startswith("#")))
    layout = engine.settings().get("layout", "B")
    return VpnReplicationTable("A" if layout == "A" else "B", tuple(rows))


@handler("show.replication")
def show_replication(ctx: HandlerContext, args: Args) -> SystemReplicationShow:
    router = router_of(ctx)
    return SystemReplicationShow(ctx.router_engine.system_replication(router), bool(args.get("stats")),
                                 ctx.router_engine.config_sync_bridge(router))
