"""Named configuration objects, config-sync and the router name as the CLI prints them.

Captured layouts: `show message-vpn <v> rest rest-delivery-point *` (T23, exact: counters,
legend, the split column heads), `show config-sync` (C04: labels padded to 34, then `: `; the
Down text of T26 with its two spaces), `show router-name` (C18). The client-username,
client-profile, acl-profile and telemetry-profile tables have no capture: our layout,
non-authoritative (docs/commands.md).
"""

from __future__ import annotations

from ..handlers.show_objects import (
    AclProfilesShow,
    ClientProfilesShow,
    ClientUsernamesShow,
    ConfigSyncShow,
    RestDeliveryPointsShow,
    RouterNameShow,
    TelemetryProfilesShow,
)
from . import renderer
from .tables import colon_field, dashes, enabled_disabled, field, yes_no


def _row(values: list[str], widths: list[int]) -> str:
    return " ".join(v.ljust(w) for v, w in zip(values, widths, strict=False)).rstrip()


def _action(value: str) -> str:
    return value.capitalize()


@renderer(ClientUsernamesShow)
def client_usernames(result: ClientUsernamesShow) -> str:
    widths = [32, 20, 7, 20, 20]
    lines = [_row(["Client Username", "Message VPN", "Enabled", "Client Profile", "ACL Profile"], widths),
             dashes(*widths)]
    lines += [_row([u.name, u.vpn, yes_no(u.enabled), u.client_profile, u.acl_profile], widths)
              for u in result.rows]
    return "\n".join(lines)


@renderer(ClientProfilesShow)
def client_profiles(result: ClientProfilesShow) -> str:
    widths = [32, 20, 26]
    lines = [_row(["Client Profile", "Message VPN", "Reject Msg On No Sub Match"], widths), dashes(*widths)]
    lines += [_row([p.name, p.vpn, yes_no(p.reject_msg_to_sender_on_no_subscription_match)], widths)
              for p in result.rows]
    return "\n".join(lines)


@renderer(AclProfilesShow)
def acl_profiles(result: AclProfilesShow) -> str:
    widths = [32, 20, 8, 8, 9]
    lines = [_row(["ACL Profile", "Message VPN", "Connect", "Publish", "Subscribe"], widths), dashes(*widths)]
    lines += [_row([p.name, p.vpn, _action(p.client_connect_default_action),
                    _action(p.publish_topic_default_action), _action(p.subscribe_topic_default_action)], widths)
              for p in result.rows]
    return "\n".join(lines)


@renderer(TelemetryProfilesShow)
def telemetry_profiles(result: TelemetryProfilesShow) -> str:
    lines: list[str] = []
    for p in result.rows:
        if lines:
            lines.append("")
        lines += [field("Telemetry Profile", p.name), field("Message VPN", p.vpn, 2),
                  field("Receiver", enabled_disabled(p.receiver_enabled), 2),
                  field("Receiver Connect Default Action", _action(p.receiver_acl_connect_default_action), 2),
                  field("Trace", enabled_disabled(p.trace_enabled), 2), field("Queue", p.queue, 2)]
        for f in p.filters:
            lines.append(field("Trace Filter", f"{f.name} ({enabled_disabled(f.enabled)})", 2))
            lines += [field("Subscription", topic, 4) for topic in f.subscriptions]
    return "\n".join(lines)


def _total(label: str, value: int) -> str:
    return f"{label + ':':<55}{value}"


@renderer(RestDeliveryPointsShow)
def rest_delivery_points(result: RestDeliveryPointsShow) -> str:
    rows = result.rows
    consumers = [c for p in rows for c in p.consumers]
    bindings = [b for p in rows for b in p.queue_bindings]
    lines = [
        "",  # T23: a blank line after the command, like show queue (T15)
        _total("Total REST Delivery Points (up)", sum(p.up for p in rows)),
        _total("Total REST Delivery Points (configured)", len(rows)),
        _total("Total REST Consumers (up)", sum(c.up for c in consumers)),
        _total("Total REST Consumers (configured)", len(consumers)),
        _total("Total REST Consumer Outgoing Connections (up)", sum(c.connections_up for c in consumers)),
        _total("Total REST Consumer Outgoing Connections (configured)",
               sum(c.outgoing_connections for c in consumers)),
        _total("Total Queue Bindings (up)", sum(b.up for b in bindings)),
        _total("Total Queue Bindings (configured)", len(bindings)),
        "",
        "Flags Legend:",
        "A - Admin State (U=Up, D=Down)",
        "O - Oper State (U=Up, D=Down)",
        "",
        " " * 50 + "REST",
        " " * 48 + "Consumer",
        " " * 48 + "Outgoing      Queue       Conns",
        " " * 40 + "Status    Conns      Bindings    Blocked",
        "",
        "RDP Name             Message VPN         A O    (up/conf)    (up/conf)     (%)",
        dashes(20, 18, 6, 11, 13, 7),
    ]
    for p in rows:
        conns = f"{sum(c.connections_up for c in p.consumers)} / {sum(c.outgoing_connections for c in p.consumers)}"
        binds = f"{sum(b.up for b in p.queue_bindings)} / {len(p.queue_bindings)}"
        lines.append(f"{p.name:<20} {p.vpn:<18}  {'U' if p.enabled else 'D'} {'U' if p.up else 'D'}"
                     f"{conns:>12}{binds:>12}{0:>9}")
    return "\n".join(lines)


@renderer(ConfigSyncShow)
def config_sync(result: ConfigSyncShow) -> str:
    s = result.status
    if s.oper_up:
        oper = "Up"
    elif s.out_of_sync:
        number, vpn = s.out_of_sync[0]
        oper = f"Down (local table has a problem:  ({number},Vpn,'{vpn}') [Out-Of-Sync])"
    else:
        oper = "Down"
    return "\n".join([
        "",  # C04: a blank line after the command
        colon_field("Admin Status", "Enabled" if s.admin_enabled else "Shutdown", 34),
        colon_field("Oper Status", oper, 34),
        colon_field("SSL Enabled", yes_no(s.ssl), 34),
    ])


@renderer(RouterNameShow)
def router_name(result: RouterNameShow) -> str:
    i = result.identity
    mirror = yes_no(i.mirrors_hostname)
    return "\n".join([
        "",  # C18: a blank line after the command
        f"{'Router Name:':<22}{i.router_name}", f"{'Mirroring Hostname:':<22}{mirror}", "",
        f"{'Deferred Router Name:':<22}{i.router_name}", f"{'Mirroring Hostname:':<22}{mirror}", "",
        f"{'Unique Id:':<22}{':'.join(f'{b:02x}' for b in i.unique_id.to_bytes(8, 'big'))}",
    ])
