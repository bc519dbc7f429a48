"""Named configuration objects, config-sync and the router name as the CLI prints them.

Captured layouts: `show message-vpn <v> rest rest-delivery-point *` (T23, exact: counters,
legend, the split column heads), `show config-sync` (C04: labels padded to 34, then `: `; the
Down text of T26 with its two spaces), `show router-name` (C18). The client-username,
client-profile, acl-profile and telemetry-profile tables have no capture: our layout,
non-authoritative (docs/commands.md).
"""

from __future__ import annotations

from ....renderers import renderer
from ..handlers.show_objects import (
    AclProfilesShow,
    ClientProfilesShow,
    ClientUsernamesShow,
    ConfigSyncShow,
    RestConsumerRow,
    RestConsumersDetailShow,
    RestConsumersShow,
    RestDeliveryPointsDetailShow,
    RestDeliveryPointsShow,
    RouterNameShow,
    TelemetryProfilesShow,
)
from .clock import broker_time
from .tables import colon_field, dashes, enabled_disabled, field, join_blocks, yes_no

DETAIL_COLUMN = 38  # the REST consumer and Message VPN details: labels padded to 37


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


def _up(flag: bool) -> str:
    return "Up" if flag else "Down"


@renderer(RestDeliveryPointsDetailShow)
def rest_delivery_points_detail(result: RestDeliveryPointsDetailShow) -> str:
    """Our layout (no capture): the delivery point's settings, then its consumers and bindings."""
    blocks = []
    for p in result.rows:
        block = [field("REST Delivery Point", p.name, column=DETAIL_COLUMN),
                 field("Message VPN", p.vpn, column=DETAIL_COLUMN),
                 field("Admin State", enabled_disabled(p.enabled), column=DETAIL_COLUMN),
                 field("Operational State", _up(p.up), column=DETAIL_COLUMN),
                 field("Client Profile", p.client_profile, column=DETAIL_COLUMN),
                 field("Service", p.service, column=DETAIL_COLUMN),
                 field("Vendor", p.vendor, column=DETAIL_COLUMN),
                 field("REST Consumers", len(p.consumers), column=DETAIL_COLUMN)]
        block += [field(c.name, f"{enabled_disabled(c.enabled)}, {_up(c.up)}", 2, DETAIL_COLUMN)
                  for c in p.consumers]
        block.append(field("Queue Bindings", len(p.queue_bindings), column=DETAIL_COLUMN))
        block += [field(b.queue, f"{_up(b.up)}, {b.post_request_target or '(no request target)'}", 2,
                        DETAIL_COLUMN) for b in p.queue_bindings]
        blocks.append(block)
    return "\n".join(join_blocks(blocks))


@renderer(RestConsumersShow)
def rest_consumers(result: RestConsumersShow) -> str:
    """Our table (no capture)."""
    widths = [20, 20, 18, 3, 30, 5]
    lines = [_row(["REST Consumer", "RDP Name", "Message VPN", "A O", "Remote Host", "Port"], widths),
             dashes(*widths)]
    for row in result.rows:
        c = row.consumer
        state = f"{'U' if c.enabled else 'D'} {'U' if c.up else 'D'}"
        lines.append(_row([c.name, row.rdp, row.vpn, state, c.remote_host, str(c.remote_port)], widths))
    return "\n".join(lines)


def _consumer_detail(row: RestConsumerRow) -> list[str]:
    """The codelab solace-event-enable-rest capture's labels and order; the connection failure
    part prints what a consumer that never failed to connect shows there."""
    c = row.consumer
    shutdown = "" if c.last_shutdown_ms is None else broker_time(c.last_shutdown_ms)
    return [
        field("REST Consumer Name", c.name, column=DETAIL_COLUMN),
        field("REST Delivery Point", row.rdp, column=DETAIL_COLUMN),
        field("Message VPN", row.vpn, column=DETAIL_COLUMN),
        field("Admin State", enabled_disabled(c.enabled), column=DETAIL_COLUMN),
        field("Operational State", _up(c.up), column=DETAIL_COLUMN),
        "",
        field("Last Failure"),
        field("Reason", "Shutdown" if shutdown else "N/A", 2, DETAIL_COLUMN),
        field("Time", shutdown, 2, DETAIL_COLUMN),
        field("Last Conn Failure"),
        field("Local Endpoint", "N/A", 2, DETAIL_COLUMN),
        field("Remote Endpoint", "N/A", 2, DETAIL_COLUMN),
        field("Reason", "N/A", 2, DETAIL_COLUMN),
        field("Time", "", 2, DETAIL_COLUMN),
        field("Local"),
        field("Interface", "", 2, DETAIL_COLUMN),
        field("Remote"),
        field("Host", c.remote_host, 2, DETAIL_COLUMN),
        field("Port", c.remote_port, 2, DETAIL_COLUMN),
        field("SSL", yes_no(c.ssl), 2, DETAIL_COLUMN),
        field("Outgoing Connections (up)", c.connections_up, 2, DETAIL_COLUMN),
        field("Outgoing Connections (configured)", c.outgoing_connections, 2, DETAIL_COLUMN),
    ]


@renderer(RestConsumersDetailShow)
def rest_consumers_detail(result: RestConsumersDetailShow) -> str:
    return "\n".join(join_blocks(_consumer_detail(row) for row in result.rows))


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
