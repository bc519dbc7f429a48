"""LabStore: one lab database (a file shared by several shells, or a fast in-memory copy).

Why:
- A file lab is shared by one shell per site, possibly in several processes: WAL mode, so readers
  never wait for a writer nor take the write lock. Every transaction begins DEFERRED: a command
  that only reads never asks for the write lock; one that writes takes it at its first write. When
  the lock cannot be had (another shell holds it, or committed since this command read), the
  command is rolled back and run again from the start by ``LabStore.run`` -- safe because a
  command is deterministic and a rolled-back command changed nothing -- up to a bounded wait, then
  ``LabBusy`` (one clear line for the user, never a traceback).
- Tests and transcript replay need thousands of fresh labs: each scenario's template database is
  built once per process (cached by path + mtime) and copied with ``sqlite3.Connection.backup``
  into a new in-memory connection, which takes well under a millisecond for the default lab.
- A path that cannot be a usable lab (a directory, unwritable, foreign, damaged, another schema
  version, no routers, ...) is refused with a one-line ``LabFileError`` instead of an SQL
  traceback, and new lab files are created atomically: both in ``lab_file``.
- A scenario the builder cannot complete (its initial traffic refused by the engine) is a
  ``ScenarioError``, like any other problem of the file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine as SAEngine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from . import lab_file
from .base import Topology
from .core.persist import clear as clear_ha_core
from .core.persist import ensure_table
from .engine import Engine
from .errors import EngineError, LabBusy, ScenarioError
from .models import SCHEMA_VERSION, Base, Meta
from .passwords import is_hashed
from .scenario_files import DEFAULT_SCENARIO

if TYPE_CHECKING:
    from grammar.yaml_source import LocatedDict

T = TypeVar("T")
BUSY_TIMEOUT_MS = 2000  # one attempt's wait for the write lock (SQLite's busy handler)
MAX_WAIT_S = 10.0  # all attempts of one command together
_templates: dict[tuple[str, int], sqlite3.Connection] = {}
_templates_lock = threading.Lock()


# Schema 4 added the lab-administration right; a schema 3 lab gives it to its global admin `admin`
# (the default lab's trainer), so labs made before it keep working, password hashes included.
_UPGRADE_3_TO_4 = ("3", "4", [
    "ALTER TABLE cli_user ADD COLUMN lab_admin BOOLEAN NOT NULL DEFAULT 0",
    "UPDATE cli_user SET lab_admin = 1 WHERE name = 'admin' AND scope = 'global' AND level = 'admin'",
])


def _upgrade_4_to_5() -> tuple[str, str, list[str]]:
    """Schema 5 adds the named configuration objects' table, created from the model itself."""
    from sqlalchemy.dialects import sqlite
    from sqlalchemy.schema import CreateIndex, CreateTable

    table = Base.metadata.tables["config_object"]
    dialect = sqlite.dialect()
    statements = [str(CreateTable(table).compile(dialect=dialect))]
    statements += [str(CreateIndex(index).compile(dialect=dialect)) for index in table.indexes]
    return ("4", "5", statements)


def _install_begin(engine: SAEngine, immediate: bool) -> None:
    @event.listens_for(engine, "begin")
    def _begin(conn):  # type: ignore[no-untyped-def]
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


_memory_prototype: SAEngine | None = None
_prototype_lock = threading.Lock()  # apart from _templates_lock, which is held while templates build


def _memory_engine(raw: sqlite3.Connection) -> SAEngine:
    """An engine over one in-memory connection, sharing its dialect and compiled-statement cache
    with every other in-memory lab of the process.

    Why: SQLAlchemy caches compiled SQL per engine, keyed by the dialect object. A replay builds
    a fresh lab per transcript, and with ``create_engine`` per lab each transcript recompiled the
    same ~75 statements, about a sixth of its replay time (bench/bench_replay_throughput.py)."""
    global _memory_prototype
    with _prototype_lock:
        if _memory_prototype is None:
            proto = create_engine("sqlite://", poolclass=StaticPool,
                                  creator=lambda: sqlite3.connect(":memory:", check_same_thread=False))
            proto.connect().close()  # initialises the dialect (server version, features)
            _memory_prototype = proto
        proto = _memory_prototype
    dialect = proto.dialect
    on_connect = dialect.on_connect()  # what create_engine's pool would run on a new connection
    if on_connect is not None:
        on_connect(raw)
    def creator() -> Any:  # the pool's one connection: sqlite3.Connection is a DB-API connection
        return raw

    engine = SAEngine(StaticPool(creator, dialect=dialect), dialect, proto.url)
    engine._compiled_cache = proto._compiled_cache  # noqa: SLF001 -- the point of sharing
    _install_begin(engine, immediate=False)
    return engine


def _populate(engine: SAEngine, scenario: Path) -> None:
    from .scenario_schema import load_scenario  # only when a lab is built: see scenario_files

    doc = load_scenario(scenario)
    Base.metadata.create_all(engine)
    ensure_table_on(engine)
    with engine.connect() as conn:
        with conn.begin():
            session = Session(bind=conn)
            session.add(Meta(key="schema_version", value=SCHEMA_VERSION))
            _build(session, doc, scenario)
            session.close()


def ensure_table_on(engine: SAEngine) -> None:
    with engine.connect() as conn:
        with conn.begin():
            ensure_table(conn)


def _build(session: Session, doc: LocatedDict, scenario: Path) -> None:
    """build_lab, with what only building can find (the initial traffic refused by the engine's
    own rules, e.g. a publish from a client whose routers are all standby) reported as a
    ScenarioError rather than a traceback."""
    from .scenario import build_lab

    try:
        build_lab(session, doc)
        session.flush()
    except EngineError as exc:
        detail = ", ".join(f"{k}={v}" for k, v in exc.params.items())
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: its initial traffic "
                                            f"was refused ({exc.code}{': ' + detail if detail else ''})"]) from None
    except (SQLAlchemyError, ValueError, OverflowError) as exc:
        raise ScenarioError(str(scenario), [f"{scenario}:0: the lab cannot be built: "
                                            f"{type(exc).__name__}: {str(exc).splitlines()[0]}"]) from None


def _template(scenario: Path) -> sqlite3.Connection:
    key = (str(scenario.resolve()), scenario.stat().st_mtime_ns)
    with _templates_lock:
        tpl = _templates.get(key)
        if tpl is None:
            tpl = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            _populate(_memory_engine(tpl), scenario)
            _templates[key] = tpl
        return tpl


class LabStore:
    def __init__(self, engine: SAEngine, path: str | None, raw: sqlite3.Connection | None = None) -> None:
        self._engine = engine
        self.path = path
        self._raw = raw  # in-memory connection (kept alive here)
        # An in-memory lab has one connection and no other writer, so the shape it loaded in
        # one transaction is still true in the next unless that transaction rolled back.
        self._topology: Topology | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def in_memory(cls, scenario: str | Path | None = None) -> LabStore:
        """A fresh in-memory lab: a copy of the scenario's cached template."""
        path = Path(scenario) if scenario is not None else DEFAULT_SCENARIO
        tpl = _template(path)
        raw = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        with _templates_lock:
            tpl.backup(raw)
        return cls(_memory_engine(raw), None, raw)

    def copy(self) -> LabStore:
        """An in-memory copy of this lab's current state."""
        raw = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        with self._engine.connect() as conn:
            src = conn.connection.dbapi_connection
            src.backup(raw)  # type: ignore[union-attr]
        return LabStore(_memory_engine(raw), None, raw)

    @classmethod
    def open(cls, path: str | Path, scenario: str | Path | None = None) -> LabStore:
        """Open a lab file, creating it from ``scenario`` (default lab) when missing."""
        p = Path(path)
        if not p.exists() and not p.is_symlink():
            tpl = _template(Path(scenario) if scenario is not None else DEFAULT_SCENARIO)

            def fill(raw: sqlite3.Connection) -> None:
                with _templates_lock:
                    tpl.backup(raw)

            if not lab_file.create(p, fill):
                cls._check_file(p)  # another shell created it a moment ago
        else:
            cls._check_file(p)
        engine = create_engine(f"sqlite:///{p}",
                               connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _rec):  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None
            dbapi_conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL keeps every commit across a killed process (the kill test proves
            # it); only a power cut can lose the last commits. FULL would fsync every command.
            dbapi_conn.execute("PRAGMA synchronous=NORMAL")

        _install_begin(engine, immediate=False)
        ensure_table_on(engine)  # lab files older than the HA core lack its table
        return cls(engine, str(p))

    @staticmethod
    def _check_file(p: Path) -> None:
        lab_file.check_path(p)
        lab_file.upgrade(p, *_UPGRADE_3_TO_4)
        lab_file.upgrade(p, *_upgrade_4_to_5())
        lab_file.check_contents(p, SCHEMA_VERSION, (t.name for t in Base.metadata.sorted_tables))

    # ------------------------------------------------------------------ use
    def run(self, work: Callable[[Engine], T], *, max_wait_s: float | None = None) -> T:
        """``work(engine)`` in one transaction, run again from the start while the write lock
        cannot be had, for at most ``max_wait_s`` in all; then ``LabBusy``. ``work`` must not
        have effects outside the engine before it returns (the shell applies mode changes only
        after this returns)."""
        max_wait_s = MAX_WAIT_S if max_wait_s is None else max_wait_s
        start = time.monotonic()
        pause = 0.005
        while True:
            try:
                with self.transaction() as engine:
                    return work(engine)
            except OperationalError as exc:
                if not _is_busy(exc):
                    raise
                waited = time.monotonic() - start
                if waited >= max_wait_s:
                    raise LabBusy(waited) from exc
                time.sleep(min(pause, max(0.0, max_wait_s - waited)))
                pause = min(pause * 2, 0.2)

    @contextmanager
    def transaction(self) -> Iterator[Engine]:
        """One DB transaction: commit on normal exit, roll back on ANY exception (re-raised)."""
        topology, self._topology = self._topology, None  # restored only once the commit is done
        with self._engine.connect() as conn:
            with conn.begin():
                session = Session(bind=conn, autoflush=True, expire_on_commit=False)
                try:
                    engine = Engine(session, topology)
                    yield engine
                    engine.save_ha_core()
                    session.flush()
                finally:
                    session.close()
        if self._raw is not None:
            self._topology = engine.loaded_topology

    def reset(self, scenario: str | Path | None = None) -> None:
        """Start this lab again from ``scenario`` (default lab): every row is replaced by what a
        fresh lab of that scenario holds (settings included), in one transaction, so a file lab
        shared by several shells is reset for all of them. Raises ScenarioError (nothing changed)
        for an invalid scenario."""
        from .scenario_schema import load_scenario

        doc = load_scenario(Path(scenario) if scenario is not None else DEFAULT_SCENARIO)
        self._topology = None
        with self._engine.connect() as conn:
            with conn.begin():
                for table in reversed(Base.metadata.sorted_tables):
                    conn.execute(table.delete())
                clear_ha_core(conn)
                session = Session(bind=conn)
                try:
                    session.add(Meta(key="schema_version", value=SCHEMA_VERSION))
                    _build(session, doc, Path(scenario) if scenario is not None else DEFAULT_SCENARIO)
                finally:
                    session.close()

    def dump(self) -> str:
        """Every table, every row, sorted: a deterministic text image of the lab. Password hashes
        show as ``<password hash>``: each carries a random salt, so two labs built from one
        scenario differ there and nowhere else."""
        out: list[str] = []
        with self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            names = [r[0] for r in raw.execute(  # type: ignore[union-attr]
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            for name in names:
                cols = [r[1] for r in raw.execute(f'PRAGMA table_info("{name}")')]  # type: ignore[union-attr]
                rows = raw.execute(f'SELECT * FROM "{name}"').fetchall()  # type: ignore[union-attr]
                out.append(f"== {name} ({', '.join(cols)}) {len(rows)} rows")
                rows = [tuple("<password hash>" if isinstance(v, str) and is_hashed(v) else v for v in r)
                        for r in rows]
                out.extend(repr(r) for r in sorted(rows, key=repr))
        return "\n".join(out) + "\n"

    def close(self) -> None:
        self._engine.dispose()
        if self._raw is not None:
            self._raw.close()
            self._raw = None


def _is_busy(exc: OperationalError) -> bool:
    """SQLITE_BUSY in its forms: the lock is held, or this snapshot is stale for writing."""
    text = str(exc.orig).lower()
    return "locked" in text or "busy" in text
