"""`show client` and `show bridge` output [INFER layouts; field names from reference 5.4 and the
end of 3.5].

- client summary: Client Name 24, Message VPN 24, Client Username 20, Uptime 12 right-aligned
  (`0d 0h 5m 0s`); names longer than their column push the row right (never truncated).
- client detail / bridge detail: `Label:` values at column 36.
- bridge summary: a Flags Legend, then two-line rows like `show queue` (the bridge name alone,
  then Local VPN 20, Remote VPN 20, Remote Router 20, flags A B I O Q R, Uptime 12).
"""

from __future__ import annotations

from state_store.solace.views import BridgeInfo, ClientInfo

from ....durations import dhms
from ....renderers import renderer
from ..handlers.show_client_bridge import (
    BridgeDetails,
    BridgeTable,
    ClientDetails,
    ClientTable,
)
from .flags import bridge_flags
from .tables import dashes, enabled_disabled, field, join_blocks, text, yes_no


def _uptime(c: ClientInfo, now_ms: int) -> str:
    return dhms((now_ms - c.connected_since_ms) // 1000) if c.connected_since_ms is not None else "N/A"


@renderer(ClientTable)
def client_table(result: ClientTable) -> str:
    lines = [
        f"{'Client Name':<24} {'Message VPN':<24} {'Client Username':<20} {'Uptime':>12}",
        dashes(24, 24, 20, 12),
    ]
    lines += [f"{c.name:<24} {c.vpn:<24} {c.username:<20} {_uptime(c, result.now_ms):>12}" for c in result.rows]
    return text(lines)


def _client_detail(c: ClientInfo, now_ms: int) -> list[str]:
    return [
        field("Client Name", c.name),
        field("Message VPN", c.vpn),
        field("Client Username", c.username),
        field("Status", c.status.capitalize()),
        field("Connected To", c.router or "N/A"),
        field("Uptime", _uptime(c, now_ms)),
        field("Host List", ", ".join(c.hosts)),
        field("Transacted Session", yes_no(c.transacted)),
        field("Reconnects", c.reconnects),
        field("Last Disconnect Reason", c.last_disconnect_reason or "N/A"),
    ]


@renderer(ClientDetails)
def client_details(result: ClientDetails) -> str:
    return text(join_blocks(_client_detail(c, result.now_ms) for c in result.details))


BRIDGE_LEGEND = (
    "Flags Legend:",
    "A - Admin State (U=Up, D=Down)",
    "B - Connection Establisher (L=Local, R=Remote)",
    "I - Inbound Operational State (U=Up, D=Down, -=N/A)",
    "O - Outbound Operational State (U=Up, D=Down, -=N/A)",
    "Q - Queue Operational State (U=Up, D=Down, -=N/A)",
    "R - Redundancy (P=Primary, B=Backup, A=Auto)",
)
BRIDGE_HEADER = (
    "Bridge Name",
    f"{'Local Message VPN':<20} {'Remote Message VPN':<20} {'Remote Router':<20} A B I O Q R {'Uptime':>12}",
    dashes(20, 20, 20, 11, 12),
)


INBOUND_STATES = {"up": "Ready-InSync", "queue-unbound": "Ready-Connecting", "down": "Down"}


def _remote_router(b: BridgeInfo) -> str:
    """A replication bridge's remote router is the mate's virtual router: `v:<name>`."""
    return f"v:{b.remote_router}" if b.remote_router else ""


def _uptime_s(b: BridgeInfo) -> int:
    return b.uptime_ms // 1000


@renderer(BridgeTable)
def bridge_table(result: BridgeTable) -> str:
    lines = [*BRIDGE_LEGEND, "", *BRIDGE_HEADER]
    for b in result.rows:
        lines.append(b.name)
        lines.append(f"{b.vpn:<20} {b.remote_vpn:<20} {_remote_router(b):<20} {bridge_flags(b)} "
                     f"{dhms(_uptime_s(b)):>12}")
    return text(lines)


def _bridge_detail(b: BridgeInfo) -> list[str]:
    return [
        field("Bridge Name", b.name),
        field("Message VPN", b.vpn),
        field("Admin State", enabled_disabled(b.admin_enabled)),
        field("Conn Establisher", b.establisher.capitalize()),
        field("Inbound Oper State", INBOUND_STATES[b.local_bridge]),
        field("Outbound Oper State", "NotApplicable"),
        field("Queue Oper State", "Bound" if b.queue_bound else "Unbound"),
        field("Redundancy", b.redundancy.capitalize()),
        field("Uptime", dhms(_uptime_s(b))),
        field("Remote Message VPN", b.remote_vpn),
        field("Remote Router", _remote_router(b)),
        field("Using Server Certificate", "No"),
        field("SSL", yes_no(b.ssl)),
        field("Compressed", yes_no(b.compressed)),
        "Message Spool:",
        field("Queue", b.queue_name, 2),
        field("Queue Bind State", "Up" if b.queue_bound else "Down", 2),
    ]


@renderer(BridgeDetails)
def bridge_details(result: BridgeDetails) -> str:
    return text(join_blocks(_bridge_detail(b) for b in result.details))
