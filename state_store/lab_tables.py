"""The tables of a lab file (SQLAlchemy Core): a journal of accepted commands and snapshots.

Why a journal: the lab lives in memory (``state_store.broker_state.BrokerState``); what the file has to
keep is how to get that state back. A command's whole effect is the list of mutating Engine calls
it made (``state_store.journal``), a few hundred bytes whatever the command did, so a command is
one appended row, written in one short transaction; a ``snapshot`` row holds the whole state
(``state_store.codec``) now and then so opening a lab replays only the calls after the latest one.
Another shell catches up by reading the rows after the last one it applied.

- ``meta``: ``schema_version`` (checked before anything else is read; tests and users edit it with
  plain SQL, so it stays a key/value table as in every earlier schema).
- ``journal``: ``seq`` orders everything (SQLite's rowid); ``kind`` is ``calls`` (body: the calls of
  one command) or ``snapshot`` (body: a whole state); ``body`` is JSON text. A big snapshot is
  written as ``part`` rows first, each in its own short transaction, and its ``snapshot`` row then
  names them (``{"parts": [seq, ...]}``): no transaction holds the write lock for long.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from sqlalchemy import MetaData, Table

# 1-2: before upgrades existed; 3: first kept; 4: cli_user.lab_admin; 5: config_object;
# 6: the journal (the model moved into memory; older files are read into it and rewritten)
SCHEMA_VERSION = "6"
CALLS = "calls"
SNAPSHOT = "snapshot"
PART = "part"
PARTS_PREFIX = '{"parts":'  # a snapshot row naming the part rows that hold its text, in order
TABLES = ("meta", "journal")


class Tables(NamedTuple):
    metadata: MetaData
    meta: Table
    journal: Table


@cache
def tables() -> Tables:
    """The tables as SQLAlchemy Core objects, built on first use: opening a lab and reading it
    needs only the names above, and a shell that only reads never imports SQLAlchemy."""
    from sqlalchemy import Column, Integer, MetaData, String, Table, Text

    metadata = MetaData()
    meta = Table(
        "meta", metadata,
        Column("key", String, primary_key=True),
        Column("value", Text, nullable=False),
    )
    journal = Table(
        "journal", metadata,
        Column("seq", Integer, primary_key=True),
        Column("kind", String, nullable=False),
        Column("body", Text, nullable=False),
    )
    return Tables(metadata, meta, journal)
