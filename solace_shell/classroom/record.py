"""The class record: every line every trainee runs, from every door, in one database: an SQLite
file in the class directory, or the PostgreSQL database several hosts share (`--db URL`).

Why SQLAlchemy Core: the project's store already depends on it, the same statements run on both,
the record must be shared by every `--workers` process (and every host), and a row must be
committed before its output is shown, so a killed server loses nothing a trainee saw: in its lab's
transaction (a shared database), or in a transaction of its own (SQLite in WAL, as the lab files: a
commit survives a killed process). The statement a line runs in a shared database is the
driver's own (`lab_db.driver_row`: it is run for every command).
The tables are append-only: triggers refuse UPDATE and DELETE, so nothing a trainee or a bug does
can rewrite what happened.

- `lines`: one row per executed line: the lab and member, the door (shell, exec, trainer), the wall
  clock (UTC) and the lab's simulated clock after it, target, prompt before it, the line with its
  secrets masked, whether it succeeded and its error kind, its output (capped), and the lab
  journal's row the line appended (`lab_seq`; empty when it changed nothing).
- `notes`: what is not a lab line: logins, trainer actions (reset, extend, message, run), hints and
  checks, messages delivered, and lines whose change the lab does not have (`unapplied`).

A line and the lab's change it made are one unit (`LabStore.joined`): in a shared database the
line is written in the lab's own transaction, so both commit or neither does. With SQLite files
(two files, no common transaction) the line is committed first, while the lab's write lock is
held, and the lab's row after it: a crash between the two leaves a line whose change the lab
lacks, never a change without its line. Such a line is found under the lab's write lock, at the
lab's first use by a process and whenever a later line takes its row number (`lab_seq` at or
beyond the lab's last row), and is given an `unapplied` note: the export (what `grade` and
`replay` read) leaves it out, so the record replays to the lab as it is.

The export of one lab's lines is a transcript (docs/transcripts.md) with a `#|` comment of timing
before each input line, so `grade` and `replay` read the same source.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.schema import CreateIndex, CreateTable

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

    from state_store.commit_unit import CommitUnit

MAX_OUTPUT_CHARS = 65_536
MAX_LINE_CHARS = 8_192     # a longer line is kept cut (it ran as typed; the record says how long it was)
RECORD_NAME = "class-record.sqlite"
RECORD_SCHEMA_VERSION = "1"  # of the record's tables in a shared database

metadata = MetaData()
lines_table = Table(
    "lines", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("lab", String, nullable=False, index=True),
    Column("member", String, nullable=False),
    Column("door", String, nullable=False),
    Column("wall", String, nullable=False),          # ISO 8601 UTC, milliseconds
    Column("clock_ms", BigInteger),                  # the lab's simulated clock after the line
    Column("target", String, nullable=False),
    Column("prompt", String, nullable=False),
    Column("line", Text, nullable=False),            # secrets masked
    Column("ok", Boolean, nullable=False),
    Column("error_kind", String),
    Column("output", Text, nullable=False),
    Column("output_cut", Integer, nullable=False),   # characters of output not kept
    Column("lab_seq", BigInteger),                   # the lab journal row the line appended (None: no change)
    sqlite_autoincrement=True,
)
notes_table = Table(
    "notes", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("lab", String, nullable=False, index=True),
    Column("member", String, nullable=False),        # whom it is about (a trainee, or the lab)
    Column("by", String, nullable=False),            # who did it
    Column("wall", String, nullable=False),
    Column("kind", String, nullable=False),  # login reset extend message delivered hint check run refused unapplied
    Column("text", Text, nullable=False),
    sqlite_autoincrement=True,
)
_APPEND_ONLY = [f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb} BEFORE {verb.upper()} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'the class record is append-only'); END"
                for table in ("lines", "notes") for verb in ("update", "delete")]


# the reads the class view makes after every line, built once (a statement built per call cost as
# much as running it)
_LINES_AFTER = select(lines_table).where(lines_table.c.lab == bindparam("lab"),
                                         lines_table.c.seq > bindparam("after")).order_by(lines_table.c.seq)
_NOTES_AFTER = select(notes_table).where(notes_table.c.lab == bindparam("lab"),
                                         notes_table.c.seq > bindparam("after")).order_by(notes_table.c.seq)
_KINDS_AFTER = _NOTES_AFTER.where(notes_table.c.kind.in_(bindparam("kinds", expanding=True)))


def now_text() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_wall(wall: str) -> datetime:
    return datetime.fromisoformat(wall.replace("Z", "+00:00"))


@dataclass(frozen=True)
class RecordedLine:
    seq: int
    lab: str
    member: str
    door: str
    wall: str
    clock_ms: int | None
    target: str
    prompt: str
    line: str
    ok: bool
    error_kind: str | None
    output: str
    output_cut: int
    lab_seq: int | None = None


@dataclass(frozen=True)
class Note:
    seq: int
    lab: str
    member: str
    by: str
    wall: str
    kind: str
    text: str


class Recorded(NamedTuple):
    """A line just recorded: its seq, and the seq of its lab's last trainer message (0: none)."""

    seq: int
    message: int


_ADD_LINE = insert(lines_table)
_MESSAGE_HEAD = text("SELECT max(seq) FROM notes WHERE lab = :lab AND kind = 'message'")
# one round trip in a shared database: the line, its transaction's id, the lab's last message (in
# the driver's own form: no SQLAlchemy compilation per line)
_PG_ADD_LINE = (
    "INSERT INTO lines (lab, member, door, wall, clock_ms, target, prompt, line, ok, error_kind, output, "
    "output_cut, lab_seq) VALUES (%(lab)s, %(member)s, %(door)s, %(wall)s, CAST(%(clock_ms)s AS BIGINT), "
    "%(target)s, %(prompt)s, %(line)s, CAST(%(ok)s AS BOOLEAN), CAST(%(error_kind)s AS VARCHAR), %(output)s, "
    "CAST(%(output_cut)s AS INTEGER), CAST(%(lab_seq)s AS BIGINT)) RETURNING seq, "
    "CAST(pg_current_xact_id() AS TEXT), "
    "(SELECT max(n.seq) FROM notes AS n WHERE n.lab = lines.lab AND n.kind = 'message')")
_MARK_UNAPPLIED = text(
    "INSERT INTO notes (lab, member, \"by\", wall, kind, text) SELECT lab, member, '-', :wall, 'unapplied', "
    "CAST(seq AS TEXT) FROM lines WHERE lab = :lab AND lab_seq > :head AND seq NOT IN "
    "(SELECT CAST(text AS INTEGER) FROM notes WHERE lab = :lab AND kind = 'unapplied')")


class ClassRecord:
    """The record of one class, shared by every thread (and process, and host) of the server."""

    def __init__(self, path: Path | None = None, *, database: Engine | None = None, shown: str = "") -> None:
        """The SQLite record file `path`, or the record in the shared `database` (an engine the
        caller owns; `shown` names it with its password hidden), its tables made when missing
        (`state_store.lab_db.ensure_schema`: a record of another schema version is refused)."""
        self.path = path
        self._lock = threading.Lock()  # one writer per process at a time (SQLite serializes processes)
        self.shared = database is not None  # the labs' database: a line joins its lab's transaction
        if database is not None:
            from state_store.lab_db import ensure_schema

            self.engine: Engine = database
            self._owned = False
            ensure_schema(database, shown, "class_record", RECORD_SCHEMA_VERSION, metadata, _pg_append_only)
            return
        assert path is not None
        self.engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": 30, "check_same_thread": False})
        self._owned = True
        event.listen(self.engine, "connect", _pragmas)
        with self.engine.begin() as conn:  # IF NOT EXISTS: workers starting together race to create
            for table in metadata.sorted_tables:
                conn.execute(CreateTable(table, if_not_exists=True))
                for index in table.indexes:
                    conn.execute(CreateIndex(index, if_not_exists=True))
            for statement in _APPEND_ONLY:
                conn.execute(text(statement))
        _sqlite_lab_seq(self.engine)

    @classmethod
    def open(cls, directory: Path) -> ClassRecord:
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory / RECORD_NAME)

    def close(self) -> None:
        if self._owned:
            self.engine.dispose()

    # -- writing (each call is committed when it returns, but through a unit's connection) ----------
    def add_line(self, *, lab: str, member: str, door: str, clock_ms: int | None, target: str, prompt: str,
                 line: str, ok: bool, error_kind: str | None, output: str,
                 unit: CommitUnit | None = None) -> Recorded:
        """Record a line. With `unit` (the lab's unit of commit, `LabStore.joined`): in a shared
        database the line is written through the unit's open transaction (committed with the
        lab's change; the transaction's id goes to the unit), else it is committed now and carries
        the row the unit appended, after marking `unapplied` the lab's lines whose row number the
        lab has given again (module docstring). The answer gives the lab's last trainer message as
        of the line (read by the same statement, or transaction), so that messages are looked for
        only when one came (`ClassRoom.deliver_messages`)."""
        cut = max(0, len(output) - MAX_OUTPUT_CHARS)
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}... ({len(line)} characters)"
        lab_seq = unit.appended if unit is not None and not unit.broken else None
        row = {"lab": lab, "member": member, "door": door, "wall": now_text(), "clock_ms": clock_ms,
               "target": target, "prompt": prompt, "line": line, "ok": ok, "error_kind": error_kind,
               "output": output[:MAX_OUTPUT_CHARS], "output_cut": cut, "lab_seq": lab_seq}
        if unit is not None and self.shared and unit.connection is not None and not unit.broken:
            from state_store.lab_db import driver_row

            seq, xid, message = driver_row(unit.connection, _PG_ADD_LINE, row)
            unit.xid = str(xid)
            return Recorded(int(seq), int(message or 0))
        with self._lock, self.engine.begin() as conn:
            if unit is not None and unit.base is not None and lab_seq is not None and not self.shared:
                self._mark_unapplied(conn, lab, unit.base)
            key = conn.execute(_ADD_LINE, row).inserted_primary_key
            message = conn.execute(_MESSAGE_HEAD, {"lab": lab}).scalar()
            return Recorded(int(key[0]) if key is not None else 0, int(message or 0))

    def mark_unapplied(self, lab: str, head: int) -> int:
        """Give an `unapplied` note to each line of `lab` whose row (`lab_seq`) is beyond `head`,
        the lab's last journal row (read under its write lock, which the caller still holds); how
        many lines it found."""
        with self._lock, self.engine.begin() as conn:
            return self._mark_unapplied(conn, lab, head)

    @staticmethod
    def _mark_unapplied(conn: Connection, lab: str, head: int) -> int:
        return int(conn.execute(_MARK_UNAPPLIED, {"lab": lab, "head": head, "wall": now_text()}).rowcount or 0)

    def add_note(self, *, lab: str, member: str, by: str, kind: str, text: str = "") -> int:
        row = {"lab": lab, "member": member, "by": by, "wall": now_text(), "kind": kind, "text": text}
        with self._lock, self.engine.begin() as conn:
            key = conn.execute(insert(notes_table), row).inserted_primary_key
            return int(key[0]) if key is not None else 0

    # -- reading ------------------------------------------------------------------------------------
    def lines(self, lab: str, after: int = 0) -> list[RecordedLine]:
        with self.engine.connect() as conn:
            return [RecordedLine(**row._mapping) for row in conn.execute(_LINES_AFTER, {"lab": lab, "after": after})]

    def notes(self, lab: str, kinds: tuple[str, ...] = (), after: int = 0) -> list[Note]:
        query, values = (_NOTES_AFTER, {"lab": lab, "after": after}) if not kinds else \
            (_KINDS_AFTER, {"lab": lab, "after": after, "kinds": list(kinds)})
        with self.engine.connect() as conn:
            return [Note(**row._mapping) for row in conn.execute(query, values)]

    def unapplied(self, lab: str) -> set[int]:
        """The seqs of the lab's lines whose change the lab does not have (`mark_unapplied`)."""
        query = select(notes_table.c.text).where(notes_table.c.lab == lab, notes_table.c.kind == "unapplied")
        with self.engine.connect() as conn:
            return {int(text) for (text,) in conn.execute(query) if str(text).isdigit()}

    def first_wall_after(self, lab: str, since: str) -> str | None:
        """The wall time of the lab's first line after `since` (None: no such line)."""
        query = select(func.min(lines_table.c.wall)).where(lines_table.c.lab == lab, lines_table.c.wall > since)
        with self.engine.connect() as conn:
            found = conn.execute(query).scalar()
        return None if found is None else str(found)

    def last_activity(self) -> dict[str, str]:
        """Each lab's last line's wall time."""
        query = select(lines_table.c.lab, func.max(lines_table.c.wall)).group_by(lines_table.c.lab)
        with self.engine.connect() as conn:
            return {str(lab): str(wall) for lab, wall in conn.execute(query)}

    def counts(self) -> dict[str, int]:
        query = select(lines_table.c.lab, func.count()).group_by(lines_table.c.lab)
        with self.engine.connect() as conn:
            return {str(lab): int(n) for lab, n in conn.execute(query)}


def _sqlite_lab_seq(engine: Engine) -> None:
    """A record file written before `lines.lab_seq` gets the column (empty in its old lines), and
    every record file the index `mark_unapplied` reads."""
    from sqlalchemy.exc import OperationalError

    with engine.begin() as conn:
        columns = {str(row[1]) for row in conn.execute(text("PRAGMA table_info(lines)"))}
        if "lab_seq" not in columns:
            try:
                conn.execute(text("ALTER TABLE lines ADD COLUMN lab_seq INTEGER"))
            except OperationalError as exc:  # another process added it a moment ago
                if "duplicate column" not in str(exc):
                    raise
        conn.execute(text("CREATE INDEX IF NOT EXISTS ix_lines_lab_seq ON lines (lab, lab_seq)"))


def _pg_append_only(conn: Any) -> None:
    """PostgreSQL's form of the append-only triggers; a record written before `lines.lab_seq`
    gets the column (nullable: older programs still write to it)."""
    conn.execute(text("ALTER TABLE lines ADD COLUMN IF NOT EXISTS lab_seq BIGINT"))
    conn.execute(text("CREATE OR REPLACE FUNCTION class_record_append_only() RETURNS trigger LANGUAGE plpgsql "
                      "AS $$ BEGIN RAISE EXCEPTION 'the class record is append-only'; END $$"))
    for table in ("lines", "notes"):
        conn.execute(text(f"CREATE OR REPLACE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                          "FOR EACH ROW EXECUTE FUNCTION class_record_append_only()"))


def _pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # in WAL mode a commit survives a killed process
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def transcript_of(lines: list[RecordedLine], scenario: Path, title: str, notes: Iterable[Note] = ()) -> str:
    """One lab's record as a transcript (docs/transcripts.md): the scenario header, then each line
    after its prompt with its output, a `#|` comment before it giving the wall time, the lab's
    clock, who typed it and through which door. Notes (trainer actions, hints) are comments."""
    from state_store.scenario_files import ROOT_DIR

    bundled = scenario.resolve().parent == ROOT_DIR.resolve()
    out = [f"#| {title}", f"#: scenario: {scenario.stem if bundled else scenario.resolve()}", ""]
    out += transcript_body(lines, notes)
    return "\n".join(out) + "\n"


def transcript_body(lines: list[RecordedLine], notes: Iterable[Note] = ()) -> list[str]:
    """The transcript's lines after its header (`transcript_of`): the lines and notes in order of
    wall time (a note before a line of the same time), so that the body of rows recorded later
    continues the transcript of the rows before them."""
    from grammar.tokens import printable

    from ..transcript.format import format_input_line
    from ..transcript.record import masked_output_line

    out: list[str] = []
    events: list[tuple[str, int, Any]] = [(line.wall, line.seq, line) for line in lines]
    events += [(note.wall, -1, note) for note in notes]
    for _, _, item in sorted(events, key=lambda e: (e[0], e[1])):
        if isinstance(item, Note):
            out.append(f"#| {item.wall} {item.kind} by {item.by}: {' '.join(item.text.split())}".rstrip())
            continue
        clock = "-" if item.clock_ms is None else f"{item.clock_ms / 1000:.3f}s"
        out.append(f"#| {item.wall} clock {clock} {item.member} {item.door}")
        out.append(format_input_line(item.prompt, printable(item.line)))  # no control code in a file to cat
        out.extend(masked_output_line(text) for text in item.output.splitlines())
        if item.output_cut:
            out.append(f"#| ({item.output_cut} characters of output not kept)")
    return out


def iter_labs(record: ClassRecord) -> Iterator[str]:
    query = select(lines_table.c.lab).distinct()
    with record.engine.connect() as conn:
        yield from (str(row[0]) for row in conn.execute(query))
