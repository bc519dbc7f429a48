"""`show message-vpn <exact-name>` (the VPN's detail block), `show service` and
`show message-vpn <v> service`.

What the lab models fills the values (status, subscriptions, connections, the basic
authentication type, the SMF ports of the router); what it does not model prints the value the
captures show (C06, C08), as a broker with those settings at their defaults would.
"""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen
from state_store.solace.views import VpnRestService

from ....handlers import Args, HandlerContext, handler
from .show_common import router_of


@statically_frozen
@dataclass(frozen=True)
class VpnDetail:
    name: str
    enabled: bool
    local_status: str        # Up | Down | Standby
    auth_type: str           # internal | ldap | radius | none
    unique_subscriptions: int
    smf_connections: int     # clients connected to this router in the VPN
    rest_outgoing: int       # REST consumer connections up
    rest_mode: str = "messaging"


@statically_frozen
@dataclass(frozen=True)
class VpnDetailShow:
    rows: tuple[VpnDetail, ...]


@statically_frozen
@dataclass(frozen=True)
class SmfPorts:
    plain: int
    compressed: int
    ssl: int


@statically_frozen
@dataclass(frozen=True)
class VpnPorts:
    """A VPN's own listeners: its REST service (the lab's) and whether it has the broker's
    default MQTT and AMQP ports (the `default` VPN does)."""

    vpn: str
    rest: VpnRestService
    default_ports: bool


@statically_frozen
@dataclass(frozen=True)
class ServiceShow:
    """`show service`: the router's services and listen ports."""

    smf: SmfPorts
    vpns: tuple[VpnPorts, ...]


@statically_frozen
@dataclass(frozen=True)
class VpnServiceShow:
    """`show message-vpn <v> service`: the listen ports serving one VPN."""

    smf: SmfPorts
    ports: VpnPorts


def vpn_detail(ctx: HandlerContext, vpn: str, status: str) -> VpnDetail:
    """The detail block of one VPN (`status` as the VPN summary computes it)."""
    router = router_of(ctx)
    engine = ctx.router_engine
    (config,) = engine.current_config(router, vpn).vpns
    topics = {topic for q in config.queues for topic in q.subscriptions}
    clients = [c for c in engine.clients(router, "*", vpn) if c.status == "connected" and c.router == router]
    rest = sum(c.connections_up for p in config.rest_delivery_points for c in p.consumers)
    return VpnDetail(vpn, config.enabled, status, config.authentication_basic_auth_type, len(topics), len(clients),
                     rest, config.rest_service.mode)


def _smf(ctx: HandlerContext) -> SmfPorts:
    system = ctx.router_engine.system_replication(router_of(ctx))
    return SmfPorts(system.port_plain, system.port_compressed, system.port_ssl)


def _ports(ctx: HandlerContext, vpn: str | None) -> tuple[VpnPorts, ...]:
    config = ctx.router_engine.current_config(router_of(ctx), vpn)  # refuses an unknown VPN and a down router
    return tuple(VpnPorts(v.name, v.rest_service, v.name == "default") for v in config.vpns)


@handler("show.service")
def show_service(ctx: HandlerContext, args: Args) -> ServiceShow:
    return ServiceShow(_smf(ctx), _ports(ctx, None))


@handler("show.message_vpn_service")
def show_message_vpn_service(ctx: HandlerContext, args: Args) -> VpnServiceShow:
    (ports,) = _ports(ctx, str(args["vpn-name"]))
    return VpnServiceShow(_smf(ctx), ports)
