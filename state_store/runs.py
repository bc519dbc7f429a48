"""Ordered collections of runs: records that each stand for ``count`` consecutive messages.

Why: a publish of ten million identical messages is one ledger record, one spooled copy per queue
and one replication-stream entry (``state_store.records``: ``Message``, ``Spooled``, ``ReplEntry``
carry a ``count``), so the engine's cost follows how many *different* things happened, not how
many messages. A run's key (record id, or stream seq) reserves ``count`` consecutive keys, so key
arithmetic keeps working: the i-th message of a run has key ``start + i``.

``Runs`` keeps the runs of one queue, one replication stream or the ledger in key order (a dict by
start key plus the sorted starts: appending is the usual case, a split inserts in the middle),
finds the run holding a key by bisection, and (``MessageRuns``) answers "which runs hold message
ids in [lo, hi)" through an interval index over the message ids they cover, built when first
asked after a change (a queue's runs need not be in message-id order: the standby spools topic by
topic, and a message may be spooled twice in one queue).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Iterator
from typing import Generic, Protocol, TypeVar


class Run(Protocol):
    @property
    def count(self) -> int: ...


class MessageRun(Protocol):
    @property
    def count(self) -> int: ...

    @property
    def message_id(self) -> int | None: ...


R = TypeVar("R", bound=Run)
M = TypeVar("M", bound=MessageRun)


class Runs(Generic[R]):
    """Runs by start key, iterated in key order."""

    __slots__ = ("by_start", "starts")

    def __init__(self) -> None:
        self.by_start: dict[int, R] = {}
        self.starts: list[int] = []

    def _added(self, start: int, rec: R) -> None:
        """Hook for subclasses keeping derived indexes: a run was filed."""

    def _removed(self, n: int) -> None:
        """Hook for subclasses keeping derived indexes: ``n`` runs were taken out."""

    def invalidate(self) -> None:
        """A filed run changed its extent (a split): derived indexes are rebuilt when next used."""

    def add(self, start: int, rec: R) -> None:
        starts = self.starts
        if not starts or start > starts[-1]:
            starts.append(start)
        else:
            insort(starts, start)
        self.by_start[start] = rec
        self._added(start, rec)

    def pop(self, start: int) -> R | None:
        rec = self.by_start.pop(start, None)
        if rec is not None:
            starts = self.starts
            if starts[0] == start:
                del starts[0]
            else:
                del starts[bisect_left(starts, start)]
            self._removed(1)
        return rec

    def pop_many(self, starts: Iterable[int]) -> None:
        """Drop the runs at these starts (absent ones are ignored), in one pass when they are many."""
        gone = [s for s in starts if self.by_start.pop(s, None) is not None]
        if not gone:
            return
        if len(gone) <= 8:
            for s in gone:
                del self.starts[bisect_left(self.starts, s)]
        else:
            by_start = self.by_start
            self.starts = [s for s in self.starts if s in by_start]
        self._removed(len(gone))

    def find(self, key: int) -> R | None:
        """The run holding ``key`` (None when no run does)."""
        starts = self.starts
        i = bisect_right(starts, key) - 1
        if i < 0:
            return None
        start = starts[i]
        rec = self.by_start[start]
        return rec if key < start + rec.count else None

    def start_of(self, key: int) -> int | None:
        """The start key of the run holding ``key``."""
        starts = self.starts
        i = bisect_right(starts, key) - 1
        if i < 0:
            return None
        start = starts[i]
        return start if key < start + self.by_start[start].count else None

    def __iter__(self) -> Iterator[R]:
        by_start = self.by_start
        return (by_start[s] for s in self.starts)

    def values(self) -> Iterator[R]:
        return iter(self)

    def __reversed__(self) -> Iterator[R]:
        by_start = self.by_start
        return (by_start[s] for s in reversed(self.starts))

    def __len__(self) -> int:
        return len(self.starts)

    def __bool__(self) -> bool:
        return bool(self.starts)

    def total(self) -> int:
        """How many messages (or entries) the runs stand for."""
        return sum(r.count for r in self.by_start.values())


class MessageRuns(Runs[M]):
    """Runs that name messages (spooled copies, stream entries), with lookup by message id.

    The index: the runs' message-id intervals sorted by start, with the running maximum of their
    ends (a stabbing query walks back from the last start below ``hi`` while that maximum passes
    ``lo``), built on first use. Runs filed later wait in a short list searched one by one until
    it grows past a fraction of the index (then it is rebuilt); runs taken out are skipped when
    met (checked against ``by_start``); a split rebuilds it. So a queue consumed from its head
    and published to at its tail, or a stream receiving acks of older messages, never rebuilds
    its index per command."""

    __slots__ = ("_index", "_extra", "_dead")

    def __init__(self) -> None:
        super().__init__()
        # (message-id starts, ends, running maximum of the ends, run keys, runs), by message-id start
        self._index: tuple[list[int], list[int], list[int], list[int], list[M]] | None = None
        self._extra: list[tuple[int, M]] = []  # (key, run) filed since the index was built
        self._dead = 0  # runs of the index taken out since it was built

    def _added(self, start: int, rec: M) -> None:
        if self._index is not None:
            self._extra.append((start, rec))
            if len(self._extra) > 32 + len(self._index[0]) // 4:
                self.invalidate()

    def _removed(self, n: int) -> None:
        if self._index is not None:
            self._dead += n
            if self._dead > 32 + len(self._index[0]) // 2:
                self.invalidate()

    def invalidate(self) -> None:
        self._index = None
        self._extra = []
        self._dead = 0

    def _built(self) -> tuple[list[int], list[int], list[int], list[int], list[M]]:
        index = self._index
        if index is None:
            by_start = self.by_start
            items = sorted((r.message_id, r.message_id + r.count, s, r)
                           for s in self.starts if (r := by_start[s]).message_id is not None)
            ends = [t[1] for t in items]
            peak: list[int] = []
            top = -1
            for e in ends:
                top = e if e > top else top
                peak.append(top)
            index = self._index = ([t[0] for t in items], ends, peak, [t[2] for t in items], [t[3] for t in items])
        return index

    def overlapping(self, lo: int, hi: int) -> list[M]:
        """The runs holding at least one message id in [lo, hi), in key order."""
        if hi <= lo or not self.starts:
            return []
        mstarts, ends, peak, keys, runs = self._built()
        by_start = self.by_start
        j = bisect_left(mstarts, hi) - 1
        found: list[tuple[int, M]] = []
        while j >= 0 and peak[j] > lo:
            if ends[j] > lo and by_start.get(keys[j]) is runs[j]:
                found.append((keys[j], runs[j]))
            j -= 1
        for key, r in self._extra:
            first = r.message_id
            if first is not None and first < hi and first + r.count > lo and by_start.get(key) is r:
                found.append((key, r))
        if len(found) > 1:
            found.sort(key=lambda t: t[0])
        return [r for _, r in found]

    def holding(self, message_id: int) -> list[M]:
        """The runs that hold message ``message_id``, in key order."""
        return self.overlapping(message_id, message_id + 1)


def merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Half-open ranges sorted and merged where they touch or overlap."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def subtract(ranges: list[tuple[int, int]], holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merged ``ranges`` minus merged ``holes`` (both sorted, disjoint)."""
    out: list[tuple[int, int]] = []
    j = 0
    for a, b in ranges:
        while j < len(holes) and holes[j][1] <= a:
            j += 1
        k = j
        pos = a
        while k < len(holes) and holes[k][0] < b:
            ha, hb = holes[k]
            if ha > pos:
                out.append((pos, ha))
            pos = max(pos, hb)
            k += 1
        if pos < b:
            out.append((pos, b))
    return out


def ids_of(ranges: Iterable[tuple[int, int]]) -> Iterator[int]:
    for a, b in ranges:
        yield from range(a, b)
