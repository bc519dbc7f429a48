"""The kernel's message ledger, in runs: a publish of N messages is one record.

Why runs: a lab may publish a million messages in one command, and every question the HA systems
and the audit ask is about stretches of messages that share everything (one publish, one queue,
one fate). So the ledger keeps
- ``MessageRun``: ``count`` messages with consecutive ledger ids ``first .. first + count - 1``
  and consecutive origin sequence numbers (the origin key of the i-th one is ``origin`` followed by
  ``first_seq + i``: a JMS message ID for SwiftMQ, an event ID for Geode), one queue, one client,
  one persistence, one publish time, one drop reason;
- copies per node and queue as ordered id ranges (arrival order: consuming takes the head);
- deliveries and discarded resends as runs (a client, ids, a time, a node, flags).
An operation on part of a run cuts it (``split``), so every record keeps one meaning for all its
messages. No method expands ids: the cost of each is the number of runs, not of messages.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import ranges as rg
from .ranges import Range
from .runs import Runs


@dataclass(slots=True)
class MessageRun:
    first: int
    count: int
    group: str
    queue: str
    client: str
    origin: str                # origin key prefix ("ID:c1-")
    first_seq: int
    persistent: bool
    published_ms: int
    dropped: str = ""          # reason code of the last copy removal that was not a delivery

    @property
    def end(self) -> int:
        return self.first + self.count

    def key(self, msg_id: int) -> str:
        """The origin key of one of this run's messages."""
        return f"{self.origin}{self.first_seq + msg_id - self.first}"


@dataclass(frozen=True, slots=True)
class DeliveryRun:
    client: str
    first: int
    count: int
    at_ms: int
    node: str
    duplicate: bool = False    # another client (or this one) had it already
    discarded: bool = False    # this client had it already: its own duplicate detection dropped it

    @property
    def end(self) -> int:
        return self.first + self.count


@dataclass(frozen=True, slots=True)
class ResendRun:
    """Resent messages the receiving node refused by duplicate detection."""

    client: str
    first: int
    count: int
    at_ms: int
    node: str

    @property
    def end(self) -> int:
        return self.first + self.count


@dataclass
class Ledger:
    runs: Runs[MessageRun] = field(default_factory=Runs)          # by first id
    # node key -> queue -> ids held, as ranges in arrival order
    copies: dict[str, dict[str, list[Range]]] = field(default_factory=dict)
    deliveries: list[DeliveryRun] = field(default_factory=list)
    discarded_resends: list[ResendRun] = field(default_factory=list)
    next_id: int = 1
    # the lowest id of each ``note_gone`` that gave a reason, in order (the audit's memo reads the
    # new ones: a reason is the one change to a message run that can alter a finding)
    reasons_from: list[int] = field(default_factory=list, repr=False, compare=False)
    # the audit's running account per (group, client) (``kernel.audit``): derived, never saved
    audit_memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    # the clients with messages in each group, read from the runs starting below ``clients_upto``
    # (``clients_in``): derived, never saved
    clients_by_group: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False, compare=False)
    clients_upto: int = field(default=0, init=False, repr=False, compare=False)

    # -- messages ------------------------------------------------------------------------------
    def add(self, group: str, queue: str, client: str, origin: str, first_seq: int, count: int,
            persistent: bool, now_ms: int) -> MessageRun:
        run = MessageRun(self.next_id, count, group, queue, client, origin, first_seq, persistent, now_ms)
        self.runs.add(run.first, run)
        self.next_id += count
        return run

    def run_of(self, msg_id: int) -> MessageRun:
        run = self.runs.find(msg_id)
        if run is None:
            raise KeyError(msg_id)
        return run

    def key(self, msg_id: int) -> str:
        return self.run_of(msg_id).key(msg_id)

    def split(self, msg_id: int) -> None:
        """Cut the run holding ``msg_id`` so that a run starts there (nothing when one does)."""
        run = self.runs.find(msg_id)
        if run is None or run.first == msg_id:
            return
        head = msg_id - run.first
        tail = MessageRun(msg_id, run.count - head, run.group, run.queue, run.client, run.origin,
                          run.first_seq + head, run.persistent, run.published_ms, run.dropped)
        run.count = head
        self.runs.add(msg_id, tail)

    def spans(self, ids: Iterable[Range]) -> Iterator[tuple[int, int, MessageRun]]:
        """(a, b, run) for each run holding ids of the ranges, clipped, in the ranges' order."""
        starts, by_start = self.runs.starts, self.runs.by_start
        for lo, hi in ids:
            i = max(bisect_right(starts, lo) - 1, 0)
            while i < len(starts) and starts[i] < hi:
                run = by_start[starts[i]]
                a, b = max(lo, run.first), min(hi, run.end)
                if a < b:
                    yield a, b, run
                i += 1

    def where(self, ids: Iterable[Range], persistent: bool | None = None, group: str | None = None) -> list[Range]:
        """The ids of ``ids`` whose runs match (persistence, group)."""
        return [(a, b) for a, b, run in self.spans(ids)
                if (persistent is None or run.persistent == persistent) and (group is None or run.group == group)]

    def clients_in(self, group: str) -> frozenset[str]:
        """The clients with messages in ``group``. Runs are only added at the end and a split
        keeps a run's group and client, so only the runs added since the last call are read."""
        starts, by_start = self.runs.starts, self.runs.by_start
        i = bisect_right(starts, self.clients_upto - 1) if self.clients_upto else 0
        for s in starts[i:]:
            run = by_start[s]
            self.clients_by_group.setdefault(run.group, set()).add(run.client)
        self.clients_upto = self.next_id
        return frozenset(self.clients_by_group.get(group, ()))

    def published(self, group: str | None = None, client: str | None = None) -> list[Range]:
        return rg.normalize((r.first, r.end) for r in self.runs
                            if (group is None or r.group == group) and (client is None or r.client == client))

    # -- copies ----------------------------------------------------------------------------------
    def held(self, node: str, queue: str) -> list[Range]:
        return self.copies.setdefault(node, {}).setdefault(queue, [])

    def held_anywhere(self) -> list[Range]:
        return rg.normalize(r for qs in self.copies.values() for rs in qs.values() for r in rs)

    def put(self, node: str, queue: str, ids: Iterable[Range]) -> None:
        """Add copies of ``ids`` at the tail of the node's queue, except those it holds already."""
        held = self.held(node, queue)
        for r in rg.subtract(list(ids), list(held)):
            rg.append(held, r)

    def take(self, node: str, queue: str, count: int) -> list[Range]:
        """Remove and return the first ``count`` copies of the node's queue."""
        held = self.held(node, queue)
        head, rest = rg.take(held, count)
        held[:] = rest
        return head

    def remove(self, node: str, queue: str, ids: Iterable[Range]) -> None:
        held = self.held(node, queue)
        held[:] = rg.subtract(held, ids)

    def drop(self, node: str, reason: str, only: Iterable[Range] | None = None) -> list[Range]:
        """Remove the copies a node holds (all, or those among ``only``); the messages left with no
        copy anywhere get ``reason``. Returns the ids removed."""
        removed: list[Range] = []
        keep = None if only is None else rg.normalize(only)
        for held in self.copies.get(node, {}).values():
            gone = list(held) if keep is None else rg.intersect(held, keep)
            held[:] = rg.subtract(held, gone)
            removed += gone
        self.note_gone(removed, reason)
        return rg.normalize(removed)

    def replace_image(self, source: str, target: str, reason: str) -> list[Range]:
        """The target's store becomes a copy of the source's (persistent copies only). Returns the
        ids the target held that the source did not (overwritten)."""
        before = rg.normalize(r for rs in self.copies.get(target, {}).values() for r in rs)
        image = {q: self.where(rs, persistent=True) for q, rs in self.copies.get(source, {}).items()}
        self.copies[target] = image
        gone = rg.subtract(before, [r for rs in image.values() for r in rs])
        self.note_gone(gone, reason)
        return gone

    def note_gone(self, ids: Iterable[Range], reason: str) -> None:
        """Give ``reason`` to the messages of ``ids`` that no node holds any more."""
        orphans = rg.subtract(rg.normalize(ids), self.held_anywhere())
        if orphans:
            self.reasons_from.append(orphans[0][0])
        for a, b in orphans:
            self.split(a)
            self.split(b)
            for _, _, run in list(self.spans([(a, b)])):
                run.dropped = reason

    def holders(self, msg_id: int) -> list[str]:
        return sorted(n for n, qs in self.copies.items() if any(a <= msg_id < b for rs in qs.values() for a, b in rs))

    # -- deliveries --------------------------------------------------------------------------------
    def deliver(self, run: DeliveryRun) -> None:
        last = self.deliveries[-1] if self.deliveries else None
        if (last is not None and last.end == run.first and (last.client, last.at_ms, last.node, last.duplicate,
                                                              last.discarded) == (run.client, run.at_ms, run.node,
                                                                                  run.duplicate, run.discarded)):
            self.deliveries[-1] = DeliveryRun(last.client, last.first, last.count + run.count, last.at_ms,
                                              last.node, last.duplicate, last.discarded)
        else:
            self.deliveries.append(run)

    def seen(self, ids: Range, client: str) -> list[tuple[int, int, bool, bool]]:
        """Cut ``ids`` where its delivery history changes: (a, b, delivered to ``client``,
        delivered to anyone), deliveries discarded by a client not counted."""
        lo, hi = ids
        cuts = {lo, hi}
        found = [d for d in self.deliveries if not d.discarded and d.first < hi and d.end > lo]
        for d in found:
            cuts.update(x for x in (d.first, d.end) if lo < x < hi)
        points = sorted(cuts)
        out: list[tuple[int, int, bool, bool]] = []
        for a, b in zip(points, points[1:], strict=False):
            over = [d for d in found if d.first <= a and d.end >= b]
            out.append((a, b, any(d.client == client for d in over), bool(over)))
        return out

    def resent(self, run: ResendRun) -> None:
        self.discarded_resends.append(run)

    # -- snapshot ----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {
            "next_id": self.next_id,
            "runs": [[r.first, r.count, r.group, r.queue, r.client, r.origin, r.first_seq, r.persistent,
                      r.published_ms, r.dropped] for r in self.runs],
            "copies": {n: {q: [list(r) for r in rs] for q, rs in qs.items()} for n, qs in self.copies.items()},
            "deliveries": [[d.client, d.first, d.count, d.at_ms, d.node, d.duplicate, d.discarded]
                           for d in self.deliveries],
            "discarded_resends": [[r.client, r.first, r.count, r.at_ms, r.node] for r in self.discarded_resends],
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Ledger:
        led = cls()
        led.next_id = int(data.get("next_id", 1))
        for row in data.get("runs", []):
            run = MessageRun(int(row[0]), int(row[1]), str(row[2]), str(row[3]), str(row[4]), str(row[5]),
                             int(row[6]), bool(row[7]), int(row[8]), str(row[9]))
            if run.count < 1 or (led.runs and run.first < led.runs.by_start[led.runs.starts[-1]].end):
                raise ValueError("ledger runs out of order")
            led.runs.add(run.first, run)
        copies = data.get("copies", {})
        led.copies = {str(n): {str(q): [(int(r[0]), int(r[1])) for r in rs] for q, rs in qs.items()}
                      for n, qs in copies.items()}
        led.deliveries = [DeliveryRun(str(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]), bool(r[5]), bool(r[6]))
                          for r in data.get("deliveries", [])]
        led.discarded_resends = [ResendRun(str(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4]))
                                 for r in data.get("discarded_resends", [])]
        return led

    @classmethod
    def restore_v1(cls, data: dict[str, Any]) -> Ledger:
        """A ledger of the first snapshot version (one record per message, origin keys whole)."""
        led = cls()
        led.next_id = int(data.get("next_id", 1))
        for row in sorted(data.get("messages", []), key=lambda r: int(r[0])):
            key = str(row[3])
            head, _, tail = key.rpartition("-")
            origin, seq = (head + "-", int(tail)) if tail.isdigit() else (key, 0)
            run = MessageRun(int(row[0]), 1, str(row[1]), str(row[2]), str(row[4]), origin, seq, bool(row[5]),
                             int(row[6]), str(row[7]))
            led.runs.add(run.first, run)
        for n, qs in data.get("copies", {}).items():
            for q, ids in qs.items():
                held = led.held(str(n), str(q))
                for i in ids:
                    rg.append(held, (int(i), int(i) + 1))
        for r in data.get("deliveries", []):
            led.deliver(DeliveryRun(str(r[0]), int(r[1]), 1, int(r[2]), str(r[3]), bool(r[4]), bool(r[5])))
        for r in data.get("discarded_resends", []):
            led.resent(ResendRun(str(r[0]), int(r[1]), 1, int(r[2]), str(r[3])))
        return led
