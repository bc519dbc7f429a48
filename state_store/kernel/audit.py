"""The kernel's one audit vocabulary, and the audit of the ledger in runs.

Why one vocabulary: a drill is judged by its consequence and by whether the product allows it,
whatever the product. Every system's messages end in one of these outcomes:
- ``delivered``: the application received it once;
- ``duplicate-delivered``: the application received it more than once;
- ``duplicate-discarded``: a copy was dropped by duplicate detection (router or client);
- ``lost``: no delivery and no copy left anywhere, with the reason the last copy went;
- ``stranded``: not delivered, copies only on nodes that do not serve;
- ``expired``: dropped by its time to live;
- ``not-replicated``: accepted while no replica took it.
A finding carries an outcome, a count, a reason code and the messages as id spans, never text;
the system's policy says whether it is allowed (a documented consequence) or a violation.

The audit sweeps the boundaries of message runs, copies and deliveries once, counting each stretch
of one state at once: its cost is the number of runs, not of messages.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from . import ranges as rg
from .ledger import Ledger

DELIVERED = "delivered"
DUPLICATE_DELIVERED = "duplicate-delivered"
DUPLICATE_DISCARDED = "duplicate-discarded"
LOST = "lost"
STRANDED = "stranded"
EXPIRED = "expired"
NOT_REPLICATED = "not-replicated"
OUTCOMES = (DELIVERED, DUPLICATE_DELIVERED, DUPLICATE_DISCARDED, LOST, STRANDED, EXPIRED, NOT_REPLICATED)
# the order findings are listed in (within a group)
_LISTED = {o: i for i, o in enumerate((DUPLICATE_DISCARDED, DUPLICATE_DELIVERED, LOST, STRANDED, EXPIRED,
                                        NOT_REPLICATED))}

# (group, outcome, reason) -> does the group's product allow it (a documented consequence)?
Allows = Callable[[str, str, str], bool]


@dataclass(frozen=True)
class Span:
    """Consecutive messages of one client: ledger ids first..last and their origin keys."""

    first: int
    last: int
    first_key: str
    last_key: str


@dataclass(frozen=True)
class Finding:
    group: str
    outcome: str               # one of OUTCOMES
    count: int
    reason: str                # a reason code (the shell renders it)
    spans: tuple[Span, ...]
    allowed: bool              # documented by the product, or a violation of its promise


@dataclass(frozen=True)
class AuditTotals:
    """The message counts every system's audit reports, in the outcomes' terms (a system's own
    counts extend this class, as the Message VPN's ``state_store.solace.views.SolaceAuditTotals``).
    A system that cannot have an outcome leaves its count 0."""

    published: int
    delivered: int             # delivered at least once
    duplicated: int            # of delivered: more than once (duplicate-delivered)
    lost: int                  # never delivered, no copy left
    stored: int                # not delivered, a copy held somewhere
    discarded: int             # copies dropped by duplicate detection (duplicate-discarded)
    stranded: int = 0          # of stored: held only by nodes that do not serve
    not_replicated: int = 0    # accepted while no replica took it


def _spans(ledger: Ledger, ids: list[tuple[int, int]]) -> tuple[Span, ...]:
    """Id ranges (in the order given) as spans, joined while consecutive and of one client."""
    out: list[tuple[int, int, str]] = []
    for a, b, run in ledger.spans(ids):
        if out and out[-1][1] == a and out[-1][2] == run.client:
            out[-1] = (out[-1][0], b, run.client)
        else:
            out.append((a, b, run.client))
    return tuple(Span(a, b - 1, ledger.key(a), ledger.key(b - 1)) for a, b, _ in out)


def audit(ledger: Ledger, allows: Allows, serving: frozenset[str], group: str | None = None,
          client: str | None = None) -> tuple[AuditTotals, tuple[Finding, ...]]:
    """Totals and findings over the messages of ``group`` (all when None) published by ``client``
    (all when None); ``serving`` are the node keys that serve clients now."""
    mine = ledger.published(group, client)
    mine_starts = [a for a, _ in mine]
    # (position, delivered delta, held delta, serving-held delta)
    marks: list[tuple[int, int, int, int]] = []
    for d in ledger.deliveries:
        if not d.discarded:
            marks += [(d.first, 1, 0, 0), (d.end, -1, 0, 0)]
    for node, qs in ledger.copies.items():
        live = 1 if node in serving else 0
        for rs in qs.values():
            for a, b in rs:
                marks += [(a, 0, 1, live), (b, 0, -1, -live)]
    marks.sort()
    cuts = sorted({p for p, *_ in marks} | {p for r in mine for p in r} | {r.first for r in ledger.runs}
                  | {r.end for r in ledger.runs})
    delivered = duplicated = lost = stored = stranded = 0
    found: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    depth = held = live_held = 0
    k = 0
    for a, b in zip(cuts, cuts[1:], strict=False):
        while k < len(marks) and marks[k][0] <= a:
            depth, held, live_held = depth + marks[k][1], held + marks[k][2], live_held + marks[k][3]
            k += 1
        # every boundary of ``mine`` is a cut, so [a, b) lies wholly inside it or outside
        i = bisect_right(mine_starts, a) - 1
        if i < 0 or mine[i][1] <= a:
            continue
        for x, y, run in ledger.spans([(a, b)]):
            n = y - x
            if depth >= 1:
                delivered += n
                if depth > 1:
                    duplicated += n
                    found.setdefault((run.group, DUPLICATE_DELIVERED, "delivered-twice"), []).append((x, y))
            elif held:
                stored += n
                if not live_held:
                    stranded += n
            else:
                lost += n
                found.setdefault((run.group, LOST, run.dropped or "unknown"), []).append((x, y))
    discarded = 0
    for r in ledger.discarded_resends:
        for x, y, run in ledger.spans([(r.first, r.end)]):
            if (group is None or run.group == group) and (client is None or run.client == client):
                discarded += y - x
                found.setdefault((run.group, DUPLICATE_DISCARDED, "duplicate-detection"), []).append((x, y))
    findings = tuple(
        Finding(g, outcome, rg.size(ids), reason, _spans(ledger, ids), allows(g, outcome, reason))
        for (g, outcome, reason), ids in sorted(found.items(), key=lambda f: (f[0][0], _LISTED[f[0][1]], f[0][2])))
    return AuditTotals(rg.size(mine), delivered, duplicated, lost, stored, discarded, stranded), findings
