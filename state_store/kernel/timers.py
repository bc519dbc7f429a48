"""A deterministic timer queue for the simulated clock.

Why: HA products decide things on their own after a delay (negotiation timeout, missed heartbeats,
a preferred-active failover in 10 s). The lab must replay those decisions identically, so a timer
fires in (due_ms, sequence) order, never by wall clock, and a handler may schedule more timers
that fire within the same advance. A system that keeps many possible firings of its own (Geode's
expiry) may take a sequence number now (`reserve`) and schedule the timer with it later, so the
timer runs where it would have run had it been scheduled at once, and only the next one is pending.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

JsonValue = Any  # what a JSON document may hold (str, int, bool, None, lists, dicts)


@dataclass(frozen=True, order=True)
class Timer:
    due_ms: int
    seq: int
    group: str = field(compare=False)
    node: str = field(compare=False)        # "" for a group-wide timer
    kind: str = field(compare=False)
    payload: dict[str, JsonValue] = field(compare=False, default_factory=dict)

    @property
    def id(self) -> int:
        return self.seq


class TimerQueue:
    """Pending timers; `pop_due(until)` yields them in (due_ms, seq) order, including timers
    scheduled while iterating, as long as they are due by `until`. While a timer runs, `running`
    is its (due_ms, seq) (None between advances): what is at or before it has run already."""

    def __init__(self) -> None:
        self._heap: list[Timer] = []
        self._cancelled: set[int] = set()
        self._next_seq = 1
        self.running: tuple[int, int] | None = None

    def reserve(self) -> int:
        """Take the next sequence number for a timer that may be scheduled later (``schedule(...,
        seq=)``), perhaps never: a later timer due at the same time runs after it."""
        seq = self._next_seq
        self._next_seq += 1
        return seq

    def schedule(self, due_ms: int, group: str, node: str, kind: str,
                 payload: dict[str, JsonValue] | None = None, seq: int | None = None) -> int:
        """Add a timer; ``seq`` is a number ``reserve`` gave (at most one pending timer each),
        otherwise the next one is taken. Returns its id (its sequence number)."""
        if seq is None:
            seq = self.reserve()
        elif not 1 <= seq < self._next_seq:
            raise ValueError(f"timer sequence number {seq} was never reserved")
        timer = Timer(due_ms, seq, group, node, kind, dict(payload or {}))
        heapq.heappush(self._heap, timer)
        return timer.seq

    def cancel(self, timer_id: int) -> None:
        if any(t.seq == timer_id for t in self._heap):
            self._cancelled.add(timer_id)

    def withdraw(self, timer_id: int) -> None:
        """Remove a pending timer at once (not marked as `cancel` does), so its reserved sequence
        number may be scheduled again."""
        kept = [t for t in self._heap if t.seq != timer_id]
        if len(kept) != len(self._heap):
            heapq.heapify(kept)
            self._heap = kept
        self._cancelled.discard(timer_id)

    def cancel_where(self, group: str, kinds: frozenset[str] | None = None, node: str | None = None) -> None:
        """Cancel every pending timer of a group (optionally only some kinds / one node)."""
        for t in self._heap:
            if t.group == group and (kinds is None or t.kind in kinds) and (node is None or t.node == node):
                self._cancelled.add(t.seq)

    def pending(self) -> list[Timer]:
        return sorted(t for t in self._heap if t.seq not in self._cancelled)

    def pop_due(self, until_ms: int) -> Iterator[Timer]:
        try:
            while self._heap and self._heap[0].due_ms <= until_ms:
                timer = heapq.heappop(self._heap)
                if timer.seq in self._cancelled:
                    self._cancelled.discard(timer.seq)
                    continue
                self.running = (timer.due_ms, timer.seq)
                yield timer
        finally:
            self.running = None

    # -- snapshot ----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, JsonValue]:
        return {"next_seq": self._next_seq,
                "timers": [[t.due_ms, t.seq, t.group, t.node, t.kind, t.payload] for t in self.pending()]}

    @classmethod
    def restore(cls, data: dict[str, JsonValue]) -> TimerQueue:
        q = cls()
        q._next_seq = int(data.get("next_seq", 1))
        for due, seq, group, node, kind, payload in data.get("timers", []):
            heapq.heappush(q._heap, Timer(int(due), int(seq), str(group), str(node), str(kind), dict(payload)))
        return q
