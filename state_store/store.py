"""LabStore: one lab database (a file shared by several shells, or a fast in-memory copy).

Why:
- A file lab is shared by one shell per site, possibly in several processes: WAL mode, a 10 s
  busy timeout, and every write transaction opened with BEGIN IMMEDIATE (so two writers queue
  instead of failing on lock upgrade).
- Tests and transcript replay need thousands of fresh labs: each scenario's template database is
  built once per process (cached by path + mtime) and copied with ``sqlite3.Connection.backup``
  into a new in-memory connection, which takes well under a millisecond for the default lab.
- A foreign, corrupt or truncated file, or another schema version, is refused with a one-line
  ``LabFileError`` instead of an SQL traceback.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine as SAEngine
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from .base import Topology
from .engine import Engine
from .errors import LabFileError
from .models import SCHEMA_VERSION, Base, Meta
from .scenario import DEFAULT_SCENARIO, build_lab, load_scenario

_SQLITE_MAGIC = b"SQLite format 3\x00"
_templates: dict[tuple[str, int], sqlite3.Connection] = {}
_templates_lock = threading.Lock()


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
    doc = load_scenario(scenario)
    Base.metadata.create_all(engine)
    with engine.connect() as conn:
        with conn.begin():
            session = Session(bind=conn)
            session.add(Meta(key="schema_version", value=SCHEMA_VERSION))
            build_lab(session, doc)
            session.flush()
            session.close()


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
        if not p.exists():
            tpl = _template(Path(scenario) if scenario is not None else DEFAULT_SCENARIO)
            tmp = p.with_name(p.name + ".creating")
            if tmp.exists():
                tmp.unlink()
            raw = sqlite3.connect(str(tmp))
            with _templates_lock:
                tpl.backup(raw)
            raw.close()
            os.replace(tmp, p)
        else:
            cls._check_file(p)
        engine = create_engine(f"sqlite:///{p}", connect_args={"timeout": 10, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _rec):  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None
            dbapi_conn.execute("PRAGMA busy_timeout=10000")
            dbapi_conn.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL keeps every commit across a killed process (the kill test proves
            # it); only a power cut can lose the last commits. FULL would fsync every command.
            dbapi_conn.execute("PRAGMA synchronous=NORMAL")

        _install_begin(engine, immediate=True)
        return cls(engine, str(p))

    @staticmethod
    def _check_file(p: Path) -> None:
        try:
            with open(p, "rb") as fh:
                head = fh.read(100)
        except OSError as e:
            raise LabFileError(str(p), f"cannot read: {e.strerror or e}") from e
        if len(head) < 100 or not head.startswith(_SQLITE_MAGIC):
            raise LabFileError(str(p), "not a lab file (not an SQLite database)")
        try:
            con = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=10)
            try:
                tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if "meta" not in tables:
                    raise LabFileError(str(p), "not a solace-shell lab (no meta table)")
                row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
                if row is None:
                    raise LabFileError(str(p), "not a solace-shell lab (no schema version)")
                if row[0] != SCHEMA_VERSION:
                    raise LabFileError(str(p), f"lab schema version {row[0]}, this program needs {SCHEMA_VERSION}")
                missing = {t.name for t in Base.metadata.sorted_tables} - tables
                if missing:
                    raise LabFileError(str(p), f"lab file is missing tables: {', '.join(sorted(missing))}")
                bad = con.execute("PRAGMA quick_check").fetchone()
                if bad is None or bad[0] != "ok":
                    raise LabFileError(str(p), "lab file is corrupt (integrity check failed)")
            finally:
                con.close()
        except sqlite3.DatabaseError as e:
            raise LabFileError(str(p), f"lab file is corrupt or truncated ({e})") from e

    # ------------------------------------------------------------------ use
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
        doc = load_scenario(Path(scenario) if scenario is not None else DEFAULT_SCENARIO)
        self._topology = None
        with self._engine.connect() as conn:
            with conn.begin():
                for table in reversed(Base.metadata.sorted_tables):
                    conn.execute(table.delete())
                session = Session(bind=conn)
                try:
                    session.add(Meta(key="schema_version", value=SCHEMA_VERSION))
                    build_lab(session, doc)
                    session.flush()
                finally:
                    session.close()

    def dump(self) -> str:
        """Every table, every row, sorted: a deterministic text image of the lab."""
        out: list[str] = []
        with self._engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            names = [r[0] for r in raw.execute(  # type: ignore[union-attr]
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            for name in names:
                cols = [r[1] for r in raw.execute(f'PRAGMA table_info("{name}")')]  # type: ignore[union-attr]
                rows = raw.execute(f'SELECT * FROM "{name}"').fetchall()  # type: ignore[union-attr]
                out.append(f"== {name} ({', '.join(cols)}) {len(rows)} rows")
                out.extend(repr(r) for r in sorted(rows, key=repr))
        return "\n".join(out) + "\n"

    def close(self) -> None:
        self._engine.dispose()
        if self._raw is not None:
            self._raw.close()
            self._raw = None
