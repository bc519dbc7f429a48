"""Shows of named configuration objects, config-sync and the router name.

`show message-vpn <v> rest rest-delivery-point <p>` (T23), `show config-sync` (C04, T26) and
`show router-name` (C18) follow captures; the other layouts are ours (docs/commands.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from state_store.solace.frozen import statically_frozen
from state_store.solace.topics import name_matches
from state_store.solace.views import (
    AclProfileInfo,
    ClientProfileInfo,
    ClientUsernameInfo,
    ConfigSyncInfo,
    RestConsumerInfo,
    RestDeliveryPointInfo,
    RouterIdentity,
    TelemetryProfileInfo,
)

from ....handlers import Args, HandlerContext, handler
from .show_common import check_vpn_pattern, router_of


@statically_frozen
@dataclass(frozen=True)
class ClientUsernamesShow:
    rows: tuple[ClientUsernameInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class ClientProfilesShow:
    rows: tuple[ClientProfileInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class AclProfilesShow:
    rows: tuple[AclProfileInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class TelemetryProfilesShow:
    rows: tuple[TelemetryProfileInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class RestDeliveryPointsShow:
    rows: tuple[RestDeliveryPointInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class RestDeliveryPointsDetailShow:
    rows: tuple[RestDeliveryPointInfo, ...]


@statically_frozen
@dataclass(frozen=True)
class RestConsumerRow:
    """One REST consumer with the delivery point and VPN it belongs to."""

    vpn: str
    rdp: str
    consumer: RestConsumerInfo


@statically_frozen
@dataclass(frozen=True)
class RestConsumersShow:
    rows: tuple[RestConsumerRow, ...]


@statically_frozen
@dataclass(frozen=True)
class RestConsumersDetailShow:
    rows: tuple[RestConsumerRow, ...]


@statically_frozen
@dataclass(frozen=True)
class ConfigSyncShow:
    status: ConfigSyncInfo


@statically_frozen
@dataclass(frozen=True)
class RouterNameShow:
    identity: RouterIdentity


def _vpn(ctx: HandlerContext, args: Args) -> str:
    pattern = str(args.get("vpn-pattern") or "*")
    check_vpn_pattern(ctx, pattern)
    return pattern


@handler("show.client_usernames")
def show_client_usernames(ctx: HandlerContext, args: Args) -> ClientUsernamesShow:
    rows = ctx.router_engine.client_usernames(router_of(ctx), _vpn(ctx, args), str(args["client-username-pattern"]))
    return ClientUsernamesShow(tuple(rows))


@handler("show.client_profiles")
def show_client_profiles(ctx: HandlerContext, args: Args) -> ClientProfilesShow:
    rows = ctx.router_engine.client_profiles(router_of(ctx), _vpn(ctx, args), str(args["profile-pattern"]))
    return ClientProfilesShow(tuple(rows))


@handler("show.acl_profiles")
def show_acl_profiles(ctx: HandlerContext, args: Args) -> AclProfilesShow:
    rows = ctx.router_engine.acl_profiles(router_of(ctx), _vpn(ctx, args), str(args["profile-pattern"]))
    return AclProfilesShow(tuple(rows))


@handler("show.telemetry_profiles")
def show_telemetry_profiles(ctx: HandlerContext, args: Args) -> TelemetryProfilesShow:
    rows = ctx.router_engine.telemetry_profiles(router_of(ctx), _vpn(ctx, args), str(args["profile-pattern"]))
    return TelemetryProfilesShow(tuple(rows))


@handler("show.rest_delivery_points")
def show_rest_delivery_points(ctx: HandlerContext, args: Args) -> RestDeliveryPointsShow:
    rows = ctx.router_engine.rest_delivery_points(router_of(ctx), _vpn(ctx, args), str(args["rdp-pattern"]))
    return RestDeliveryPointsShow(tuple(rows))


@handler("show.rest_delivery_points_detail")
def show_rest_delivery_points_detail(ctx: HandlerContext, args: Args) -> RestDeliveryPointsDetailShow:
    rows = ctx.router_engine.rest_delivery_points(router_of(ctx), _vpn(ctx, args), str(args["rdp-pattern"]))
    return RestDeliveryPointsDetailShow(tuple(rows))


def _consumers(ctx: HandlerContext, args: Args) -> tuple[RestConsumerRow, ...]:
    """The REST consumers matching the pattern, by (VPN, delivery point, consumer) name."""
    pattern = str(args["rest-consumer-pattern"])
    rows = [RestConsumerRow(p.vpn, p.name, c)
            for p in ctx.router_engine.rest_delivery_points(router_of(ctx), _vpn(ctx, args))
            for c in p.consumers if name_matches(pattern, c.name)]
    return tuple(sorted(rows, key=lambda row: (row.vpn, row.rdp, row.consumer.name)))


@handler("show.rest_consumers")
def show_rest_consumers(ctx: HandlerContext, args: Args) -> RestConsumersShow:
    return RestConsumersShow(_consumers(ctx, args))


@handler("show.rest_consumers_detail")
def show_rest_consumers_detail(ctx: HandlerContext, args: Args) -> RestConsumersDetailShow:
    return RestConsumersDetailShow(_consumers(ctx, args))


@handler("show.config_sync")
def show_config_sync(ctx: HandlerContext, args: Args) -> ConfigSyncShow:
    return ConfigSyncShow(ctx.router_engine.config_sync(router_of(ctx)))


@handler("show.router_name")
def show_router_name(ctx: HandlerContext, args: Args) -> RouterNameShow:
    return RouterNameShow(ctx.router_engine.router_identity(router_of(ctx)))
