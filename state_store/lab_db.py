"""Labs in a shared PostgreSQL database, reached through an SQLAlchemy URL: the journal of many
labs in one database, and the lock that lets one process at a time run a lab's commands.

Why: a lab file is one machine's; a class served by several hosts behind a load balancer needs
every host to find every lab as it was left. The journal is the lab file's (``lab_tables``: a
``calls`` row per command, ``snapshot`` rows, ``part`` rows of a big snapshot), one table for every
lab with the lab's name in its key. ``DbJournal`` speaks it with the same contract as
``journal_file.Journal``, so ``LabStore`` runs over either.

- One host at a time: every command runs inside one transaction that first takes the lab's
  PostgreSQL advisory transaction lock (``pg_advisory_xact_lock``), catches up with the rows other
  hosts appended, runs, appends its row and commits (the store's exclusive mode, always on here:
  ``exclusive_after=0``). The lock is the database's, so it is released when the transaction ends
  or its connection dies with a killed host; ``lock_timeout`` bounds one wait, after which the store
  retries and finally answers ``LabBusy``.
- A lost connection aborts the transaction: nothing of the command was written, the store rolls
  its memory back, and the command's answer is one line (``lab_file.damage_problem`` names the
  database's failure). SQLAlchemy then drops the pool's connections, so the next command
  reconnects (no ping before every use: a ping per statement would cost as much as the statement).
- A connection lost during the COMMIT of a transaction that wrote leaves its outcome unknown to
  this host: the transaction's id (``pg_current_xact_id``, returned by the statement that writes
  the row, so no extra round trip) is looked up on a new connection (``pg_xact_status``). Committed:
  the command stands (only its acknowledgement was lost). Aborted: nothing was changed, as for any
  lost connection. The database unreachable: ``CommitUnknown`` (never "nothing was changed"); the
  store reads the lab again at its next command, which then shows whether it was applied.
- Inside a unit (``deferring``, ``LabStore.joined``) the transaction stays open, holding the lab's
  lock, after the command's writes, so the caller can write more in it (the class record's line);
  it commits, or rolls back, when the unit ends.
- The database's schema carries a version per part (``schema_versions``): a database written by another
  schema version is refused in one line before anything is read or written.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

from . import loader
from .commit_unit import CommitUnit, Deferring
from .errors import CommitUnknown, LabFileError
from .lab_tables import PART, PARTS_PREFIX, SNAPSHOT
from .tuning import DEFAULT_TUNING, StoreTuning

if TYPE_CHECKING:
    from sqlalchemy import Engine, MetaData, Table
    from sqlalchemy.engine import Connection, RootTransaction

_LAB = loader.lab_model()
LAB_SCHEMA_VERSION = "1"  # of the shared lab journal (the lab file's body format is SCHEMA_VERSION's)
SCHEMA_LOCK = 0x736f6c61  # advisory lock key while a schema is created (one creator at a time)
LAB_LOCK_CLASS = 0x6c616273  # first half of a lab's advisory lock key; the second is its name's CRC
SCHEMES = ("postgresql", "postgresql+psycopg")
# After a connection lost during a COMMIT: how long to wait for the database to settle the
# transaction (it is "in progress" until the server notices the client is gone), and how often to ask.
COMMIT_CHECK_S = 10.0
COMMIT_CHECK_PAUSE_S = 0.1
log = logging.getLogger(__name__)
# The statements every command runs, in the driver's own form (no SQLAlchemy compilation per use):
# the lab's lock and its last row; the append of a row unless a row other than a part came since,
# with the new row's number and the transaction's id (what a lost COMMIT is checked with).
_LOCK_SQL = ("SELECT set_config('lock_timeout', %(wait)s, true), "
             "pg_advisory_xact_lock(CAST(%(a)s AS INTEGER), CAST(%(b)s AS INTEGER)), "
             "(SELECT max(seq) FROM lab_journal WHERE lab = CAST(%(lab)s AS VARCHAR))")
_APPEND_SQL = ("INSERT INTO lab_journal (lab, seq, kind, body) "
               "SELECT CAST(%(lab)s AS VARCHAR), coalesce(max(seq), 0) + 1, CAST(%(kind)s AS VARCHAR), "
               "CAST(%(body)s AS TEXT) FROM lab_journal WHERE lab = CAST(%(lab)s AS VARCHAR) "
               "HAVING NOT EXISTS (SELECT 1 FROM lab_journal WHERE lab = CAST(%(lab)s AS VARCHAR) "
               "AND seq > CAST(%(expected)s AS BIGINT) AND kind <> CAST(%(part)s AS VARCHAR)) "
               "RETURNING seq, CAST(pg_current_xact_id() AS TEXT)")


def is_database_url(text: str) -> bool:
    """Whether a `--db` value is a database URL rather than a path."""
    return "://" in text


def shown_url(url: str) -> str:
    """The URL as it may be shown or logged: the password hidden."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return "the database URL"


def one_line(exc: BaseException) -> str:
    """The database's own message about a failure, one line, no control characters."""
    cause = getattr(exc, "orig", None) or exc
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:200]


def connect(url: str, pool_size: int = 4) -> Engine:
    """An engine over the database at ``url``, checked reachable; ``LabFileError`` (one line, the
    password hidden) when the URL is not a PostgreSQL one, names a missing driver, or the server
    cannot be reached or refuses the login."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    shown = shown_url(url)
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise LabFileError(shown, "not a database URL (expected postgresql+psycopg://USER:PASSWORD@HOST/DB)") from None
    if parsed.drivername not in SCHEMES:
        raise LabFileError(shown, f"database kind {parsed.drivername!r} is not supported here "
                                  "(postgresql+psycopg://..., or a directory for SQLite files)")
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    try:
        engine = create_engine(parsed, pool_size=pool_size, max_overflow=pool_size,
                               pool_timeout=30, connect_args={"connect_timeout": 10})
    except (NoSuchModuleError, ImportError):
        raise LabFileError(shown, "the PostgreSQL driver is not installed "
                                  "(pip install 'solace-shell[postgres]')") from None
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        engine.dispose()
        raise LabFileError(shown, f"cannot connect: {one_line(exc)}") from None
    return engine


def driver_row(conn: Connection, sql: str, params: dict[str, Any], one: bool = True) -> Any:
    """The first row of ``sql`` (in the driver's form) run by the driver itself on ``conn``, in its
    transaction: what ``conn.exec_driver_sql`` does without SQLAlchemy's statement and result
    objects, which cost more than the round trip of a short statement. A driver error is raised as
    SQLAlchemy's (``DBAPIError`` with the driver's error as ``orig``); a lost connection is first
    met by SQLAlchemy itself, so that it invalidates the connection and the pool's others as it
    does for its own statements. ``one``: a missing row is an error (else None)."""
    from sqlalchemy.exc import DBAPIError

    dialect = conn.dialect
    error = dialect.loaded_dbapi.Error
    proxied = conn.connection
    driver: Any = proxied.driver_connection  # (None only for a connection already closed)
    cursor = None
    try:
        cursor = driver.cursor()
        cursor.execute(sql, params)
        row = cursor.fetchone()
    except error as exc:
        if dialect.is_disconnect(exc, proxied.dbapi_connection, cursor):
            conn.exec_driver_sql("SELECT 1")  # raises, the connection invalidated (unless it is not lost)
        raise DBAPIError.instance(sql, params, exc, error, dialect=dialect) from None
    finally:
        if cursor is not None:
            cursor.close()
    if row is None and one:
        raise LookupError("the statement gave no row")
    return row


class Tables(NamedTuple):
    metadata: MetaData
    meta: Table
    journal: Table


@cache
def tables() -> Tables:
    from sqlalchemy import BigInteger, Column, MetaData, String, Table, Text

    metadata = MetaData()
    meta = Table("schema_versions", metadata,
                 Column("key", String, primary_key=True),
                 Column("value", Text, nullable=False))
    journal = Table("lab_journal", metadata,
                    Column("lab", String, primary_key=True),
                    Column("seq", BigInteger, primary_key=True, autoincrement=False),
                    Column("kind", String, nullable=False),
                    Column("body", Text, nullable=False))
    return Tables(metadata, meta, journal)


def ensure_schema(engine: Engine, shown: str, part: str, version: str, metadata: MetaData,
                  extra: Callable[[Connection], None] | None = None) -> None:
    """Create ``metadata``'s tables (and run ``extra``) when missing, under a database-wide lock so
    hosts starting together create them once; then check ``part``'s schema version. Another
    version: ``LabFileError`` (nothing created or changed)."""
    from sqlalchemy import insert, select, text
    from sqlalchemy.exc import SQLAlchemyError

    meta = tables().meta
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            tables().metadata.create_all(conn, tables=[meta])
            found = conn.execute(select(meta.c.value).where(meta.c.key == part)).scalar()
            if found is not None and found != version:
                raise LabFileError(shown, f"the database holds {part} schema version {found}; this program "
                                          f"needs {version} (use another database, or this program's version "
                                          "that wrote it)")
            metadata.create_all(conn)
            if extra is not None:
                extra(conn)
            if found is None:
                conn.execute(insert(meta).values(key=part, value=version))
    except SQLAlchemyError as exc:
        raise LabFileError(shown, f"cannot set up its tables: {one_line(exc)}") from None


def lab_lock_key(lab: str) -> int:
    """The second half of the lab's advisory lock key (a signed 32-bit CRC of its name: two labs
    sharing one only wait for each other)."""
    crc = zlib.crc32(lab.encode())
    return crc - (1 << 32) if crc >= 1 << 31 else crc


class DbJournal(Deferring):
    """The journal of one lab in a shared database (``journal_file.Journal``'s contract).

    Connections come from the engine's pool: a transaction holds one while it runs, so a host's
    connections are its pool's size whatever the number of labs it serves."""

    def __init__(self, engine: Engine, lab: str, shown: str, tuning: StoreTuning = DEFAULT_TUNING) -> None:
        self.engine = engine
        self.lab = lab
        self.path = f"{shown} (lab {lab})"
        self.part_size = tuning.part_size
        self.lock_timeout_ms = tuning.busy_timeout_ms
        self.data_version = -1
        self.held = False
        self._conn: Connection | None = None
        self._fresh = False  # a write of this journal just committed (see changed)
        self._head = 0  # the lab's last row when the lock was taken (then this journal's own rows)
        self._last_seen = -1  # the last row this journal read or wrote (-1: unknown)
        self._xid: str | None = None  # the open transaction's id, once it wrote a row
        self._unit = None  # inside deferring(): the unit its transaction is kept for
        self._trans: RootTransaction | None = None  # the transaction a unit keeps open
        self._key = lab_lock_key(lab)

    def changed(self) -> bool:
        """Whether to read the rows after the last one: under the lab's lock, when the lab's last
        row (read by the statement that takes the lock) is not the last this journal read or
        wrote; outside it, always but right after this journal's own write (the read just after a
        command, e.g. of its clock, sees what the command left).

        Why this is safe: the locking statement's snapshot is taken before it waits, so a row
        another host commits meanwhile can be missed. A command that then writes is refused by
        ``append``'s check (``WriteConflict``: the store reads and runs it again); one that writes
        nothing answered as if it had run just before that row. Each trainee's own commands are
        sequential, so none misses its own last one."""
        if self.data_version == -1:  # (the store's way of asking for a read)
            self.data_version = 0
            return True
        if self.held:
            return self._head != self._last_seen
        fresh, self._fresh = self._fresh, False
        return not fresh

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """One transaction holding the lab's advisory lock from its first statement, committed at
        the end (inside a unit: when the unit ends); inside one already held, that one."""
        from sqlalchemy.exc import SQLAlchemyError

        if self.held and self._conn is not None:
            try:
                yield self._conn
            except SQLAlchemyError:
                if self._unit is not None:  # the database refused a statement: the transaction is lost
                    self._unit.broken = True
                raise
            return
        conn = self.engine.connect()
        try:
            trans = conn.begin()
            self._head = driver_row(conn, _LOCK_SQL, {
                "wait": str(int(self.lock_timeout_ms)), "a": LAB_LOCK_CLASS, "b": self._key, "lab": self.lab,
            })[2] or 0
            self._conn, self.held, self._xid = conn, True, None
            yield conn
            if self._unit is not None:  # kept open, the lock held: the unit commits it (deferring)
                self._unit.connection, self._trans = conn, trans
                return
            self._conn, self.held = None, False
            self._commit(trans, self._xid)
        except BaseException:
            self._conn, self.held = None, False
            self._last_seen = -1  # what this transaction wrote may not be there: read again next time
            conn.close()  # (a transaction still open is rolled back)
            raise
        conn.close()
        self._fresh = True

    def _end_unit(self, unit: CommitUnit, commit: bool) -> None:
        """Commit or roll back what a ``deferring`` unit kept. A failed commit: ``LabFileError``
        when the database says nothing was committed, ``CommitUnknown`` when it cannot be asked;
        a lost acknowledgement of a commit that happened is no failure."""
        from sqlalchemy.exc import DBAPIError

        conn, trans = unit.connection, self._trans
        self._unit, self._trans = None, None
        if conn is None or trans is None:
            return
        self._conn, self.held = None, False
        try:
            if not commit:
                self._last_seen = -1
                return
            try:
                self._commit(trans, self._xid or unit.xid)
            except DBAPIError as exc:
                self._last_seen = -1
                raise LabFileError(self.path, connection_problem(exc) or one_line(exc)) from None
            except BaseException:
                self._last_seen = -1
                raise
            self._fresh = True
        finally:
            conn.close()  # (rolls back what was not committed)

    def _commit(self, trans: RootTransaction, xid: str | None) -> None:
        """Commit; when the connection is lost meanwhile and the transaction wrote (``xid``), ask
        the database on a new connection what became of it (module docstring)."""
        from sqlalchemy.exc import DBAPIError

        try:
            trans.commit()
        except DBAPIError as exc:
            if xid is None or not exc.connection_invalidated:
                raise
            status = self.commit_status(xid)
            if status == "committed":
                log.warning("lab %s: the connection was lost during a commit that happened (transaction %s)",
                            self.path, xid)
                return
            if status == "aborted":
                raise LabFileError(self.path, f"the connection to the database was lost while committing "
                                              f"({one_line(exc)}); the database says it was not committed") from None
            raise CommitUnknown(self.path, f"the connection to the database was lost while committing "
                                           f"({one_line(exc)}), and the database could not be asked whether it "
                                           "was") from None

    def commit_status(self, xid: str) -> str | None:
        """What became of transaction ``xid``: "committed", "aborted", or None when the database
        cannot be reached (or keeps it in progress) for ``COMMIT_CHECK_S``."""
        from sqlalchemy import text
        from sqlalchemy.exc import SQLAlchemyError

        deadline = time.monotonic() + COMMIT_CHECK_S
        while True:
            try:
                with self.engine.connect() as conn:
                    status = conn.execute(text("SELECT pg_xact_status(CAST(:xid AS xid8))"), {"xid": xid}).scalar()
            except SQLAlchemyError:
                status = None
            if status in ("committed", "aborted"):
                return str(status)
            if time.monotonic() >= deadline:
                return None
            time.sleep(COMMIT_CHECK_PAUSE_S)

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        if self.held and self._conn is not None:
            yield self._conn
            return
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def exists(self) -> bool:
        from sqlalchemy import select

        journal = tables().journal
        with self._reading() as conn:
            return conn.execute(select(journal.c.seq).where(journal.c.lab == self.lab).limit(1)).first() is not None

    def create_if_missing(self, body: Callable[[], str]) -> bool:
        """The lab's first snapshot, unless the lab exists (True when this call created it)."""
        from sqlalchemy import insert

        with self.writing() as conn:
            if self.exists():
                return False
            conn.execute(insert(tables().journal).values(lab=self.lab, seq=1, kind=SNAPSHOT, body=body()))
            return True

    def rows_after(self, seq: int) -> list[tuple[int, str, str]]:
        """The rows after ``seq`` from the latest snapshot among them on, a snapshot in parts given
        whole (one transaction: a consistent view)."""
        from sqlalchemy import case, literal, select

        journal = tables().journal
        body = case((journal.c.kind == PART, literal("")), else_=journal.c.body)
        with self._reading() as conn:
            found = conn.execute(select(journal.c.seq, journal.c.kind, body)
                                 .where(journal.c.lab == self.lab, journal.c.seq > seq).order_by(journal.c.seq))
            rows = [(int(r[0]), str(r[1]), str(r[2])) for r in found]
            self._last_seen = rows[-1][0] if rows else seq
            latest = max((i for i, r in enumerate(rows) if r[1] == SNAPSHOT), default=0)
            rows = rows[latest:]
            if rows and rows[0][1] == SNAPSHOT and rows[0][2].startswith(PARTS_PREFIX):
                rows[0] = (rows[0][0], SNAPSHOT, self._assemble(conn, rows[0][0], rows[0][2]))
            return rows

    def _assemble(self, conn: Connection, seq: int, body: str) -> str:
        from sqlalchemy import select

        journal = tables().journal
        try:
            parts = _LAB.loads(body)["parts"]
            if type(parts) is not list or not all(type(p) is int for p in parts) or len(parts) > 10_000:
                raise TypeError
        except (_LAB.codec_error, TypeError, KeyError) as exc:
            raise LabFileError(self.path, f"lab is damaged (journal row {seq}: a bad list of parts)") from exc
        found: dict[int, Any] = {int(s): b for s, b in conn.execute(
            select(journal.c.seq, journal.c.body).where(journal.c.lab == self.lab, journal.c.kind == PART,
                                                         journal.c.seq.in_(parts)))}
        if len(found) != len(set(parts)):
            raise LabFileError(self.path, f"lab is damaged (journal row {seq}: parts of the snapshot are missing)")
        return "".join(str(found[p]) for p in parts)

    def last_row(self, conn: Connection) -> int:
        """The lab's last journal row (0: none)."""
        from sqlalchemy import func, select

        journal = tables().journal
        return int(conn.execute(select(func.max(journal.c.seq)).where(journal.c.lab == self.lab)).scalar() or 0)

    def append(self, expected_last: int, kind: str, body: str) -> int:
        """Append one row after ``expected_last`` (``WriteConflict`` when another host appended a
        row since, parts excepted: under the lab's lock it cannot have)."""
        from .journal_file import WriteConflict

        with self.writing() as conn:  # one statement: the next seq, unless a row other than a part came since
            row = driver_row(conn, _APPEND_SQL, {"lab": self.lab, "kind": kind, "body": body,
                                                 "expected": expected_last, "part": PART}, one=False)
            if row is None:
                self._last_seen = -1
                raise WriteConflict()
            seq = int(row[0])
            self._xid = str(row[1])
            self._last_seen = self._head = seq  # under the lab's lock: no one else appends
            if self._unit is not None:
                self._unit.appended = seq
        return seq

    def append_snapshot(self, expected_last: int, text: str) -> tuple[int, set[int]]:
        parts: list[int] = []
        size = self.part_size
        with self.writing():
            if len(text) > size:
                for at in range(0, len(text), size):
                    parts.append(self.append_part(text[at:at + size]))
                text = _LAB.dumps({"parts": parts})
            return self.append(expected_last, SNAPSHOT, text), set(parts)

    def append_part(self, chunk: str) -> int:
        from sqlalchemy import insert

        with self.writing() as conn:
            seq = self.last_row(conn) + 1
            conn.execute(insert(tables().journal).values(lab=self.lab, seq=seq, kind=PART, body=chunk))
        return seq

    def collect(self, snapshot: int, keep: set[int]) -> None:
        """Drop the rows a committed snapshot supersedes (one statement: the database handles it)."""
        from sqlalchemy import delete

        journal = tables().journal
        with self.writing() as conn:
            query = delete(journal).where(journal.c.lab == self.lab, journal.c.seq < snapshot)
            if keep:
                query = query.where(journal.c.seq.not_in(sorted(keep)))
            conn.execute(query)

    def replace_all(self, body: str) -> tuple[int, set[int]]:
        """A reset: one snapshot supersedes the lab's whole journal (under the lab's lock)."""
        with self.writing() as conn:
            return self.append_snapshot(self.last_row(conn), body)

    def close(self) -> None:
        """Nothing to let go: the engine and its pool belong to whoever opened the database."""


def is_lock_timeout(exc: BaseException) -> bool:
    """PostgreSQL's lock_timeout, deadlock or serialization failure: wait and try again."""
    cause = getattr(exc, "orig", None) or exc
    return getattr(cause, "sqlstate", None) in ("55P03", "40P01", "40001")


def connection_problem(exc: BaseException) -> str | None:
    """What a database error (through SQLAlchemy, from psycopg) says, in one line; None for any
    other exception."""
    if not type(exc).__module__.startswith("sqlalchemy"):
        return None
    from sqlalchemy.exc import DBAPIError, SQLAlchemyError

    if not isinstance(exc, SQLAlchemyError):
        return None
    cause = getattr(exc, "orig", None)
    if cause is None or type(cause).__module__.startswith("sqlite3"):
        return None
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return f"the connection to the database was lost ({one_line(exc)})"
    return f"the database failed ({one_line(exc)})"


def open_store(cls: type[Any], engine: Engine, shown: str, lab: str, scenario: Any,
               tuning: StoreTuning = DEFAULT_TUNING) -> Any:
    """The lab ``lab`` of the database as a ``cls`` (a ``LabStore``), created from ``scenario``
    when it has no row yet; its commands always hold the lab's lock (``exclusive_after=0``)."""
    from dataclasses import replace

    from sqlalchemy.exc import SQLAlchemyError

    from . import lab_file
    from .images import Image, scenario_path, template

    journal = DbJournal(engine, lab, shown, tuning)
    try:
        journal.create_if_missing(lambda: _LAB.state_text(template(scenario_path(scenario)).load()))
        store = cls(_LAB.new_state(), journal.path, Image(b"", 0), journal,
                    tuning=replace(tuning, exclusive_after=0))
        store._catch_up(opening=True)
    except SQLAlchemyError as exc:
        raise LabFileError(journal.path, connection_problem(exc) or one_line(exc)) from None
    lab_file.check_state(journal.path, store.state)  # type: ignore[arg-type]
    return store
