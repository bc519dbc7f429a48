"""What a lab keeps of its own session so that `lab> grade` can grade it at any moment, and the
sessions that share a store (a served class, for the trainer's `lab> progress`).

Grading decides each step on the state just before its line ran, and which state that was
depends on the runbook (chosen only when `grade` is typed). Reading it for every line would cost
every session more than its commands do, so the lab keeps the lines typed (target and text, in
order) and where the lab's state stood at its first line (a `StatePoint`: the store's last image
and a count of the calls since, shared by the sessions that start near each other, never a copy
of the state); `grade` builds that state again and replays them on a new in-memory lab
from that start, watched by the grader, exactly as a transcript is graded. That lab is this
session's alone: what another shell on the same lab file did meanwhile is not in it.

Kept apart from solace_shell.grading (which needs the replay machinery) so that opening a lab
imports nothing of grading.
"""

from __future__ import annotations

import pickle
import threading
import weakref
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from state_store.lab_root.model import RootStore

    from .lab import Lab

MAX_LINES = 100_000    # a longer session keeps its first lines only (and says so when graded)
BLOCK = 256            # lines kept as typed before they are compressed as one block


class TypedLines:
    """The (target, line) pairs a session typed, in order. Every full block of `BLOCK` pairs is
    kept pickled and zlib-compressed: a drill repeats its commands, so a block costs a few bytes a
    line where a pair of its own costs a hundred and more, kept as long as the session. Appending
    and reading hold a lock: `lab> progress` reads a served session's lines from another thread
    while it types, and gets every line appended before it, in order."""

    __slots__ = ("_blocks", "_lock", "_open")

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()) -> None:
        self._blocks: list[bytes] = []
        self._open: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self.extend(pairs)

    def append(self, pair: tuple[str, str]) -> None:
        self.append_within(pair, None)

    def append_within(self, pair: tuple[str, str], limit: int | None) -> bool:
        """Append `pair` unless `limit` pairs are kept already (None: no limit); whether it was.
        One holding of the lock: a session appends every line it runs."""
        with self._lock:
            typed = self._open
            if limit is not None and len(self._blocks) * BLOCK + len(typed) >= limit:
                return False
            typed.append(pair)
            if len(typed) == BLOCK:
                self._blocks.append(zlib.compress(pickle.dumps(typed, pickle.HIGHEST_PROTOCOL)))
                self._open = []
            return True

    def extend(self, pairs: Iterable[tuple[str, str]]) -> None:
        for pair in list(pairs):
            self.append(pair)

    def clear(self) -> None:
        with self._lock:
            self._blocks, self._open = [], []

    def __len__(self) -> int:
        with self._lock:
            return len(self._blocks) * BLOCK + len(self._open)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        with self._lock:
            blocks, typed = list(self._blocks), list(self._open)
        for block in blocks:
            yield from pickle.loads(zlib.decompress(block))
        yield from typed

    def __repr__(self) -> str:
        return f"TypedLines({len(self)} lines)"


@dataclass
class SessionLog:
    """The lines of one `Lab` (one terminal), and `start`, which builds a new Lab in the state
    the session started from (set when the lab is made, or taken at its first line)."""

    start: Callable[[], Lab] | None = None
    lines: TypedLines = field(default_factory=TypedLines)
    dropped: int = 0

    def keep_start(self, lab: Lab) -> None:
        """Called before the session's first line: remember where the lab's state is now (a
        session on a lab file starts wherever that lab is) as a `StatePoint`: the store's last
        image and how many calls since it, shared with every session that starts before the next
        image, so a session costs the same few bytes whatever the size of the lab. `start` builds
        the state again from it when `grade` asks. A lab whose position cannot be taken, or whose
        state cannot be built again, is still usable; only `grade` then says it cannot grade."""
        from state_store.lab_store import LabStore

        from .lab import Lab as LabType

        try:
            point = lab.store.start_point()
        except Exception as exc:  # noqa: BLE001 - grading must never cost the user their line
            self.start = _cannot(f"the state the session started from could not be kept ({type(exc).__name__})")
            return
        user = lab.user.name

        def rebuilt() -> Lab:
            try:
                store: RootStore = LabStore.at(point)
            except Exception as exc:  # noqa: BLE001 - one line from `grade`, never a traceback
                raise RuntimeError(f"the state the session started from could not be rebuilt "
                                   f"({type(exc).__name__})") from None
            return LabType(store, user=user)
        self.start = rebuilt

    def add(self, target: str, line: str) -> None:
        if not self.lines.append_within((target, line), MAX_LINES):
            self.dropped += 1

    def clear(self) -> None:
        self.lines.clear()
        self.dropped = 0


def _cannot(reason: str) -> Callable[[], Lab]:
    """A `start` that says why there is no start to grade from (`grade` shows `reason`)."""
    def unavailable() -> Lab:
        raise RuntimeError(reason)
    return unavailable


# The labs that share one store in this process (the sessions of a served class), held weakly:
# a closed or forgotten session leaves the class by itself. With `solace-shell serve --workers N`,
# each server process holds the sessions it serves.
_lock = threading.Lock()
_classes: dict[int, weakref.WeakSet[Lab]] = {}     # id(store) -> the labs on it


def join_class(lab: Lab) -> None:
    """Count `lab` among the sessions of its store."""
    key = id(lab.store)
    with _lock:
        for stale in [k for k, labs in _classes.items() if not labs]:
            del _classes[stale]
        _classes.setdefault(key, weakref.WeakSet()).add(lab)


def classmates(lab: Lab) -> list[Lab]:
    """Every session on `lab`'s store (itself included), in no particular order."""
    with _lock:
        return list(_classes.get(id(lab.store), ()))
