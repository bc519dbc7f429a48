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
