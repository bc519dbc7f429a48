"""`show transaction` output, verbatim from reference 4.1 (seed 000).

Summary: legend heading without a colon, two-line rows (XID alone; then Message VPN 45 wide, the
T S R flags, Last State Change 17 wide right-aligned as an age like `1s`, Messages Spooled 8 wide
right-aligned). A local transaction has no XID: its first line is `N/A` [INFER].
Detail: the docs' flattened `Label: value` lines (real alignment unknown, so the seed text is
reproduced as printed), then the Publisher Messages / Consumer Messages tables whose dashed rules
are 20/59 and 20/5/53 wide; their rows are single-spaced as in the docs. A heuristically completed
transaction adds `Heuristic Outcome:` after `State:` [INFER].
"""

from __future__ import annotations

from state_store.solace.views import TransactionInfo

from ....durations import ago, dhms
from ....renderers import renderer
from ..handlers.show_transaction import TransactionDetails, TransactionTable
from .flags import transaction_flags
from .tables import dashes, join_blocks, text, yes_no

LEGEND = (
    "Flags Legend",
    "T - Transaction Type (X=XA L=Local)",
    "S - Transaction State (A=Active S=Suspended I=Idle P=Prepared C=Complete)",
    "R - Replicated (Y=Yes N=No)",
)
HEADER = (
    f"{'XID':<70}Messages",
    f"{'Message VPN':<45} T S R Last State Change  Spooled",
    dashes(45, 1, 1, 1, 17, 8),
)


@renderer(TransactionTable)
def transaction_table(result: TransactionTable) -> str:
    lines = [*LEGEND, *HEADER]
    for t in result.rows:
        lines.append(t.xid if t.xid is not None else "N/A")
        lines.append(f"{t.vpn:<45} {transaction_flags(t)} {ago(t.last_state_change_ms // 1000):>17} "
                     f"{t.messages_spooled:>8}")
    return text(lines)


def _detail(t: TransactionInfo) -> list[str]:
    lines = [
        f"XID: {t.xid if t.xid is not None else 'N/A'}",
        f"Message VPN: {t.vpn}",
        f"Client: {t.client_name}/{t.client_num}/#000c{t.client_num:04d}",
        f"Client Username: {t.client_username}",
        "Session: N/A",
        "Idle Timeout: 0",
        f"Type: {'XA' if t.kind == 'xa' else 'Local'}",
        f"State: {t.state.upper()}",
    ]
    if t.heuristic:
        lines.append(f"Heuristic Outcome: {t.heuristic.title()}")
    lines += [
        f"Replicated: {yes_no(t.mirrored)}",
        f"Last State Change: {dhms(t.last_state_change_ms // 1000)}",
        f"Messages: {t.messages_spooled}",
        f"Messages Published: {t.messages_published}",
        f"Messages Consumed: {t.messages_consumed}",
        "Publisher Messages:",
        "Message Id Topic",
        dashes(20, 59),
    ]
    lines += [f"{m.msg_id if m.msg_id is not None else 'N/A'} {m.topic}" for m in t.published]
    lines += ["Consumer Messages:", "Message Id Type Endpoint Name", dashes(20, 5, 53)]
    lines += [f"{m.msg_id} {m.endpoint_type} {m.endpoint_name}" for m in t.consumed]
    return lines


@renderer(TransactionDetails)
def transaction_details(result: TransactionDetails) -> str:
    return text(join_blocks(_detail(t) for t in result.details))
