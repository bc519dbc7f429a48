"""The journal of one lab file over one SQLite connection: reading rows after a position,
appending a command's row or a snapshot (in parts when big), compacting.

Why a module of its own: ``LabStore`` decides what to persist and when; this knows how, and is
the only part of the store that speaks SQL.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

from . import loader
from .commit_unit import CommitUnit, Deferring
from .errors import LabFileError
from .lab_tables import CALLS, PART, PARTS_PREFIX, SCHEMA_VERSION, SNAPSHOT, tables
from .tuning import DEFAULT_TUNING, StoreTuning

if TYPE_CHECKING:
    from pathlib import Path

    from sqlalchemy.engine import Connection, RootTransaction

_LAB = loader.lab_model()  # the lab's root model: its codec reads and writes the journal's JSON


class WriteConflict(Exception):
    """Another shell appended to the journal after this shell caught up: the command was rolled
    back and must run again on the caught-up state (``LabStore.run`` does)."""


def is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY in its forms: the lock is held, or this snapshot is stale for writing; in a
    shared database (``lab_db``), the lab's lock not had within ``lock_timeout``."""
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return "locked" in text or "busy" in text
    if "sqlalchemy" not in sys.modules:  # nothing of SQLAlchemy ran: not one of its errors
        return False
    from sqlalchemy.exc import OperationalError

    if not isinstance(exc, OperationalError):
        return False
    from .lab_db import is_lock_timeout

    if is_lock_timeout(exc):  # a shared database's lab lock, not had in time
        return True
    text = str(getattr(exc, "orig", exc)).lower()
    return "locked" in text or "busy" in text


class Journal(Deferring):
    """The journal of one lab file over one SQLite connection.

    Why two ways onto one connection: writing (one short ``BEGIN IMMEDIATE`` transaction per
    command, snapshots, compaction) goes through SQLAlchemy Core on the schema's tables; the two
    reads every command needs (``PRAGMA data_version``, the rows after the last one applied) are one
    statement each on the same DB-API connection. So a shell that only reads -- ``solace-shell -c
    "show ..."`` -- never imports SQLAlchemy, which would be most of its start-up time; the first
    command that changes the lab does (``core``)."""

    def __init__(self, path: Path, tuning: StoreTuning = DEFAULT_TUNING) -> None:
        self.path = path
        self.part_size = tuning.part_size
        self.raw = sqlite3.connect(path, timeout=tuning.busy_timeout_ms / 1000, check_same_thread=False,
                                   isolation_level=None)
        try:
            self.raw.execute(f"PRAGMA busy_timeout={tuning.busy_timeout_ms}")
            self.raw.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL keeps every commit across a killed process (the kill test proves
            # it); only a power cut can lose the last commits. FULL would fsync every command.
            self.raw.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            self.raw.close()
            raise
        self.data_version = -1
        self._conn: Connection | None = None
        self.held = False  # inside writing(): the write lock is this connection's
        self._unit = None  # inside deferring(): the unit its transaction is kept for
        self._trans: RootTransaction | None = None  # the transaction a unit keeps open

    @property
    def core(self) -> Connection:
        """A SQLAlchemy Core connection over the same SQLite connection (made on first use)."""
        if self._conn is None:
            from sqlalchemy import create_engine, event
            from sqlalchemy.pool import StaticPool

            engine = create_engine("sqlite://", poolclass=StaticPool, creator=lambda: self.raw)

            @event.listens_for(engine, "begin")
            def _begin(conn):  # type: ignore[no-untyped-def]
                conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.info.get("immediate") else "BEGIN")

            self._conn = engine.connect()
        return self._conn

    def changed(self) -> bool:
        """Whether another connection committed since the last call (one pragma, no transaction)."""
        version = int(self.raw.execute("PRAGMA data_version").fetchone()[0])
        if version == self.data_version:
            return False
        self.data_version = version
        return True

    def rows_after(self, seq: int) -> list[tuple[int, str, str]]:
        """The journal rows after ``seq`` in order, from the latest snapshot among them on, with a
        snapshot written in parts given whole (one read transaction: a consistent view)."""
        own = not self.raw.in_transaction
        if own:
            self.raw.execute("BEGIN")
        try:
            try:
                found = self.raw.execute("SELECT seq, kind, CASE WHEN kind = ? THEN '' ELSE body END FROM journal "
                                         "WHERE seq > ? ORDER BY seq", (PART, seq)).fetchall()
                rows = [(int(r[0]), str(r[1]), str(r[2])) for r in found]
            except sqlite3.DatabaseError as exc:
                if is_busy(exc):
                    raise
                raise LabFileError(str(self.path), f"lab file is damaged ({exc})") from None
            except (TypeError, ValueError):
                raise LabFileError(str(self.path), "lab file is damaged (a journal row without a number)") from None
            latest = max((i for i, r in enumerate(rows) if r[1] == SNAPSHOT), default=0)
            rows = rows[latest:]
            if rows and rows[0][1] == SNAPSHOT and rows[0][2].startswith(PARTS_PREFIX):
                rows[0] = (rows[0][0], SNAPSHOT, self._assemble(rows[0][0], rows[0][2]))
            return rows
        finally:
            if own:
                self.raw.execute("COMMIT")

    def _assemble(self, seq: int, body: str) -> str:
        """The text of a snapshot written in parts (``{"parts": [seq, ...]}``)."""
        try:
            parts = _LAB.loads(body)["parts"]
            if type(parts) is not list or not all(type(p) is int for p in parts) or len(parts) > 10_000:
                raise TypeError
        except (_LAB.codec_error, TypeError, KeyError) as exc:
            raise LabFileError(str(self.path), f"lab file is damaged (journal row {seq}: a bad list of parts)") from exc
        found = dict(self.raw.execute(
            f"SELECT seq, body FROM journal WHERE kind = ? AND seq IN ({','.join('?' * len(parts))})", (PART, *parts)))
        if len(found) != len(set(parts)):
            raise LabFileError(str(self.path), f"lab file is damaged (journal row {seq}: "
                                               "parts of the snapshot are missing)")
        return "".join(str(found[p]) for p in parts)

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """One BEGIN IMMEDIATE transaction (the write lock from its first statement), committed at
        the end (inside a unit: when the unit ends); inside one already held, that one."""
        conn = self.core
        if self.held:
            yield conn
            return
        conn.info["immediate"] = True
        try:
            trans = conn.begin()
        finally:
            conn.info["immediate"] = False
        self.held = True
        try:
            yield conn
            if self._unit is not None:  # kept open, the write lock held: the unit commits it (deferring)
                self._unit.connection, self._trans = conn, trans
                return
            self.held = False
            trans.commit()
        except BaseException:
            self.held = False
            with suppress(Exception):  # (a failed COMMIT leaves the transaction open)
                trans.rollback()
            raise

    def _end_unit(self, unit: CommitUnit, commit: bool) -> None:
        """Commit or roll back what a ``deferring`` unit kept. A failed commit raises the
        database's error (nothing of the unit was written) as ``LabFileError``."""
        trans = self._trans
        self._unit, self._trans = None, None
        if trans is None:
            return
        self.held = False
        if not commit:
            trans.rollback()
            return
        try:
            trans.commit()
        except BaseException as exc:
            with suppress(Exception):
                trans.rollback()
            from .lab_file import damage_problem

            problem = damage_problem(exc) if isinstance(exc, Exception) else None
            if problem is None:
                raise
            raise LabFileError(str(self.path), problem) from None

    def last_row(self, conn: Connection) -> int:
        """The journal's last row (0: none)."""
        from sqlalchemy import func, select

        return int(conn.execute(select(func.max(tables().journal.c.seq))).scalar() or 0)

    def append(self, expected_last: int, kind: str, body: str) -> int:
        """Append one row after ``expected_last``: WriteConflict when another shell appended a row
        since (snapshot parts, which change nothing, excepted). Returns the new row's seq."""
        from sqlalchemy import func, insert, select

        journal = tables().journal
        with self.writing() as conn:
            last = conn.execute(select(func.max(journal.c.seq))).scalar() or 0
            if last != expected_last and conn.execute(select(func.count()).where(
                    journal.c.seq > expected_last, journal.c.kind != PART)).scalar():
                raise WriteConflict()
            seq = int(last) + 1
            conn.execute(insert(journal).values(seq=seq, kind=kind, body=body))
            if self._unit is not None:
                self._unit.appended = seq
                if self._unit.base is None:
                    self._unit.base = seq - 1
        return seq

    def append_snapshot(self, expected_last: int, text: str) -> tuple[int, set[int]]:
        """Append a snapshot (WriteConflict as ``append``); a big one is first written in parts of
        ``part_size`` characters, each in its own short transaction, so the write lock is never held
        for long. Returns its seq and its parts (to keep when ``collect`` drops what it supersedes)."""
        parts: list[int] = []
        size = self.part_size
        if len(text) > size:
            for at in range(0, len(text), size):
                parts.append(self.append_part(text[at:at + size]))
            text = _LAB.dumps({"parts": parts})
        return self.append(expected_last, SNAPSHOT, text), set(parts)

    def append_part(self, chunk: str) -> int:
        from sqlalchemy import func, insert, select

        journal = tables().journal
        with self.writing() as conn:
            seq = int(conn.execute(select(func.max(journal.c.seq))).scalar() or 0) + 1
            conn.execute(insert(journal).values(seq=seq, kind=PART, body=chunk))
            if self._unit is not None and self._unit.base is None:
                self._unit.base = seq - 1
        return seq

    def collect(self, snapshot: int, keep: set[int]) -> None:
        """Drop the rows a committed snapshot supersedes (those before it, but its parts): per
        transaction at most one big row (a part or a snapshot, up to ``part_size``) and a few
        hundred calls rows (sizes are known by kind: measuring a row's text would read all of it);
        another shell holding the lock stops it (the next snapshot collects the rest)."""
        from sqlalchemy import delete, select

        journal = tables().journal
        while True:
            try:
                with self.writing() as conn:
                    doomed: list[int] = []
                    big = False
                    for seq, kind in conn.execute(select(journal.c.seq, journal.c.kind)
                                                  .where(journal.c.seq < snapshot).order_by(journal.c.seq)
                                                  .limit(len(keep) + 500)):
                        if seq in keep:
                            continue
                        if kind != CALLS:
                            if big:
                                break
                            big = True
                        doomed.append(seq)
                    if not doomed:
                        return
                    conn.execute(delete(journal).where(journal.c.seq.in_(doomed)))
            except Exception as exc:
                if is_busy(exc):
                    return
                raise
            if self.held:  # inside a command's own transaction: the rest waits for the next snapshot
                return

    def replace_all(self, body: str) -> tuple[int, set[int]]:
        """A reset: one snapshot row supersedes the whole journal, whatever others appended."""
        while True:
            last = int(self.raw.execute("SELECT max(seq) FROM journal").fetchone()[0] or 0)
            try:
                return self.append_snapshot(last, body)
            except WriteConflict:
                continue  # another shell appended a moment ago: supersede that too

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn.engine.dispose()
        self.raw.close()


def fill_new_lab(con: sqlite3.Connection, body: str) -> None:
    """The tables of a new lab file and its first snapshot (``lab_file.create`` commits)."""
    from sqlalchemy import create_engine, insert
    from sqlalchemy.pool import StaticPool

    metadata, meta, journal = tables()
    engine = create_engine("sqlite://", poolclass=StaticPool, creator=lambda: con)
    with engine.begin() as conn:
        metadata.create_all(conn)
        conn.execute(insert(meta).values(key="schema_version", value=SCHEMA_VERSION))
        conn.execute(insert(journal).values(seq=1, kind=SNAPSHOT, body=body))
