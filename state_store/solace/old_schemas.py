"""Lab files of schemas 3 to 5 (one SQL table per kind of record): read into a state and rewritten
as a schema 6 journal, once, when such a file is opened.

Why here and only here: those files were written by the ORM model this module used to define; the
in-memory model (``state_store.solace.records``) kept its classes' names and fields, so each old table is
read with one Core SELECT of the columns named after the record's fields. Only opening an old lab
imports this module.

What the old schemas lack is filled as their upgrades did: schema 3 has no ``cli_user.lab_admin``
(its global ``admin`` administrator gets the lab-administration right, as the default lab's
trainer), schemas 3 and 4 have no ``config_object`` table (no objects). Every value then goes
through the same checks as a snapshot (``state_store.lab_root.codec``), so a damaged old file is one line.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from ..errors import LabFileError
from ..lab_root.codec import FORMAT, VERSION, CodecError, decode_state, state_text
from ..lab_root.state import RootState
from ..lab_root.users import LabUser
from .broker_state import KINDS as SECTION_KINDS

KINDS: dict[type, str] = {**SECTION_KINDS, LabUser: "users"}  # every kind these schemas had a table for

LEGACY_VERSIONS = ("3", "4", "5")
# record kind -> its table in schemas 3-5
TABLE_OF: dict[str, str] = {
    "sites": "site", "links": "link", "routers": "router", "groups": "ha_group", "vpns": "vpn",
    "replicated_topics": "replicated_topic", "queues": "queue", "subscriptions": "subscription",
    "clients": "client", "users": "cli_user", "messages": "message", "spooled": "spooled",
    "repl_entries": "repl_entry", "deliveries": "delivery", "rejections": "rejection", "txns": "txn",
    "txn_ops": "txn_op", "config_objects": "config_object",
    "settled": "settled_messages",  # newer than these schemas: never present, no records
}
OTHER_TABLES = ("meta", "setting", "ha_core")


def read_legacy(conn: Any) -> RootState:
    """The state an old lab file holds (``conn``: a SQLAlchemy connection to it)."""
    from sqlalchemy import column, inspect, select, table

    present = set(inspect(conn).get_table_names())
    records: dict[str, Any] = {}
    for cls, kind in KINDS.items():
        names = [f.name for f in fields(cls)]
        rows: list[list[Any]] = []
        name = TABLE_OF[kind]
        if name in present:
            have = {c["name"] for c in inspect(conn).get_columns(name)}
            cols = [n for n in names if n in have]
            for found in conn.execute(select(*[column(n) for n in cols]).select_from(table(name))):
                values = dict(zip(cols, found, strict=True))
                rows.append([_value(cls, f, values) for f in fields(cls)])
        records[kind] = {"fields": names, "rows": rows}
    meta = {str(k): str(v) for k, v in conn.execute(select(column("key"), column("value")).select_from(table("meta")))}
    settings: dict[str, str] = {}
    if "setting" in present:
        settings = {str(k): str(v) for k, v in
                    conn.execute(select(column("key"), column("value")).select_from(table("setting")))}
    core: Any = None
    if "ha_core" in present:
        text = conn.execute(select(column("snapshot")).select_from(table("ha_core"))).scalar()
        if text:
            try:
                core = json.loads(text)
            except ValueError:
                raise CodecError("the HA core snapshot is not valid JSON") from None
    try:
        now = int(meta.pop("now_ms", "0"))
    except ValueError:
        raise CodecError("now_ms is not a number") from None
    meta.pop("schema_version", None)
    doc = {"format": FORMAT, "version": VERSION, "now_ms": now, "settings": settings, "meta": meta,
           "next_ids": {}, "ha_core": core, "records": records}
    return decode_state(doc)


def _value(cls: type, f: Any, values: dict[str, Any]) -> Any:
    """One field of an old row, as the record holds it (booleans were 0/1, attrs JSON text)."""
    if f.name not in values:
        if cls is LabUser and f.name == "lab_admin":  # schema 3: its global admin `admin`
            return values.get("name") == "admin" and values.get("scope") == "global" and values.get("level") == "admin"
        if f.default is not MISSING:
            return f.default
        if f.default_factory is not MISSING:
            return f.default_factory()
        raise CodecError(f"table {TABLE_OF[KINDS[cls]]} has no column {f.name}")
    value = values[f.name]
    if f.type == "bool" and type(value) is int and value in (0, 1):
        return bool(value)
    if f.name == "attrs" and type(value) is str:
        try:
            return json.loads(value)
        except ValueError:
            raise CodecError(f"table {TABLE_OF[KINDS[cls]]}: attrs is not valid JSON") from None
    return value


def migrate(path: Path, version: str) -> None:
    """Rewrite the old lab at ``path`` as a schema 6 journal (one snapshot row), in one transaction;
    a file that cannot be read as a lab is one LabFileError line."""
    from sqlalchemy import create_engine, event, insert, text

    from ..lab_tables import SCHEMA_VERSION, SNAPSHOT, tables

    metadata, meta, journal = tables()

    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 10})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _rec):  # type: ignore[no-untyped-def]
        dbapi_conn.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(conn):  # type: ignore[no-untyped-def]
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        with engine.connect() as conn, conn.begin():
            found = conn.execute(text("SELECT value FROM meta WHERE key='schema_version'")).scalar()
            if found != version:
                return  # another shell migrated it a moment ago
            body = state_text(read_legacy(conn))
            for name in [*TABLE_OF.values(), *OTHER_TABLES]:
                conn.execute(text(f'DROP TABLE IF EXISTS "{name}"'))
            metadata.create_all(conn)
            conn.execute(insert(meta).values(key="schema_version", value=SCHEMA_VERSION))
            conn.execute(insert(journal).values(seq=1, kind=SNAPSHOT, body=body))
    except CodecError as exc:
        raise LabFileError(str(path), f"lab schema version {version} cannot be read ({exc}): build a new lab "
                                      "(another --db file, or move this one away)") from None
    except sqlite3.DatabaseError as exc:
        raise LabFileError(str(path), f"lab file is corrupt or truncated ({exc})") from None
    except Exception as exc:
        from sqlalchemy.exc import DatabaseError

        if isinstance(exc, DatabaseError):
            raise LabFileError(str(path), f"lab schema version {version} cannot be read "
                                          f"({str(exc.orig).splitlines()[0]}): build a new lab "
                                          "(another --db file, or move this one away)") from None
        raise
    finally:
        engine.dispose()
