"""LabStore: one lab, in memory, kept in a lab file shared by several shells or in memory only.

Why:
- The lab is a ``BrokerState`` in memory; a command's whole effect is the list of mutating Engine
  calls it made (``state_store.journal``). A file lab keeps a journal of those (``state_store.schema``):
  before a command the shell catches up with what other shells appended (``PRAGMA data_version``
  tells when nothing changed, so a quiet lab costs one pragma), and after a command that changed
  something it appends one row in one short ``BEGIN IMMEDIATE`` transaction that first checks no one
  appended since the catch-up. The write lock is held for a few statements only, not while a
  command runs; readers never ask for it (WAL). When another shell appended first, or the lock
  cannot be had, the command is rolled back in memory and ``LabStore.run`` runs it again from the
  start on the caught-up state -- safe because a command is deterministic and a rolled-back command
  changed nothing -- up to a bounded wait, then ``LabBusy`` (one clear line, never a traceback).
  A command that lost that race once runs again holding the lock from its start, so a long command
  cannot be starved by a shell that writes all the time (the only case where the lock is held
  while a command runs).
- A killed shell loses nothing it reported and never half applies a command: a command is one
  committed row or nothing (WAL with ``synchronous=NORMAL`` keeps every commit across a killed
  process; only a power cut can lose the last commits).
- Opening replays the calls after the latest ``snapshot`` row; a snapshot is written now and then
  (every ``SNAPSHOT_EVERY`` calls rows, encoded outside the lock; a big one in parts, each in its
  own short transaction) and the rows it supersedes are then dropped, a few MB per transaction.
- A command that raised leaves the state exactly as before: the state goes back to the last image
  (a pickle of the state, taken in memory only, never written) and the calls since are replayed.
  The image is refreshed when replaying since it would cost more than taking a new one.
- Tests and transcript replay need thousands of fresh labs: each scenario is built once per process
  (cached by path + mtime) and kept as such an image; a fresh in-memory lab is one unpickle.
  Pickle is for in-process images only: a lab file holds JSON (``state_store.codec``), because a
  file may come from anywhere.
- A path that cannot be a usable lab is refused with a one-line ``LabFileError`` (``lab_file``);
  a lab file of an older schema is read into a state and rewritten (``state_store.models``).
- A scenario the builder cannot complete (its initial traffic refused by the engine) is a
  ``ScenarioError``, like any other problem of the file.
"""

from __future__ import annotations

import json
import logging
import pickle
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from . import lab_file
from .codec import SPECS, CodecError, decode_calls, decode_state, dumps, encode_calls, loads, state_text
from .engine import Engine
from .errors import EngineError, LabBusy, LabFileError, ScenarioError
from .passwords import is_hashed
from .scenario_files import DEFAULT_SCENARIO
from .schema import CALLS, PART, PARTS_PREFIX, SCHEMA_VERSION, SNAPSHOT, TABLES, tables
from .state import KINDS, BrokerState, CallRecord, bulk

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from grammar.yaml_source import LocatedDict

T = TypeVar("T")
log = logging.getLogger(__name__)
BUSY_TIMEOUT_MS = 2000  # one attempt's wait for the write lock (SQLite's busy handler)
MAX_WAIT_S = 10.0  # all attempts of one command together
EXCLUSIVE_AFTER = 1  # lost races after which a command runs holding the write lock
SNAPSHOT_EVERY = 200  # calls rows after a snapshot before the next one is written
PART_SIZE = 4_000_000  # characters of snapshot text written (or dropped) per write transaction
# Refresh the image once replaying the calls since it costs this many images. Rollbacks are rare (a
# refused call changes nothing and needs none), so a rare rollback may replay more.
IMAGE_COST_FACTOR = 16
MIN_IMAGE_S = 2e-5  # the least an image is taken to cost (a tiny lab's measure is mostly noise)
BULK_RECORDS = 10_000  # images of more records pause the collector (state.bulk); smaller ones gain nothing
RECORD_IMAGE_S = 3e-6  # first guess of the time to image one record (then measured)
_PICKLE = pickle.HIGHEST_PROTOCOL
_templates: dict[tuple[int, int, int, int], _Image] = {}
_default_image: _Image | None = None  # DEFAULT_SCENARIO's, once built (see _template)
_templates_lock = threading.Lock()


class LabClosed(RuntimeError):
    """The store was closed: its lab can no longer be read or changed."""

    def __init__(self) -> None:
        super().__init__("the lab is closed")


class WriteConflict(Exception):
    """Another shell appended to the journal after this shell caught up: the command was rolled
    back and must run again on the caught-up state (``LabStore.run`` does)."""


# ------------------------------------------------------------------ images
def _register_reducers() -> None:
    """Pickle records as (class, field values): the slotted dataclasses' own pickling calls
    ``dataclasses.fields`` per object, several times slower for a lab of a million messages."""
    import copyreg
    from dataclasses import fields
    from operator import attrgetter

    for cls in KINDS:
        get = attrgetter(*[f.name for f in fields(cls)])

        def reduce(rec: Any, cls: type = cls, get: Any = get) -> tuple[type, tuple[Any, ...]]:
            return cls, get(rec)

        copyreg.pickle(cls, reduce)


_register_reducers()


class _Image:
    """A state to go back to: pickled in memory (never written anywhere), or the JSON text of the
    snapshot row it was read from (no cost to keep). ``seconds`` is what taking it cost (0 when
    unknown): the measure of when replaying calls since it costs more than a new one."""

    def __init__(self, data: bytes | str, records: int, seconds: float = 0.0) -> None:
        self.data = data
        self.records = records
        self.seconds = seconds

    @classmethod
    def of(cls, st: BrokerState) -> _Image:
        records = _record_count(st)
        started = time.perf_counter()
        with bulk() if records > BULK_RECORDS else nullcontext():
            data = pickle.dumps(st, _PICKLE)
        return cls(data, records, time.perf_counter() - started)

    def load(self) -> BrokerState:
        with bulk() if self.records > BULK_RECORDS else nullcontext():
            if isinstance(self.data, bytes):
                state: BrokerState = pickle.loads(self.data)
                return state
            return decode_state(loads(self.data))


def _record_count(st: BrokerState) -> int:
    return sum(len(st.records(kind)) for kind in KINDS.values())


# ------------------------------------------------------------------ building labs
def _build(doc: LocatedDict, scenario: Path) -> BrokerState:
    """build_lab, with what only building can find (the initial traffic refused by the engine's
    own rules, e.g. a publish from a client whose routers are all standby) reported as a
    ScenarioError rather than a traceback."""
    from .scenario import build_lab  # only when a lab is built: see scenario_files

    st = BrokerState()
    try:
        build_lab(st, doc)
    except EngineError as exc:
        detail = ", ".join(f"{k}={v}" for k, v in exc.params.items())
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: its initial traffic "
                                            f"was refused ({exc.code}{': ' + detail if detail else ''})"]) from None
    except (ValueError, OverflowError, TypeError, KeyError) as exc:
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: "
                                            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"]
                            ) from None
    st.work.clear()
    return st


def _template(scenario: Path) -> _Image:
    """The image of a fresh lab of ``scenario``, built once per process (per file version: the
    file's device, inode, size and modification time, from one stat; a fresh lab needs no path
    resolution). The packaged default scenario is part of the installed code, as the grammar
    is: its image is built once per process and then needs no stat either (replay makes a fresh
    lab per transcript, and the stat cost it about 8 us each, 0.6% of a drill's replay)."""
    global _default_image
    default = scenario is DEFAULT_SCENARIO
    if default and _default_image is not None:
        return _default_image
    info = scenario.stat()
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    with _templates_lock:
        image = _templates.get(key)
        if image is None:
            from .scenario_schema import load_scenario

            image = _Image.of(_build(load_scenario(scenario), scenario))
            _templates[key] = image
        if default:
            _default_image = image
        return image


def _scenario_path(scenario: str | Path | None) -> Path:
    return Path(scenario) if scenario is not None else DEFAULT_SCENARIO


def _core_text(st: BrokerState) -> str:
    """The HA core as text, to tell whether a command changed it ("" for a lab without one)."""
    return json.dumps(st.ha_core.snapshot(), sort_keys=True) if st.ha_core.groups else ""


def replay_calls(st: BrokerState, calls: list[CallRecord]) -> None:
    """Apply recorded calls to ``st`` (the state they were made on): how a rollback, a catch-up
    and an opened journal reproduce commands. A call that raised EngineError when it was made (a
    handler may catch one and go on) raises it again here, with the same (deterministic) effect;
    a name that is not a journaled Engine method (a damaged or foreign file) is a CodecError."""
    engine = Engine(st)
    try:
        for call in calls:
            fn = getattr(Engine, call.name, None)
            if fn is None or not getattr(fn, "__journaled__", False):
                raise CodecError(f"{call.name!r} is not a recorded Engine call")
            st.work.clear()
            try:
                fn(engine, *call.args, **call.kwargs)
            except EngineError:
                pass
    finally:
        engine.close()
    st.work.clear()


def _is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY in its forms: the lock is held, or this snapshot is stale for writing."""
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return "locked" in text or "busy" in text
    if "sqlalchemy" not in sys.modules:  # nothing of SQLAlchemy ran: not one of its errors
        return False
    from sqlalchemy.exc import OperationalError

    if not isinstance(exc, OperationalError):
        return False
    text = str(getattr(exc, "orig", exc)).lower()
    return "locked" in text or "busy" in text


# ------------------------------------------------------------------ the file
class _Journal:
    """The journal of one lab file over one SQLite connection.

    Why two ways onto one connection: writing (one short ``BEGIN IMMEDIATE`` transaction per
    command, snapshots, compaction) goes through SQLAlchemy Core on the schema's tables; the two
    reads every command needs (``PRAGMA data_version``, the rows after the last one applied) are one
    statement each on the same DB-API connection. So a shell that only reads -- ``solace-shell -c
    "show ..."`` -- never imports SQLAlchemy, which would be most of its start-up time; the first
    command that changes the lab does (``core``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                                   isolation_level=None)
        try:
            self.raw.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
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
                if _is_busy(exc):
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
            parts = loads(body)["parts"]
            if type(parts) is not list or not all(type(p) is int for p in parts) or len(parts) > 10_000:
                raise TypeError
        except (CodecError, TypeError, KeyError) as exc:
            raise LabFileError(str(self.path), f"lab file is damaged (journal row {seq}: a bad list of parts)") from exc
        found = dict(self.raw.execute(
            f"SELECT seq, body FROM journal WHERE kind = ? AND seq IN ({','.join('?' * len(parts))})", (PART, *parts)))
        if len(found) != len(set(parts)):
            raise LabFileError(str(self.path), f"lab file is damaged (journal row {seq}: "
                                               "parts of the snapshot are missing)")
        return "".join(str(found[p]) for p in parts)

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """One BEGIN IMMEDIATE transaction (the write lock from its first statement); inside one
        already held, that one."""
        conn = self.core
        if self.held:
            yield conn
            return
        conn.info["immediate"] = True
        try:
            with conn.begin():
                self.held = True
                try:
                    yield conn
                finally:
                    self.held = False
        finally:
            conn.info["immediate"] = False

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
        return seq

    def append_snapshot(self, expected_last: int, text: str) -> tuple[int, set[int]]:
        """Append a snapshot (WriteConflict as ``append``); a big one is first written in parts of
        ``PART_SIZE`` characters, each in its own short transaction, so the write lock is never held
        for long. Returns its seq and its parts (to keep when ``collect`` drops what it supersedes)."""
        parts: list[int] = []
        if len(text) > PART_SIZE:
            for at in range(0, len(text), PART_SIZE):
                parts.append(self.append_part(text[at:at + PART_SIZE]))
            text = dumps({"parts": parts})
        return self.append(expected_last, SNAPSHOT, text), set(parts)

    def append_part(self, chunk: str) -> int:
        from sqlalchemy import func, insert, select

        journal = tables().journal
        with self.writing() as conn:
            seq = int(conn.execute(select(func.max(journal.c.seq))).scalar() or 0) + 1
            conn.execute(insert(journal).values(seq=seq, kind=PART, body=chunk))
        return seq

    def collect(self, snapshot: int, keep: set[int]) -> None:
        """Drop the rows a committed snapshot supersedes (those before it, but its parts): per
        transaction at most one big row (a part or a snapshot, up to ``PART_SIZE``) and a few
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
                if _is_busy(exc):
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


def _fill_new_lab(con: sqlite3.Connection, body: str) -> None:
    """The tables of a new lab file and its first snapshot (``lab_file.create`` commits)."""
    from sqlalchemy import create_engine, insert
    from sqlalchemy.pool import StaticPool

    metadata, meta, journal = tables()
    engine = create_engine("sqlite://", poolclass=StaticPool, creator=lambda: con)
    with engine.begin() as conn:
        metadata.create_all(conn)
        conn.execute(insert(meta).values(key="schema_version", value=SCHEMA_VERSION))
        conn.execute(insert(journal).values(seq=1, kind=SNAPSHOT, body=body))


# ------------------------------------------------------------------ the store
@dataclass
class _Kept:
    """A command that changed the lab, between its append and the end of its transaction."""

    calls: list[CallRecord]
    opaque: bool
    spent_s: float
    seq: int  # the journal position before it
    rows_since_snapshot: int


class LabStore:
    def __init__(self, state: BrokerState, path: str | None = None, image: _Image | None = None,
                 journal: _Journal | None = None, seq: int = 0) -> None:
        self.state = state
        self.path = path
        # the last image of the state and the calls made on it since (rollback = both, replayed)
        self._image = image if image is not None else _Image.of(state)
        self._since: list[CallRecord] = []
        self._since_s = 0.0  # time the commands since the image took (what replaying them costs)
        self._record_s = RECORD_IMAGE_S
        self._refresh_after_s = 0.0  # since_s beyond which _remember looks at the lab's size again
        self._measure(self._image)
        self._journal = journal
        self._seq = seq  # the last journal row applied
        self._rows_since_snapshot = 0
        self._exclusive = False  # run(): this attempt holds the write lock from its start
        self._engine: Engine | None = None  # the Engine of self.state (it holds nothing else)
        self._superseded: tuple[int, set[int]] | None = None  # a snapshot's seq and parts: drop what is before
        self._kept: _Kept | None = None  # the command just appended, until its transaction has committed
        self._closed = False

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, scenario: str | Path | None = None) -> LabStore:
        """A fresh in-memory lab (no file, no SQLite): a copy of the scenario's cached image."""
        image = _template(_scenario_path(scenario))
        return cls(image.load(), None, image)

    def copy(self) -> LabStore:
        """An in-memory copy of this lab's current state."""
        if self._journal is not None:
            self._catch_up()
        image = self._image if not self._since else _Image.of(self.state)
        return LabStore(image.load(), None, image)

    @classmethod
    def open(cls, path: str | Path, scenario: str | Path | None = None) -> LabStore:
        """Open a lab file, creating it from ``scenario`` (default lab) when missing."""
        p = Path(path)
        lab_file.remove_stale_creations(p)
        if not p.exists() and not p.is_symlink():
            image = _template(_scenario_path(scenario))
            body = state_text(image.load())
            if not lab_file.create(p, lambda con: _fill_new_lab(con, body)):
                cls._check_file(p)  # another shell created it a moment ago
        else:
            cls._check_file(p)
        with lab_file.damage_is_one_line(p):
            journal = _Journal(p)
            store = cls(BrokerState(), str(p), _Image(b"", 0), journal)
            try:
                store._catch_up(opening=True)
                lab_file.check_state(p, store.state)
            except BaseException:
                journal.close()
                raise
        return store

    @staticmethod
    def _check_file(p: Path) -> None:
        lab_file.check_path(p)
        with lab_file.damage_is_one_line(p):
            old = lab_file.legacy_version(p)
            if old is not None:
                from .models import migrate

                migrate(p, old)
        lab_file.check_contents(p, SCHEMA_VERSION, TABLES)

    # ------------------------------------------------------------------ use
    def run(self, work: Callable[[Engine], T], *, max_wait_s: float | None = None) -> T:
        """``work(engine)`` in one transaction, run again from the start while the write lock
        cannot be had or another shell wrote first, for at most ``max_wait_s`` in all; then
        ``LabBusy``. ``work`` must not have effects outside the engine before it returns (the shell
        applies mode changes only after this returns)."""
        if self._journal is None:  # in memory: no lock, no other writer, nothing to retry
            engine, core_before, started = self._begin()
            try:
                result = work(engine)
            except BaseException:
                self._abort(engine.state)
                raise
            self._end(engine.state, core_before, started)
            self._committed()
            return result
        max_wait_s = MAX_WAIT_S if max_wait_s is None else max_wait_s
        start = time.monotonic()
        pause = 0.002
        conflicts = 0
        while True:
            # A command that lost the race to another writer runs again holding the write lock, so
            # a long command cannot be starved by a shell that writes all the time; only then is
            # the lock held longer than one append (readers still never wait).
            self._exclusive = conflicts >= EXCLUSIVE_AFTER
            try:
                with self.transaction() as engine:
                    return work(engine)
            except WriteConflict:
                conflicts += 1
                if time.monotonic() - start >= max_wait_s:
                    raise LabBusy(time.monotonic() - start, changed_meanwhile=True) from None
                continue  # someone else wrote: catch up and run again at once
            except Exception as exc:
                if not _is_busy(exc):
                    problem = lab_file.damage_problem(exc)
                    if problem is not None:  # the file went bad under this command: one line
                        raise LabFileError(str(self.path), problem) from None
                    raise
                waited = time.monotonic() - start
                if waited >= max_wait_s:
                    raise LabBusy(waited) from exc
                time.sleep(min(pause, max(0.0, max_wait_s - waited)))
                pause = min(pause * 2, 0.2)
            finally:
                self._exclusive = False

    @contextmanager
    def transaction(self) -> Iterator[Engine]:
        """One command: the Engine over the caught-up state; on normal exit what it changed is
        kept (and appended to the lab file), on ANY exception the state is as before (re-raised)."""
        held = self._journal.writing() if self._journal is not None and self._exclusive else nullcontext()
        try:
            with held:
                engine, core_before, started = self._begin()
                try:
                    yield engine
                except BaseException:
                    self._abort(engine.state)
                    raise
                self._end(engine.state, core_before, started)
        except BaseException:
            if self._kept is not None:  # appended inside a held transaction that did not commit
                self._seq, self._rows_since_snapshot = self._kept.seq, self._kept.rows_since_snapshot
                self._kept = None
                self._superseded = None
                self._rollback()
            raise
        self._committed()

    def _begin(self) -> tuple[Engine, str, float]:
        """A command starts: caught up, an empty work log; the Engine, the HA core's text (to tell
        an opaque change) and the start time."""
        if self._closed:
            raise LabClosed()
        if self._journal is not None:
            self._catch_up()
        st = self.state
        log = st.work
        if log.calls or log.opaque or log.depth:  # (a clean log, the usual case, needs no clearing)
            log.clear()
        core_before = _core_text(st) if st.ha_core.groups else ""
        engine = self._engine
        if engine is None or engine.state is not st:
            if engine is not None:
                engine.close()
            engine = self._engine = Engine(st)
        return engine, core_before, time.perf_counter()

    def _abort(self, st: BrokerState) -> None:
        """The command raised: the state as it was before it (nothing to undo when no mutating
        call ran)."""
        if st.work.changed:
            self._rollback()
        else:
            st.work.clear()

    def _committed(self) -> None:
        """After the command's transaction: remember what it kept for rollbacks, then the journal's
        upkeep."""
        kept, self._kept = self._kept, None
        if kept is not None:
            self._remember(kept.calls, kept.opaque, kept.spent_s)
            self._housekeeping()

    def _end(self, st: BrokerState, core_before: str, started: float) -> None:
        """The command returned: what it changed becomes ``_kept`` (and a journal row of a file lab)."""
        work = st.work
        if not work.changed:
            return
        opaque = work.opaque and _core_text(st) != core_before
        calls = work.calls  # handed over, not copied: the log starts a new list
        work.calls, work.opaque = [], False
        if not calls and not opaque:
            return
        kept = _Kept(calls, opaque, time.perf_counter() - started, self._seq, self._rows_since_snapshot)
        if self._journal is not None:
            try:
                self._persist(calls, opaque)
            except BaseException:
                self._rollback()
                raise
        self._kept = kept

    def reset(self, scenario: str | Path | None = None) -> None:
        """Start this lab again from ``scenario`` (default lab): the whole state is replaced by a
        fresh lab of that scenario (settings included); a file lab is reset for every shell using
        it (one snapshot row replaces its journal). Raises ScenarioError (nothing changed) for an
        invalid scenario."""
        image = _template(_scenario_path(scenario))
        st = image.load()
        if self._journal is not None:
            self._seq, keep = self._journal.replace_all(state_text(st))
            self._rows_since_snapshot = 0
            self._superseded = (self._seq, keep)
        self._set_state(st, image)
        self._housekeeping()

    def dump(self) -> str:
        """Every kind of record, every record, sorted, with the clock, settings, bookkeeping, id
        counters and HA core: a deterministic text image of the lab. Password hashes show as
        ``<password hash>``: each carries a random salt, so two labs built from one scenario
        differ there and nowhere else."""
        if self._journal is not None:
            self._catch_up()
        st = self.state
        out = [f"== now_ms {st.now_ms}",
               f"== settings {sorted(st.settings.items())!r}",
               f"== meta {sorted(st.meta.items())!r}",
               f"== next_ids {sorted(st.next_ids.items())!r}",
               f"== ha_core {_core_text(st) or '-'}"]
        for kind in KINDS.values():
            spec = SPECS[kind]
            rows = [repr(tuple(_masked(v) for v in spec.get(r))) for r in st.records(kind).values()]
            out.append(f"== {kind} ({', '.join(spec.names)}) {len(rows)} rows")
            out.extend(sorted(rows))
        return "\n".join(out) + "\n"

    def close(self) -> None:
        self._closed = True
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # ------------------------------------------------------------------ in memory
    def _set_state(self, st: BrokerState, image: _Image | None = None) -> None:
        self.state = st
        self._image = image if image is not None else _Image.of(st)
        self._since = []
        self._since_s = 0.0
        self._measure(self._image)

    def _measure(self, image: _Image) -> None:
        """The cost of an image per record, when ``image`` measured it; and the time of commands
        since it after which ``_remember`` looks again."""
        if image.seconds > 0:
            self._record_s = image.seconds / max(image.records, 1)
        self._refresh_after_s = self._image_limit_s(image.records)

    def _image_limit_s(self, records: int) -> float:
        return IMAGE_COST_FACTOR * max(records * self._record_s, MIN_IMAGE_S)

    def _remember(self, calls: list[CallRecord], opaque: bool, spent_s: float) -> None:
        """What a kept command did, for a later rollback: a new image after an opaque command, or
        once replaying the calls since the image would cost more than ``IMAGE_COST_FACTOR`` new
        images (estimated from the number of records: after one command that published a million
        messages, replaying it is cheaper than imaging its result). The records are counted only
        when the commands since have run longer than the last limit: counting them after every
        command would cost more than the commands of a small lab."""
        if opaque:
            self._set_state(self.state)
            return
        self._since.extend(calls)
        self._since_s += spent_s
        if self._since_s > self._refresh_after_s:
            limit = self._image_limit_s(_record_count(self.state))
            if self._since_s > limit:
                self._set_state(self.state)
            else:
                self._refresh_after_s = limit

    def _rollback(self) -> None:
        """Back to the state before the current command: the last image plus the calls since.
        When replaying those cost more than an image of the result, that image is taken, so the
        next rollback does not replay them again."""
        st = self._image.load()
        if self._since:
            replay_calls(st, self._since)
        st.work.clear()
        if self._since_s > _record_count(st) * self._record_s:
            self._set_state(st)
        else:
            self.state = st

    # ------------------------------------------------------------------ the file
    def _persist(self, calls: list[CallRecord], opaque: bool) -> None:
        """Append the command (a snapshot when it changed what calls cannot replay)."""
        assert self._journal is not None
        if opaque:
            self._seq, keep = self._journal.append_snapshot(self._seq, state_text(self.state))
            self._rows_since_snapshot = 0
            self._superseded = (self._seq, keep)
            return
        self._seq = self._journal.append(self._seq, CALLS, dumps(encode_calls(calls)))
        self._rows_since_snapshot += 1

    def _housekeeping(self) -> None:
        """After a committed command: the periodic snapshot, then dropping the rows a snapshot
        supersedes. Nothing here can lose or undo a command (it is committed already); a failure
        is logged and the next command tries again."""
        journal = self._journal
        if journal is None:
            return
        try:
            if self._rows_since_snapshot >= SNAPSHOT_EVERY:
                self._snapshot()
            if self._superseded is not None:
                (seq, keep), self._superseded = self._superseded, None
                journal.collect(seq, keep)
        except Exception:
            log.warning("lab %s: writing a snapshot or dropping old journal rows failed", self.path, exc_info=True)

    def _snapshot(self) -> None:
        """Write the state as a snapshot (encoded before the lock is taken); skipped (tried again
        after the next command) when another shell wrote first or holds the lock."""
        assert self._journal is not None
        body = state_text(self.state)
        try:
            self._seq, keep = self._journal.append_snapshot(self._seq, body)
        except WriteConflict:
            return
        except Exception as exc:
            if _is_busy(exc):
                return
            raise
        self._rows_since_snapshot = 0
        self._superseded = (self._seq, keep)

    def _catch_up(self, opening: bool = False) -> None:
        """Apply what other shells appended since this shell's last row (nothing to read when no
        other connection committed since the last look)."""
        journal = self._journal
        assert journal is not None
        if not journal.changed() and not opening:
            return
        try:
            self._apply_rows(journal, opening)
        except LabFileError:
            if not opening:
                # Back to the last row applied whole, and read again at the next command: every
                # command of this shell then says the same line, none runs on a half-applied row.
                journal.data_version = -1
                self._rollback()
            raise

    def _apply_rows(self, journal: _Journal, opening: bool) -> None:
        rows = journal.rows_after(self._seq)
        if opening and (not rows or rows[0][1] != SNAPSHOT):
            raise LabFileError(str(journal.path), "lab file is damaged (its journal does not start with a snapshot)")
        for seq, kind, body in rows:
            try:
                if kind == SNAPSHOT:
                    state = decode_state(loads(body))
                    self._set_state(state, _Image(body, _record_count(state)))
                    self._rows_since_snapshot = 0
                elif kind == CALLS:
                    calls = decode_calls(loads(body))
                    started = time.perf_counter()
                    replay_calls(self.state, calls)
                    self._remember(calls, False, time.perf_counter() - started)
                    self._rows_since_snapshot += 1
                elif kind != PART:  # a part of a snapshot: read with its snapshot row
                    raise CodecError(f"unknown row kind {kind[:40]!r}")
            except CodecError as exc:
                raise LabFileError(str(journal.path), f"lab file is damaged (journal row {seq}: {exc})") from None
            except (TypeError, ValueError, KeyError, AttributeError, IndexError, OverflowError,
                    RecursionError) as exc:
                raise LabFileError(str(journal.path), f"lab file is damaged (journal row {seq}: "
                                                      f"{type(exc).__name__} replaying it)") from None
            self._seq = seq


def _masked(v: Any) -> Any:
    if isinstance(v, str) and is_hashed(v):
        return "<password hash>"
    if isinstance(v, dict):
        return {k: _masked(x) for k, x in sorted(v.items())}
    return v
