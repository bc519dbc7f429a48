"""Ordered collections of runs: records that each stand for ``count`` consecutive messages.

Why: a publish of ten million identical messages is one record, in every system's model: one
message run of the kernel's ledger (``kernel.ledger``), or one ledger record, one spooled copy per
queue and one replication-stream entry of a system that keeps its own records of that shape; so
the cost follows how many *different* things happened, not how many messages. A run's key
(record id, or stream seq) reserves ``count`` consecutive keys, so key arithmetic keeps working:
the i-th message of a run has key ``start + i``.

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
        """Drop derived indexes: they are rebuilt when next used."""

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
        by_start = self.by_start
        gone = [s for s in starts if by_start.pop(s, None) is not None]
        if not gone:
            return
        mine = self.starts
        if len(gone) == 1:  # the usual case (a consumed or drained head run): no sort, no slice
            if mine[0] == gone[0]:
                del mine[0]
            else:
                del mine[bisect_left(mine, gone[0])]
            self._removed(1)
            return
        gone.sort()
        at = bisect_left(mine, gone[0])
        if mine[at:at + len(gone)] == gone:  # one stretch (a drained head, acks held back at the tail)
            del mine[at:at + len(gone)]
        elif len(gone) <= 8:
            for s in gone:
                del mine[bisect_left(mine, s)]
        else:
            self.starts = [s for s in mine if s in by_start]
        self._removed(len(gone))

    def find(self, key: int) -> R | None:
        """The run holding ``key`` (None when no run does)."""
        start = self.start_of(key)
        return None if start is None else self.by_start[start]

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


class _Index(Generic[M]):
    """The message-id intervals of some runs, sorted by start, with the running maximum of their
    ends: a stabbing query walks back from the last start below ``hi`` while that maximum passes
    ``lo``. A run filed with a start not below the last one is appended; others wait in ``extra``,
    searched one by one. A run split after it was filed keeps its start and only ends earlier, so
    the ends filed stay upper bounds: a query checks each candidate's current extent, and a split
    need not rebuild the index (its tail is filed as any new run)."""

    __slots__ = ("mstarts", "ends", "peak", "keys", "runs", "extra")

    def __init__(self) -> None:
        self.mstarts: list[int] = []
        self.ends: list[int] = []
        self.peak: list[int] = []
        self.keys: list[int] = []
        self.runs: list[M] = []
        self.extra: list[tuple[int, M]] = []

    def put(self, key: int, rec: M, first: int, by_start: dict[int, M]) -> int:
        """File ``rec``; returns how many runs taken out were dropped from the end first (runs
        held back at a stream's tail and filed again come back in order)."""
        end = first + rec.count
        mstarts, keys, runs = self.mstarts, self.keys, self.runs
        dropped = 0
        while runs and by_start.get(keys[-1]) is not runs[-1]:
            for column in (mstarts, self.ends, self.peak, keys, runs):
                column.pop()
            dropped += 1
        if not mstarts or first >= mstarts[-1]:
            mstarts.append(first)
            self.ends.append(end)
            self.peak.append(end if not self.peak or end > self.peak[-1] else self.peak[-1])
            self.keys.append(key)
            self.runs.append(rec)
        else:
            self.extra.append((key, rec))
        return dropped

    def query(self, lo: int, hi: int, by_start: dict[int, M], found: list[tuple[int, M]]) -> None:
        ends, peak, keys, runs = self.ends, self.peak, self.keys, self.runs
        j = bisect_left(self.mstarts, hi) - 1
        mstarts = self.mstarts
        while j >= 0 and peak[j] > lo:
            # ends are as filed: a run split since then ends earlier now (its start stays)
            if ends[j] > lo and (r := runs[j]) is by_start.get(keys[j]) and mstarts[j] + r.count > lo:
                found.append((keys[j], r))
            j -= 1
        for key, r in self.extra:
            first = r.message_id
            if first is not None and first < hi and first + r.count > lo and by_start.get(key) is r:
                found.append((key, r))


# a query on at most this many runs walks them rather than building the index (MessageRuns._scan)
SCAN_RUNS = 8


class MessageRuns(Runs[M]):
    """Runs that name messages (spooled copies, stream entries), with lookup by message id.

    The index (``_Index`` per part, ``part`` telling which a run belongs to: one for a queue's
    copies, one per entry kind for a stream) is built on first use by a query on more than
    ``SCAN_RUNS`` runs (fewer are walked), then kept: a run filed later
    is appended to it (or, filed out of message-id order, waits in a short list until that grows
    past a fraction of the index), runs taken out are skipped when met (checked against
    ``by_start``) until they are many; a split only shortens a filed run (see ``_Index``). So a
    queue consumed from its head and published to at its tail, or a stream receiving acks or
    pruned in the middle, never rebuilds it per command."""

    __slots__ = ("_index", "_size", "_extra", "_dead")

    def __init__(self) -> None:
        super().__init__()
        self._index: dict[str, _Index[M]] | None = None
        self._size = self._extra = self._dead = 0  # entries, out-of-order ones, removed ones

    def part(self, rec: M) -> str:
        """Which index a run belongs to (one for all by default)."""
        return ""

    def _added(self, start: int, rec: M) -> None:
        index = self._index
        first = rec.message_id
        if index is None or first is None:
            return
        part = self.part(rec)
        idx = index.get(part)
        if idx is None:
            idx = index[part] = _Index()
        before = len(idx.extra)
        dropped = idx.put(start, rec, first, self.by_start)
        self._size += 1 - dropped
        self._dead = max(0, self._dead - dropped)
        if len(idx.extra) > before:
            self._extra += 1
            if self._extra > 32 + self._size // 8:
                self.invalidate()

    def _removed(self, n: int) -> None:
        if self._index is not None:
            self._dead += n
            if self._dead > 32 + self._size // 2:
                self.invalidate()

    def invalidate(self) -> None:
        self._index = None
        self._size = self._extra = self._dead = 0

    def _built(self) -> dict[str, _Index[M]]:
        index = self._index
        if index is None:
            by_start = self.by_start
            items = sorted((first, s, r) for s in self.starts if (first := (r := by_start[s]).message_id) is not None)
            index = {}
            for first, s, r in items:
                part = self.part(r)
                idx = index.get(part)
                if idx is None:
                    idx = index[part] = _Index()
                idx.put(s, r, first, by_start)
            self._index = index
            self._size = len(items)
        return index

    def overlapping(self, lo: int, hi: int, part: str | None = None) -> list[M]:
        """The runs holding at least one message id in [lo, hi) (of one part, or all), in key order."""
        if hi <= lo or not self.starts:
            return []
        if self._index is None and len(self.starts) <= SCAN_RUNS:
            return self._scan(lo, hi, part)
        index = self._built()
        found: list[tuple[int, M]] = []
        if part is None:
            for idx in index.values():
                idx.query(lo, hi, self.by_start, found)
        else:
            one = index.get(part)
            if one is not None:
                one.query(lo, hi, self.by_start, found)
        if len(found) > 1:
            found.sort(key=lambda t: t[0])
        return [r for _, r in found]

    def _scan(self, lo: int, hi: int, part: str | None) -> list[M]:
        """``overlapping`` by walking every run, for a few runs with no index built: most queues
        and streams hold one or two runs when asked, so a walk costs less than a build."""
        by_start = self.by_start
        out: list[M] = []
        for s in self.starts:
            r = by_start[s]
            first = r.message_id
            if first is not None and first < hi and first + r.count > lo and (part is None or self.part(r) == part):
                out.append(r)
        return out
