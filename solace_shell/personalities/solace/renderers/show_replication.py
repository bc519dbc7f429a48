"""Message VPN and replication show output.

- `show message-vpn <p> replication`: Layout B (reference 3.5, real capture) by default; Layout A
  (the older docs, seed 000, with its 9 dash groups kept as printed) when the lab setting
  `layout` is `A`.
- `... replication detail` [INFER, reference suggestion]: `Label:` values at column 36.
- `show replication [stats]`: the appliance layout of reference 3.5 [FIX]; the statistics block
  (docs labels, too long for column 36) puts its values at column 48 [INFER].
- `show message-vpn <p>` [INFER]: one row per VPN: name (32), Status (Up/Standby/Down), clients
  connected here, queues, messages spooled and spool usage.
"""

from __future__ import annotations

from state_store.solace.views import ReplicationStats, VpnReplicationDetail

from ....renderers import renderer
from ..handlers.show_replication import (
    SystemReplicationShow,
    VpnReplicationDetails,
    VpnReplicationStats,
    VpnReplicationTable,
    VpnSummary,
)
from .flags import vpn_replication_flags
from .tables import (
    VALUE_COLUMN,
    continuation,
    dashes,
    enabled_disabled,
    field,
    join_blocks,
    mb2,
    mb4,
    text,
    yes_no,
)

LEGEND_B = (
    "Flags Legend:",
    "A - Admin State (U=Up, D=Down, -=N/A)",
    "C - Config State (A=Active, S=Standby, -=N/A)",
    "B - Local Bridge State (U=Up, Q=Queue Unbound, D=Down, -=N/A)",
    "R - Remote Bridge State (U=Up, D=Down, -=N/A)",
    "Q - Queue State (U=Up, D=Down, -=N/A)",
    "S - Sync Replication Eligible (Y=Yes, N=No, -=N/A)",
    "M - Reject Msg When Sync Ineligible (Y=Yes, N=No, -=N/A)",
    "T - Transaction Replication Mode (A=Async, S=Sync, -=N/A)",
)
LEGEND_A = (
    "Flags Legend:",
    "A - Admin State (U=Up, D=Down)",
    "C - Config State (A=Active, S=Standby)",
    "B - Local Bridge State (U=Up, Q=Queue Unbound, D=Down, -=N/A)",
    "R - Remote Bridge State (U=Up, D=Down, -=N/A)",
    "Q - Queue State (U=Up, D=Down, -=N/A)",
    "S - Sync Replication Eligible (Y=Yes, N=No, -=N/A)",
    "M - Reject Msg When Sync Ineligible (Y=Yes, N=No)",
    "T - Transaction Replication Mode (A=Async, S=Sync, -=N/A)",
)
NAME_WIDTH = 32
FLAGS_HEADER = "A C B R Q S M T"
STATS_COLUMN = 48


def _table_head(legend: tuple[str, ...], groups: int) -> str:
    return text([*legend, "", f"{'Message VPN':<{NAME_WIDTH}} {FLAGS_HEADER}", dashes(NAME_WIDTH, *([1] * groups))])


# The legend, header and rule of each layout, joined once: drills show this table after nearly every
# step. Layout A keeps the docs' extra dash group, as printed.
_TABLE_HEADS = {"A": _table_head(LEGEND_A, 9), "B": _table_head(LEGEND_B, 8)}


@renderer(VpnReplicationTable)
def vpn_replication_table(result: VpnReplicationTable) -> str:
    head = _TABLE_HEADS["A" if result.layout == "A" else "B"]
    return text([head, *(f"{row.name:<{NAME_WIDTH}} {vpn_replication_flags(row)}" for row in result.rows)])


@renderer(VpnSummary)
def vpn_summary(result: VpnSummary) -> str:
    lead = " " * (NAME_WIDTH + 1 + 7 + 1 + 7 + 1 + 7 + 1)
    lines = [
        f"{lead}{'Messages':>10} {'Spool':>10}",
        f"{'Message VPN':<{NAME_WIDTH}} {'Status':<7} {'Clients':>7} {'Queues':>7} {'Spooled':>10} {'Usage(MB)':>10}",
        dashes(NAME_WIDTH, 7, 7, 7, 10, 10),
    ]
    lines += [f"{r.name:<{NAME_WIDTH}} {r.status:<7} {r.clients:>7} {r.queues:>7} {r.messages_spooled:>10} "
              f"{mb2(r.usage_mb):>10}" for r in result.rows]
    return text(lines)


BRIDGE_STATES = {"up": "Up", "queue-unbound": "Queue Unbound", "down": "Down"}
INELIGIBLE_REASONS = {"remote-bridge-down": "Remote bridge down", "standby-catching-up": "Standby catching up"}


def _up_down(flag: bool | None) -> str:
    return "N/A" if flag is None else ("Up" if flag else "Down")


def _detail_block(d: VpnReplicationDetail) -> list[str]:
    f = d.flags
    # follows the S flag of the table (N/A unless the VPN has sync replicated topics)
    eligible = "N/A" if f.internal or f.sync_eligible is None else yes_no(f.sync_eligible)
    local_bridge = None if f.internal else f.local_bridge
    lines = [
        field("Message VPN", d.name),
        field("Admin State", "Up" if d.admin_enabled else "Down", 2),
        field("Config State", d.role.capitalize(), 2),
        field("Replication Mate", d.mate_router or "", 2),
        field("Sync Replication Eligible", eligible, 2),
    ]
    if d.sync_ineligible_reason is not None:
        lines.append(field("Ineligible Reason", INELIGIBLE_REASONS[d.sync_ineligible_reason], 2))
    lines += [
        field("Reject Msg When Sync Ineligible", yes_no(d.reject_msg_when_sync_ineligible), 2),
        field("Transaction Replication Mode", d.transaction_replication_mode.capitalize(), 2),
        field("Local Bridge", indent=2),
        field("Name", d.local_bridge_name, 4),
        field("State", "N/A" if local_bridge is None else BRIDGE_STATES[local_bridge], 4),
        field("Queue Bound", yes_no(local_bridge == "up"), 4),
        field("Remote Bridge", indent=2),
        field("Name", d.remote_bridge_name, 4),
        field("State", _up_down(None if f.internal else f.remote_bridge_up), 4),
        field("Queue", indent=2),
        field("Name", d.queue_name, 4),
        field("State", _up_down(None if f.internal else f.queue_bound), 4),
        field("Messages Spooled", d.queue_messages_spooled, 4),
        field("Spool Usage (MB)", mb4(d.queue_usage_mb), 4),
        field("Max Spool Usage (MB)", d.queue_max_spool_mb, 4),
        field("Reject To Sender On Discard", yes_no(d.queue_reject_msg_to_sender_on_discard), 4),
        field("ACK Propagation", indent=2),
        field("Admin State", enabled_disabled(d.ack_propagation_enabled), 4),
        field("Interval (messages)", d.ack_propagation_interval, 4),
        field("Bridge", indent=2),
        field("Authentication Scheme", "Basic" if d.bridge_auth_scheme == "basic" else "Client Certificate", 4),
        field("Client Username", d.bridge_client_username, 4),
        field("Password", "Configured" if d.bridge_password_configured else "Not Configured", 4),
        field("Compressed Data", yes_no(d.bridge_compressed), 4),
        field("SSL", yes_no(d.bridge_ssl), 4),
        field("Retry Delay (sec)", d.bridge_retry_delay, 4),
        field("Window Size", d.bridge_window_size, 4),
        field("Client Profile", d.bridge_client_profile, 4),
        field("Replicated Topics", indent=2),
    ]
    lines += [_topic_line(t.topic, t.mode) for t in d.replicated_topics]
    return lines


def _topic_line(topic: str, mode: str) -> str:
    """A replicated topic (no colon: topics may contain one) and its mode in the value column."""
    head = "    " + topic
    width = VALUE_COLUMN - 1
    return (head.ljust(width) if len(head) < width else head + " ") + mode.capitalize()


@renderer(VpnReplicationDetails)
def vpn_replication_details(result: VpnReplicationDetails) -> str:
    return text(join_blocks(_detail_block(d) for d in result.details))


def stats_lines(s: ReplicationStats) -> list[str]:
    """The statistics block (docs labels, reference 3.5), values at column 48; the three
    rejection counters close the active part [INFER]."""
    def f(label: str, value: object, indent: int) -> str:
        return field(label, value, indent, STATS_COLUMN)

    return [
        "Statistics While Active:",
        "  Message Processing:",
        f("Sync Messages Queued To Standby", s.sync_msgs_queued_to_standby, 4),
        f("Sync Messages Queued To Standby As Async", s.sync_msgs_queued_to_standby_as_async, 4),
        f("Async Messages Queued To Standby", s.async_msgs_queued_to_standby, 4),
        f("Promoted Messages Queued To Standby", s.promoted_msgs_queued_to_standby, 4),
        f("Pruned Locally Consumed Messages", s.pruned_locally_consumed_msgs, 4),
        "  Sync Replication:",
        f("Transitions To Ineligible", s.transitions_to_ineligible, 4),
        "  Ack Propagation:",
        f("Messages Sent To Standby", s.ack_msgs_sent_to_standby, 4),
        f("Reconcile Request From Standby", s.reconcile_requests_from_standby, 4),
        f("Reconcile Scan in Progress", "No", 4),
        "  Rejected Messages:",
        f("Replication Queue Full", s.rejected_repl_queue_full, 4),
        f("Sync Replication Ineligible", s.rejected_sync_ineligible, 4),
        f("Not Replicated (Queue Full)", s.not_replicated, 4),
        "Statistics While Standby:",
        "  Message Processing:",
        f("Messages Received From Active", s.msgs_received_from_active, 4),
        "  Ack Propagation:",
        f("Messages Received from Active", s.ack_msgs_received_from_active, 4),
        f("Reconcile Request Sent to Active", s.reconcile_requests_sent_to_active, 4),
        f("Out of Sequence Ack Received", s.out_of_sequence_acks_received, 4),
        "  Transaction Replication:",
        f("Transactions Received From Active", s.transactions_received_from_active, 4),
    ]


@renderer(VpnReplicationStats)
def vpn_replication_stats(result: VpnReplicationStats) -> str:
    return text(join_blocks([field("Message VPN", s.scope), ""] + stats_lines(s) for s in result.stats))


@renderer(SystemReplicationShow)
def system_replication(result: SystemReplicationShow) -> str:
    r, b = result.info, result.config_sync_bridge
    lines = [
        field("Replication Interface", r.interface),
        field("Replication Mate", r.mate_virtual_router_name),
        field("Connect-Via", r.connect_via, 2),
        field("Connect-Ports", indent=2),
        field("Plain Text", r.port_plain, 4),
        field("Compressed", r.port_compressed, 4),
        field("SSL", r.port_ssl, 4),
        "SSL:",
        field("Default Cipher Suite List", "Yes", 2),
        field("Cipher Suites", "ECDHE-RSA-AES256-GCM-SHA384", 2),
        continuation("AES256-SHA"),
        field("Trusted Common Names", indent=2),
        "",
        "ConfigSync:",
        field("Bridge", indent=2),
        # The bridge settings of `replication config-sync bridge ...` (T28). With a pre-shared key
        # the software broker's authentication lines (reference 3.5 [FIX]); "Disabled" for a
        # shut-down bridge is ours (no capture).
        field("Admin State", enabled_disabled(b.enabled), 4),
        field("State", "up" if b.enabled and r.config_sync_bridge_up else "down", 4),
        field("Authentication", indent=4),
        *([field("Pre-Shared Key", "Configured", 6),
           field("Insecure Upgrade Mode", enabled_disabled(b.insecure_upgrade_mode), 6)]
          if b.pre_shared_key_hash else [field("Scheme", "Basic", 6)]),
        field("Compressed", yes_no(b.compressed), 4),
        field("SSL", yes_no(b.ssl), 4),
        field("Message Spool", indent=4),
        field("Window Size", 65535, 6),
        field("Retry Delay", 3, 4),
        field("SSL Server Certificate Validation", indent=4),
        field("Enforce Trusted Common Name", "Yes", 6),
        field("Maximum Chain Depth", 3, 6),
        field("Validate Certificate Dates", "Yes", 6),
    ]
    if result.with_stats:
        lines += [""] + stats_lines(r.stats)
    return text(lines)
