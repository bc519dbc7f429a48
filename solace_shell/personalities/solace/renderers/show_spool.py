"""Queue and message-spool show output.

- `show queue` summary: verbatim from reference 5.1 (two real captures): a blank line after the
  echo, the Flags Legend, two-line rows (name alone, then VPN 25 wide and the columns 11/10/10/5
  and the 7 flags).
- `show queue <q> message-vpn <v>` / `... detail`: labels padded to 37, then `: ` (reference 5.1,
  seed 000 step 3); labels beyond the seed's four follow the checklists [INFER order].
- `show queue <q> messages` [INFER]: the queue, then one row per message (id 20, replication group
  message id 24, size 8, age 8, topic).
- `show message-spool [message-vpn <v>] [detail]` [INFER]: the fields of reference 5.2 in the
  `Label:` column style (values at column 36).
"""

from __future__ import annotations

from state_store.solace.views import QueueDetail

from ....durations import ago
from ....renderers import renderer
from ..handlers.show_spool import (
    MESSAGES_LIMIT,
    MessageSpoolShow,
    QueueDetails,
    QueueMessages,
    QueueTable,
)
from .flags import queue_flags
from .tables import colon_field, dashes, field, join_blocks, mb2, mb4, text, yes_no

QUEUE_LEGEND = (
    "Flags Legend:",
    "I - Ingress Admin State (U=Up, D=Down)",
    "E - Egress  Admin State (U=Up, D=Down)",
    "A - Access-Type         (E=Exclusive, N=Non-Exclusive)",
    "S - Selector            (Y=Yes, N=No)",
    "R - Redundancy          (P=Primary, B=Backup)",
    "D - Durability          (D=Durable, N=Non-Durable)",
    "P - Priority            (Y=Yes, N=No)",
)
QUEUE_HEADER = (
    "Queue Name                   Messages      Spool             Bind Status",
    "Message VPN                   Spooled  Usage(MB)   HWM (MB) Count I E A S R D P",
    "------------------------- ----------- ---------- ---------- ----- -------------",
)


@renderer(QueueTable)
def queue_table(result: QueueTable) -> str:
    lines = [*QUEUE_LEGEND, "", *QUEUE_HEADER]
    for r in result.rows:
        lines.append(r.name)
        lines.append(f"{r.vpn:<25} {r.messages_spooled:>11} {mb2(r.usage_mb):>10} {mb2(r.hwm_mb):>10} "
                     f"{r.bind_count:>5} {queue_flags(r)}")
    return text(lines)


def _words(value: str) -> str:
    """`no-access` -> `No-Access`, `exclusive` -> `Exclusive`."""
    return "-".join(part.capitalize() for part in value.split("-"))


def _queue_detail(d: QueueDetail) -> list[str]:
    lines = [
        colon_field("Name", d.name),
        colon_field("Message VPN", d.vpn),
        colon_field("Durability", "Durable" if d.durable else "Non-Durable"),
        colon_field("Type", "Primary"),  # no backup queues in the emulator
        colon_field("Ingress Config Status", "Up" if d.ingress_up else "Down"),
        colon_field("Egress Config Status", "Up" if d.egress_up else "Down"),
        colon_field("Access Type", _words(d.access_type)),
        colon_field("Owner", d.owner),
        colon_field("All Other Permission", _words(d.permission)),
        colon_field("Quota (MB)", d.max_spool_mb),
        colon_field("Max Bind Count", d.max_bind_count),
        colon_field("Bind Count", d.bind_count),
        colon_field("Reject Msg To Sender On Discard", yes_no(d.reject_msg_to_sender_on_discard)),
        colon_field("Current Messages Spooled", d.messages_spooled),
        colon_field("Current Spool Usage (MB)", mb4(d.usage_mb)),
        colon_field("High Water Mark (MB)", mb4(d.hwm_mb)),
    ]
    subs = d.subscriptions or ("",)
    lines.append(colon_field("Topic Subscriptions", subs[0]))
    lines += [" " * 39 + s for s in subs[1:]]
    return lines


@renderer(QueueDetails)
def queue_details(result: QueueDetails) -> str:
    return text(join_blocks(_queue_detail(d) for d in result.details))


MESSAGE_HEADER = (
    f"{'Message Id':>20} {'Replication Group Msg Id':>24} {'Size(B)':>8} {'Age':>8} Topic",
    dashes(20, 24, 8, 8, 30),
)


@renderer(QueueMessages)
def queue_messages(result: QueueMessages) -> str:
    blocks = []
    for q in result.queues:
        lines = [field("Queue Name", q.queue), field("Message VPN", q.vpn),
                 field("Messages Spooled", q.total), "", *MESSAGE_HEADER]
        for m in q.messages:
            age = ago((result.now_ms - m.spooled_ms) // 1000)
            topic = m.topic + (" (in transaction)" if m.locked_by_transaction else "")
            lines.append(f"{m.msg_id:>20} {m.replication_group_msg_id:>24} {m.size:>8} {age:>8} {topic}")
        if len(q.messages) >= MESSAGES_LIMIT and q.total > len(q.messages):
            lines.append(f"(first {len(q.messages)} messages shown)")
        blocks.append(lines)
    return text(join_blocks(blocks))


@renderer(MessageSpoolShow)
def message_spool(result: MessageSpoolShow) -> str:
    s = result.spool
    operational = "AD-Active" if s.router_up else "AD-Disabled"
    sync = "Synced"
    if s.ha_spool_status is not None:  # a redundancy group's member: its own spool's status (C10)
        operational = s.ha_spool_status
        sync = "Synced" if operational == "AD-Active" else "Unknown"
    if s.vpn is not None:
        lines = [
            field("Message VPN", s.vpn),
            field("Operational Status", operational),
            field("Maximum Spool Usage (MB)", s.max_spool_mb),
            field("Current Spool Usage (MB)", mb4(s.usage_mb)),
            field("High Water Mark (MB)", mb4(s.hwm_mb)),
            field("Messages Currently Spooled", s.messages_spooled),
            field("Current Queues", s.queues),
            field("Current Transactions", s.transactions),
        ]
        return text(lines)
    lines = [
        field("Config Status", f"Enabled ({s.ha_role or 'Primary'})"),
        field("Maximum Spool Usage", f"{s.max_spool_mb} MB"),
        field("Using Internal Disk", "Yes"),
        "",
        field("Operational Status", operational),
        field("Datapath Status", "Up" if s.router_up and operational == "AD-Active" else "Down"),
        field("Synchronization Status", sync),
        field("Spool-Sync Status", sync),
    ]
    if result.detail:
        lines += [field("Defragmentation Status", "Idle"), field("Disk Contents", "Ready")]
    lines += [
        "",
        field("Current Spool Usage (MB)", mb4(s.usage_mb)),
        field("High Water Mark (MB)", mb4(s.hwm_mb)),
        field("Messages Currently Spooled", s.messages_spooled),
        field("Current Queues", s.queues),
        field("Current Transactions", s.transactions),
    ]
    return text(lines)
