"""The one lab store of an SSH server process, whose transactions run one at a time.

Why: every SSH session has its own `Lab` (its user, its routers' level stacks) over this one store,
and commands run in worker threads so the event loop keeps serving the other sessions. The lock
serializes every use of the store from any thread: commands (`Session.execute` opens one
transaction each), `lab> reset`, the position a session keeps of its start (for `lab> grade`),
and the reads of Tab completion and the toolbar clock. Each session sees the others' changes at
its next command, and SQLite never sees two users of this process's connection at once. Waiters
get the lock in the order they came (`FairRLock`), so a stream of commands cannot keep it from a
login or a command.
Nothing is written to a client while the lock is held: sessions take it only inside the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from state_store.commit_unit import CommitUnit
from state_store.lab_root.engine import RootEngine
from state_store.lab_root.state import RootState
from state_store.lab_store import LabStore

from .fairlock import FairRLock


class SerializedStore(LabStore[RootState, RootEngine]):
    """A `LabStore` (opened with `SerializedStore.open`) whose transactions and resets never overlap."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lock = FairRLock()

    @contextmanager
    def transaction(self) -> Iterator[RootEngine]:
        with self.lock, super().transaction() as engine:
            yield engine

    @contextmanager
    def joined(self) -> Iterator[CommitUnit]:
        """A unit of commit (`LabStore.joined`) holding the lock to its end: its transaction stays
        open meanwhile, and no other session's transaction may join it."""
        with self.lock, super().joined() as unit:
            yield unit

    def reset(self, scenario: str | Path | None = None) -> None:
        with self.lock:
            super().reset(scenario)

    def copy(self) -> LabStore[RootState, RootEngine]:
        """A copy of the state now: catching up reads the lab file over the same connection as
        the others' commands, so it waits its turn."""
        with self.lock:
            return super().copy()
