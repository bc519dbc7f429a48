"""The `solace-shell class` commands: `serve`, `grades`, `export` (click wiring in cli.py).

Each checks the class file first (every problem at once, exit 2, nothing served or written) and
says in one line what else is wrong (no record yet, a trainee not in the class).
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from sqlalchemy.exc import SQLAlchemyError

from state_store.errors import LabFileError
from state_store.lab_db import is_database_url

from .class_file import ClassFile, ClassFileError, load_class_file
from .grades import GRADE_COLUMNS, grade_rows, grades_document
from .record import RECORD_NAME, ClassRecord
from .room import ClassRoom

if TYPE_CHECKING:
    from .web.options import WebOptions

def _fail(message: str, code: int = 2) -> int:
    sys.stderr.write(f"solace-shell: {message}\n")
    return code


def load(path: str) -> ClassFile | int:
    """The class file, or the exit status after saying what is wrong with it."""
    try:
        return load_class_file(path)
    except ClassFileError as exc:
        return _fail(f"class file {exc.path} has {len(exc.problems)} problem(s):\n" + "\n".join(exc.problems))


def directory_of(class_file: ClassFile, db: str | None) -> Path:
    """Where the class's files are: `--db DIR`, else beside the class file (with `--db URL`, only
    the SSH host key is there)."""
    return Path(db) if db and not is_database_url(db) else class_file.directory


def database_of(db: str | None) -> str | None:
    """The shared database's URL when `--db` gives one."""
    return db if db and is_database_url(db) else None


def serve(path: str, db: str | None, host: str, port: int, workers: int, out: TextIO, worker: bool = False,
          web: WebOptions | None = None, env_drop: tuple[str, ...] = ()) -> int:
    """Serve the class; with `workers` > 1, that many processes on the same ports (`ssh.workers`),
    each a `worker` serving the class from the same directory (labs and record are shared files)
    or the same database. A database URL reaches the workers through a pipe each, never their
    command line or environment (it may carry a password; `env_drop` names the variables that
    may hold it)."""
    found = load(path)
    if isinstance(found, int):
        return found
    from .server import run_class_server

    directory = directory_of(found, db)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _fail(f"cannot create the class directory {directory}: {exc.strerror or exc}")
    if web is not None and workers > 1:
        return _fail("--web-port serves from one process: give --workers 1")
    if workers > 1 and not worker:
        from ..ssh.workers import MAX_SECRET_BYTES, run_workers
        from .server import class_targets

        url = database_of(db)
        args = ["class", "serve", str(found.path)]
        if url is None:
            args += ["--db", str(directory.resolve())]
            # the record file set up here, once: workers starting together on a new class
            # directory would race to create it and to switch it to WAL (a lock SQLite's busy
            # wait does not cover), and one would end at its start
            try:
                ClassRecord.open(directory).close()
            except (OSError, SQLAlchemyError) as exc:
                return _fail(f"cannot open the class record in {directory}: {exc}")
        elif len(url.encode()) > MAX_SECRET_BYTES:
            return _fail(f"the database URL is longer than {MAX_SECRET_BYTES} bytes")
        return run_workers(directory / "class", host, port, workers, len(class_targets(found)), out, serve_args=args,
                           db_url=url, env_drop=env_drop)
    return run_class_server(found, directory, host, port, out, reuse_port=worker, web=web,
                            database_url=database_of(db))


def _room(path: str, db: str | None) -> ClassRoom | int:
    found = load(path)
    if isinstance(found, int):
        return found
    directory = directory_of(found, db)
    url = database_of(db)
    if url is None and not (directory / RECORD_NAME).is_file():
        return _fail(f"no class record in {directory} (serve the class first, or give --db)")
    try:
        return ClassRoom(found, directory, url)
    except LabFileError as exc:
        return _fail(f"class database {exc.path}: {exc.problem}")


def grades(path: str, db: str | None, csv_path: str | None, json_out: bool, out: TextIO) -> int:
    if csv_path is None and not json_out:
        return _fail("give --csv FILE or --json")
    room = _room(path, db)
    if isinstance(room, int):
        return room
    try:
        rows = grade_rows(room)
        if csv_path is not None:
            try:
                with open(csv_path, "w", newline="", encoding="utf-8") as handle:
                    writer = csv.DictWriter(handle, GRADE_COLUMNS)
                    writer.writeheader()
                    writer.writerows(rows)
            except OSError as exc:
                return _fail(f"cannot write {csv_path}: {exc.strerror or exc}")
        if json_out:
            out.write(json.dumps(grades_document(room, rows), sort_keys=True) + "\n")
        return 0
    finally:
        room.close()


def export(path: str, db: str | None, trainee: str, out: TextIO) -> int:
    room = _room(path, db)
    if isinstance(room, int):
        return room
    try:
        member = room.class_file.trainee(trainee)
        if member is None:
            return _fail(f"no trainee '{trainee[:40]}' in this class")
        out.write(room.transcript(member.lab))
        return 0
    finally:
        room.close()
