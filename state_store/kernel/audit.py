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

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable
from dataclasses import dataclass, field

from . import ranges as rg
from .ledger import Ledger
from .ranges import Range

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

FoundKey = tuple[str, str, str]          # (group, outcome, reason)
# (group, outcome, reason) -> does the group's product allow it (a documented consequence)?
Allows = Callable[[str, str, str], bool]


@dataclass(frozen=True)
class Span:
    """Consecutive messages of one client: ledger ids first..last and their origin keys."""

    first: int
    last: int
    first_key: str
    last_key: str


# the spans a finding lists: a display shows fewer and marks that more follow (``SPANS_KEPT`` spans
# say there are more than ``SPANS_KEPT - 1``), so a finding's cost is not the number of its messages
SPANS_KEPT = 6


@dataclass(frozen=True)
class Finding:
    """One outcome of some messages: ``spans`` are the first ``SPANS_KEPT`` spans of its messages
    (all when fewer), ``ids`` all of them as ledger id ranges, in the order the audit met them."""

    group: str
    outcome: str               # one of OUTCOMES
    count: int
    reason: str                # a reason code (the shell renders it)
    spans: tuple[Span, ...]
    allowed: bool              # documented by the product, or a violation of its promise
    ids: tuple[Range, ...] = field(repr=False)


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
    """The first ``SPANS_KEPT`` spans of id ranges (in the order given), joined while consecutive
    and of one client: the ranges are read only until one more span starts."""
    out: list[tuple[int, int, str]] = []
    for a, b, run in ledger.spans(ids):
        if out and out[-1][1] == a and out[-1][2] == run.client:
            out[-1] = (out[-1][0], b, run.client)
        elif len(out) == SPANS_KEPT:
            break
        else:
            out.append((a, b, run.client))
    return tuple(Span(a, b - 1, ledger.key(a), ledger.key(b - 1)) for a, b, _ in out)


def _finding(ledger: Ledger, allows: Allows, key: FoundKey, ids: list[Range]) -> Finding:
    group, outcome, reason = key
    return Finding(group, outcome, rg.size(ids), reason, _spans(ledger, ids), allows(group, outcome, reason),
                   tuple(ids))


def audit(ledger: Ledger, allows: Allows, serving: frozenset[str], group: str | None = None,
          client: str | None = None) -> tuple[AuditTotals, tuple[Finding, ...]]:
    """Totals and findings over the messages of ``group`` (all when None) published by ``client``
    (all when None); ``serving`` are the node keys that serve clients now.

    The sweep's account is kept between audits (``_Memo``, on the ledger): an audit checks what
    changed below the point the last one reached (new deliveries, new drop reasons, the ids held
    and held by serving nodes) and sweeps again from the last checkpoint before the lowest change
    only, so its cost follows what changed and what is held now, not the session's history."""
    memo = ledger.audit_memo.get((group, client))
    if memo is None:
        memo = ledger.audit_memo[(group, client)] = _Memo(group, client)
    delivered, duplicated, lost, stored, stranded, found = memo.update(ledger, serving)
    published = memo.published_count
    discarded = 0
    found = {k: list(v) for k, v in found.items()}
    for r in ledger.discarded_resends:
        for x, y, run in ledger.spans([(r.first, r.end)]):
            if (group is None or run.group == group) and (client is None or run.client == client):
                discarded += y - x
                found.setdefault((run.group, DUPLICATE_DISCARDED, "duplicate-detection"), []).append((x, y))
    findings = tuple(_finding(ledger, allows, key, ids)
                     for key, ids in sorted(found.items(), key=lambda f: (f[0][0], _LISTED[f[0][1]], f[0][2])))
    return AuditTotals(published, delivered, duplicated, lost, stored, discarded, stranded), findings


_CHECKPOINT_EVERY = 64                   # stretches swept between two checkpoints
_AFTER_ANY = (1 << 62,)                  # sorts after any totals: (id, _AFTER_ANY) after every checkpoint at id


def _first_difference(xs: list[Range], ys: list[Range]) -> int | None:
    """The lowest id in one of two normalized range lists and not in the other (None: equal)."""
    for (a, b), (c, d) in zip(xs, ys, strict=False):
        if (a, b) != (c, d):
            return min(a, c) if a != c else min(b, d)
    if len(xs) != len(ys):
        longer = xs if len(xs) > len(ys) else ys
        return longer[min(len(xs), len(ys))][0]
    return None


def _below(ranges: list[Range], upto: int) -> list[Range]:
    out: list[Range] = []
    for a, b in ranges:
        if a >= upto:
            break
        out.append((a, min(b, upto)))
    return out


class _Memo:
    """One (group, client)'s sweep, kept: totals and findings of the ids below ``upto``, with
    checkpoints (the account at a stretch's start) to resume from, and what it was computed
    from, to tell what changed since:
    - the messages published (``mine``): runs are only added at the ledger's end, so it grows by
      the runs added since (a split changes no id's group or client);
    - the deliveries: only appended (or the last one extended), so the new ones are those from
      ``seen_deliveries`` on (and the last one seen when its end moved); those that reach ``mine``
      are kept ordered by their end, to find those that reach a stretch;
    - the drop reasons (``Ledger.reasons_from``): the lowest id of each change;
    - the ids held anywhere and held by serving nodes, below ``upto``: compared whole (what is
      held is the lab's present, not its history), so a copy added, removed or moved, or a node
      that stopped serving, is seen whatever code changed it."""

    __slots__ = ("group", "client", "mine", "mine_starts", "runs_upto", "published_count", "by_end",
                 "seen_deliveries", "last_end", "seen_reasons", "held_below", "live_below", "upto", "checkpoints",
                 "totals", "found")

    def __init__(self, group: str | None, client: str | None) -> None:
        self.group, self.client = group, client
        self.mine: list[Range] = []
        self.mine_starts: list[int] = []
        self.runs_upto = 0                   # runs starting below this id are in ``mine``
        self.published_count = 0
        self.by_end: list[tuple[int, int, int]] = []   # (end, index, first) of deliveries not discarded
        self.seen_deliveries = 0
        self.last_end = 0                    # the end of the last delivery seen
        self.seen_reasons = 0
        self.held_below: list[Range] = []
        self.live_below: list[Range] = []
        self.upto = 0
        # (stretch start, totals there, length of each findings list there)
        self.checkpoints: list[tuple[int, tuple[int, int, int, int, int], dict[FoundKey, int]]] = []
        self.totals = (0, 0, 0, 0, 0)       # delivered, duplicated, lost, stored, stranded
        self.found: dict[FoundKey, list[Range]] = {}

    def _grow_mine(self, ledger: Ledger) -> None:
        starts, by_start = ledger.runs.starts, ledger.runs.by_start
        i = bisect_right(starts, self.runs_upto - 1) if self.runs_upto else 0
        group, client = self.group, self.client
        for s in starts[i:]:
            run = by_start[s]
            if (group is None or run.group == group) and (client is None or run.client == client):
                self.published_count += run.count
                if self.mine and self.mine[-1][1] == run.first:
                    self.mine[-1] = (self.mine[-1][0], run.end)
                else:
                    self.mine.append((run.first, run.end))
                    self.mine_starts.append(run.first)
        self.runs_upto = ledger.next_id

    def _take_deliveries(self, ledger: Ledger) -> int:
        """File the deliveries made (or extended) since that reach ``mine``; returns the lowest id
        they touch."""
        low = self.upto
        deliveries = ledger.deliveries
        start = self.seen_deliveries
        if start and deliveries[start - 1].end != self.last_end:   # the last one seen was extended
            start -= 1
            d = deliveries[start]
            at = bisect_left(self.by_end, (self.last_end, start, d.first))
            if at < len(self.by_end) and self.by_end[at] == (self.last_end, start, d.first):
                del self.by_end[at]
        mine, mine_starts = self.mine, self.mine_starts
        for i in range(start, len(deliveries)):
            d = deliveries[i]
            j = bisect_right(mine_starts, d.end - 1) - 1
            if j < 0 or mine[j][1] <= d.first:
                continue                     # none of this delivery's ids are ``mine``
            if not d.discarded:
                insort(self.by_end, (d.end, i, d.first))
            low = min(low, d.first)
        self.seen_deliveries = len(deliveries)
        self.last_end = deliveries[-1].end if deliveries else 0
        return low

    def update(self, ledger: Ledger, serving: frozenset[str]) -> tuple[int, int, int, int, int,
                                                                        dict[FoundKey, list[Range]]]:
        self._grow_mine(ledger)
        low = self._take_deliveries(ledger)
        for lo in ledger.reasons_from[self.seen_reasons:]:
            low = min(low, lo)
        self.seen_reasons = len(ledger.reasons_from)
        copies = [(a, b, node in serving) for node, qs in ledger.copies.items() for rs in qs.values()
                  for a, b in rs if a < b]
        held = rg.normalize((a, b) for a, b, _ in copies)
        live = rg.normalize((a, b) for a, b, on in copies if on)
        for before, now in ((self.held_below, held), (self.live_below, live)):
            changed = _first_difference(before, _below(now, self.upto))
            if changed is not None:
                low = min(low, changed)
        # resume from the last checkpoint at or before the lowest change
        k = bisect_right(self.checkpoints, (low, _AFTER_ANY))   # the checkpoints at or before ``low``
        if k:
            at, totals, lengths = self.checkpoints[k - 1]
            del self.checkpoints[k:]
            self.totals = totals
            self.found = {key: ids[:lengths[key]] for key, ids in self.found.items() if key in lengths}
        else:
            at = 0
            self.checkpoints.clear()
            self.totals = (0, 0, 0, 0, 0)
            self.found = {}
        self._sweep(ledger, at, copies)
        self.held_below = _below(held, self.upto)
        self.live_below = _below(live, self.upto)
        return (*self.totals, self.found)

    def _sweep(self, ledger: Ledger, at: int, copies: list[tuple[int, int, bool]]) -> None:
        """The account from ``at`` (a stretch's start) on, from what reaches it."""
        depth = held = live_held = 0
        marks: list[tuple[int, int, int, int]] = []
        for end, _, first in self.by_end[bisect_right(self.by_end, (at, 1 << 62, 0)):]:
            if first <= at:
                depth += 1
            else:
                marks.append((first, 1, 0, 0))
            marks.append((end, -1, 0, 0))
        for a, b, on in copies:
            if b <= at:
                continue
            live = 1 if on else 0
            if a <= at:
                held, live_held = held + 1, live_held + live
            else:
                marks.append((a, 0, 1, live))
            marks.append((b, 0, -1, -live))
        marks.sort()
        starts, by_start = ledger.runs.starts, ledger.runs.by_start
        first_run = max(bisect_right(starts, at) - 1, 0)
        cuts_set = {at} | {p for p, *_ in marks}
        for s in starts[first_run:]:
            run = by_start[s]
            cuts_set.add(run.first)
            cuts_set.add(run.end)
        mine, mine_starts = self.mine, self.mine_starts
        for p in mine[max(bisect_right(mine_starts, at) - 1, 0):]:
            cuts_set.update(p)
        cuts = sorted(c for c in cuts_set if c >= at)
        delivered, duplicated, lost, stored, stranded = self.totals
        found = self.found
        k = 0
        for n, (a, b) in enumerate(zip(cuts, cuts[1:], strict=False)):
            if n % _CHECKPOINT_EVERY == 0 and (not self.checkpoints or self.checkpoints[-1][0] < a):
                self.checkpoints.append((a, (delivered, duplicated, lost, stored, stranded),
                                         {key: len(ids) for key, ids in found.items()}))
            while k < len(marks) and marks[k][0] <= a:
                depth, held, live_held = depth + marks[k][1], held + marks[k][2], live_held + marks[k][3]
                k += 1
            # every boundary of ``mine`` is a cut, so [a, b) lies wholly inside it or outside
            i = bisect_right(mine_starts, a) - 1
            if i < 0 or mine[i][1] <= a:
                continue
            for x, y, run in ledger.spans([(a, b)]):
                count = y - x
                if depth >= 1:
                    delivered += count
                    if depth > 1:
                        duplicated += count
                        found.setdefault((run.group, DUPLICATE_DELIVERED, "delivered-twice"), []).append((x, y))
                elif held:
                    stored += count
                    if not live_held:
                        stranded += count
                else:
                    lost += count
                    found.setdefault((run.group, LOST, run.dropped or "unknown"), []).append((x, y))
        self.totals = (delivered, duplicated, lost, stored, stranded)
        self.upto = max(cuts[-1] if cuts else at, at)


def audit_in_full(ledger: Ledger, allows: Allows, serving: frozenset[str], group: str | None = None,
          client: str | None = None) -> tuple[AuditTotals, tuple[Finding, ...]]:
    """``audit`` computed from the whole ledger in one sweep, keeping nothing: what the memo of
    ``audit`` must always equal (the tests compare them)."""
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
    findings = tuple(_finding(ledger, allows, key, ids)
                     for key, ids in sorted(found.items(), key=lambda f: (f[0][0], _LISTED[f[0][1]], f[0][2])))
    return AuditTotals(rg.size(mine), delivered, duplicated, lost, stored, discarded, stranded), findings
