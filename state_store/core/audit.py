"""Audit findings over the ledger: what each message became, grouped by outcome and reason.

Why: a drill is judged by its consequence (lost or duplicated messages) and by whether the product
allows it: SwiftMQ promises no loss and no duplicate for persistent messages, while a non-persistent
message in transit at a failover may be lost. A finding carries a kind, a count, a reason code and
the message ids, never text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .ledger import Ledger

# (group, kind, reason) -> does the group's product allow it (a documented consequence)?
Allows = Callable[[str, str, str], bool]


@dataclass(frozen=True)
class Finding:
    group: str
    kind: str                  # loss | duplicate | discarded-resend
    count: int
    reason: str                # a reason code (the shell renders it)
    message_ids: tuple[int, ...]
    origin_keys: tuple[str, ...]
    allowed: bool              # documented by the product (e.g. non-persistent in transit) or a violation


@dataclass(frozen=True)
class AuditTotals:
    published: int
    delivered: int
    duplicated: int
    lost: int
    stored: int
    discarded: int


def audit(ledger: Ledger, allows: Allows, group: str | None = None) -> tuple[AuditTotals, tuple[Finding, ...]]:
    msgs = [m for m in ledger.messages.values() if group is None or m.group == group]
    delivered = duplicated = lost = stored = 0
    findings: dict[tuple[str, str, str], list[int]] = {}
    for m in sorted(msgs, key=lambda m: m.id):
        seen = [d for d in ledger.deliveries_of(m.id) if not d.discarded]
        if seen:
            delivered += 1
            if len(seen) > 1:
                duplicated += 1
                findings.setdefault((m.group, "duplicate", "delivered-twice"), []).append(m.id)
        elif ledger.holders(m.id):
            stored += 1
        else:
            lost += 1
            findings.setdefault((m.group, "loss", m.dropped or "unknown"), []).append(m.id)
    discarded = [r for r in ledger.discarded_resends
                 if group is None or ledger.messages[r[1]].group == group]
    for r in discarded:
        findings.setdefault((ledger.messages[r[1]].group, "discarded-resend", "duplicate-detection"), []).append(r[1])
    out = tuple(
        Finding(g, kind, len(ids), reason, tuple(ids), tuple(ledger.messages[i].origin_key for i in ids),
                allows(g, kind, reason))
        for (g, kind, reason), ids in sorted(findings.items())
    )
    return AuditTotals(len(msgs), delivered, duplicated, lost, stored, len(discarded)), out
