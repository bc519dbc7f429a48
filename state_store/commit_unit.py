"""One unit of commit over a lab's journal: every transaction the store runs inside it, and what
the caller writes beside them, committed together when it ends (``LabStore.joined``).

Why: a class records each line a trainee runs (its output included) in the class record. The
output is known only after the command's own transaction; committing the lab's row first and the
record line after leaves a window where a crash keeps the change without its line. Inside a unit
the journal keeps its transaction open at the end of the command (holding the lab's lock) and
commits it when the unit ends, so the record line can go in the same transaction (a shared
database) or be committed before the lab's row (a lab file, whose record is another file).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


@dataclass
class CommitUnit:
    """What a unit holds so far.

    - ``connection``: the journal's open transaction once a command of the unit started one (None
      before, always for a lab in memory, and for a lab file while nothing was written: reads
      need no transaction there). In a shared database, others may write rows through it.
    - ``appended``: the last journal row the unit appended (None: it changed nothing); ``base``:
      the lab's last row before the unit's first (a lab file's: what the class record checks).
    - ``xid``: the database's id of the transaction, once something was written in it (a shared
      database's ``pg_current_xact_id``): what says, after a connection lost during the commit,
      whether the commit happened. Whoever writes through ``connection`` sets it.
    - ``broken``: a statement of the transaction failed; it can only roll back (the commands'
      answers already say so), so nothing more may be written through ``connection``."""

    connection: Connection | None = None
    appended: int | None = None
    base: int | None = None
    xid: str | None = None
    broken: bool = False


class Deferring:
    """A journal that can keep its transaction for a unit (``deferring``): the part every kind of
    journal shares. Its own ``_end_unit`` commits or rolls back what the unit kept, and says how
    a failed commit is reported."""

    _unit: CommitUnit | None = None  # inside deferring(): the unit its transaction is kept for

    @contextmanager
    def deferring(self) -> Iterator[CommitUnit]:
        """A unit: the transaction the first write inside starts stays open (the lab's write lock
        held) until the unit ends; then it is committed, or rolled back when the block raised or
        the unit is ``broken`` (a failed commit: see the journal's ``_end_unit``)."""
        if self._unit is not None:
            raise RuntimeError("a unit is already open on this journal")
        unit = self._unit = CommitUnit()
        try:
            yield unit
        except BaseException:
            self._end_unit(unit, commit=False)
            raise
        self._end_unit(unit, commit=not unit.broken)

    def _end_unit(self, unit: CommitUnit, commit: bool) -> None:
        raise NotImplementedError
