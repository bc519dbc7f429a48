"""Lab files on disk: creating one safely, and refusing a path that cannot be a usable lab with one
clear line (a LabFileError) before SQLite or SQLAlchemy ever see it.

Why its own module: the storage engine behind a lab may change, but where the file comes from and
what makes a path unusable do not.

- Creation: the new lab is written into a temporary file that `tempfile.mkstemp` creates in the
  target directory (O_CREAT|O_EXCL with a random name: never an existing file, never through a
  symlink an attacker planted), synced, then linked to its final name with `os.link`, which is
  atomic and fails rather than replace a lab another shell created at the same moment (that lab
  is then used). Readers never see a half-written lab. The temporary file is locked (flock) while
  its creator lives, so opening a lab removes what killed creators left (``remove_stale_creations``)
  and never a creation under way.
- Checking: a directory, a missing or unwritable directory, an unreadable or read-only file, a
  file that is not SQLite, a foreign or damaged database, another schema version (one this program
  cannot rewrite: ``legacy_version`` names those it can), a lab its root model cannot use (no routers,
  an access level this program does not know: ``check_state``, once the lab is read): each is its own
  sentence.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from . import loader
from .errors import LabFileError

if TYPE_CHECKING:
    from .lab_model import LabState

SQLITE_MAGIC = b"SQLite format 3\x00"
SIDECARS = ("-wal", "-shm", "-journal")


_LAB = loader.lab_model()  # the lab's root model: which old lab files it rewrites, which labs it can use


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_directory(path: Path) -> None:
    """The directory that holds (or will hold) the lab must exist and be writable: SQLite creates
    the -wal and -shm files next to the lab."""
    parent = path.parent
    if not parent.exists():
        raise LabFileError(str(path), f"directory {parent} does not exist")
    if not parent.is_dir():
        raise LabFileError(str(path), f"{parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise LabFileError(str(path), f"directory {parent} is not writable "
                                      "(the lab needs it for its -wal and -shm files)")


def create(path: Path, fill: Callable[[sqlite3.Connection], None]) -> bool:
    """Create the lab file `path` with `fill(connection)`; False when another process created it
    first (its lab is kept). Raises LabFileError when the directory cannot take it.

    The temporary file is flock()ed for as long as this runs, so `remove_stale_creations` can tell
    the leftovers of a killed creator (no lock: the kernel dropped it with the process) from a
    creation still under way."""
    check_directory(path)
    fd, tmp = _locked_temporary(path)
    try:
        con = sqlite3.connect(tmp)
        try:
            fill(con)
            con.commit()
        finally:
            con.close()
        os.fsync(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:
            raise LabFileError(str(path), f"cannot create: {_why(exc)}") from None
        return True
    except sqlite3.Error as exc:
        raise LabFileError(str(path), f"cannot write the new lab: {exc}") from None
    except OSError as exc:
        raise LabFileError(str(path), f"cannot write the new lab: {_why(exc)}") from None
    finally:
        for name in [*(Path(f"{tmp}{s}") for s in SIDECARS), tmp]:  # the locked file last
            with contextlib.suppress(FileNotFoundError):
                name.unlink()
        os.close(fd)


CREATING_SUFFIX = ".creating"


def _locked_temporary(path: Path) -> tuple[int, Path]:
    """A new temporary file beside `path` (O_EXCL, random name), locked; its descriptor and name.
    Made again if a cleaner removed it between its creation and the lock."""
    import tempfile  # only when a lab is created: opening one (every command) needs none of it

    while True:
        try:
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=CREATING_SUFFIX, dir=path.parent)
        except OSError as exc:
            raise LabFileError(str(path), f"cannot create a file in {path.parent}: {_why(exc)}") from None
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink > 0:
            return fd, Path(name)
        os.close(fd)


def remove_stale_creations(path: Path) -> list[Path]:
    """Remove what creators of `path` killed mid-way left beside it (`.NAME.*.creating` and its
    SQLite sidecars); the names removed. A temporary file still locked by its creator is kept, and
    so is anything that is not a regular file of this user (a symlink is never followed)."""
    removed: list[Path] = []
    try:
        names = [p for p in path.parent.iterdir() if p.name.startswith(f".{path.name}.")]
    except OSError:
        return removed
    mains = {p for p in names if p.name.endswith(CREATING_SUFFIX)}
    for main in sorted(mains):
        if _unlink_if_unlocked(main):
            removed.append(main)
    for sidecar in sorted(p for p in names if p.name.endswith(tuple(CREATING_SUFFIX + s for s in SIDECARS))):
        main = Path(str(sidecar).rsplit("-", 1)[0])
        if not os.path.lexists(main) and _own_regular_file(sidecar):  # a live creator's main file exists
            with contextlib.suppress(OSError):
                sidecar.unlink()
                removed.append(sidecar)
    return removed


def _own_regular_file(name: Path) -> bool:
    try:
        st = os.lstat(name)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()


def _unlink_if_unlocked(name: Path) -> bool:
    """Unlink `name` if it is a regular file of this user that no process holds locked."""
    if not _own_regular_file(name):
        return False
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # its creator is alive
        opened = os.fstat(fd)
        try:
            now = os.lstat(name)
        except OSError:
            return False
        if (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino):
            return False  # the name was given to another file meanwhile
        try:
            name.unlink()
        except OSError:
            return False
        return True
    finally:
        os.close(fd)


def check_path(path: Path) -> None:
    """An existing path must be a readable, writable regular file in a writable directory."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise LabFileError(str(path), f"cannot use: {_why(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise LabFileError(str(path), "is a directory, not a lab file")
    if not stat.S_ISREG(st.st_mode):
        raise LabFileError(str(path), "is not a regular file")
    if not os.access(path, os.R_OK):
        raise LabFileError(str(path), "cannot read: Permission denied")
    if not os.access(path, os.W_OK):
        raise LabFileError(str(path), "is read-only (the shell writes every command to its lab)")
    check_directory(path)


def legacy_version(path: Path) -> str | None:
    """The schema version of a lab written by an older version that this one can still read and
    rewrite (the lab's root model's ``legacy_versions``), else None (anything else is left for
    check_contents)."""
    try:
        with open(path, "rb") as fh:
            if not fh.read(100).startswith(SQLITE_MAGIC):
                return None
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        finally:
            con.close()
    except (sqlite3.DatabaseError, OSError, UnicodeDecodeError):  # check_contents names the damage
        return None
    return str(row[0]) if row is not None and row[0] in _LAB.legacy_versions() else None


@contextlib.contextmanager
def damage_is_one_line(path: Path) -> Iterator[None]:
    """Reading a lab file: whatever SQLite reports about its bytes, and text in it that is not
    UTF-8, become one LabFileError naming the file.

    Why around the whole open and not each read: a damaged file can break any statement (the
    schema, the version, the journal) in several ways, and each new read would be one more place
    to forget; a locked database is not damage and passes through for the caller's retry."""
    try:
        yield
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        problem = damage_problem(exc)
        if problem is None:
            raise
        raise LabFileError(str(path), problem) from None


# A write that found no room: not damage (the file is as it was, the command rolled back), and the
# one thing that helps is room on its disk.
DISK_FULL = "the disk holding it is full (free some space, then run the command again)"
_SQLITE_FULL = getattr(sqlite3, "SQLITE_FULL", 13)


def damage_problem(exc: BaseException) -> str | None:
    """What an exception from reading or writing a lab file says about the file, in one line; None
    when it says nothing about it (a locked database, which is waited for, or any other error).
    SQLAlchemy's errors are read through to the SQLite error they wrap."""
    cause = getattr(exc, "orig", None) if type(exc).__module__.startswith("sqlalchemy") else exc
    if isinstance(cause, UnicodeDecodeError):
        return "lab file is corrupt (text in it is not UTF-8)"
    if isinstance(cause, OSError) and cause.errno == errno.ENOSPC:
        return DISK_FULL
    if not isinstance(cause, sqlite3.DatabaseError):
        from .lab_db import connection_problem

        return connection_problem(exc)  # a shared database's failure (lost connection, ...), else None
    reason = _one_line(str(cause))
    if "locked" in reason.lower() or "busy" in reason.lower():
        return None
    if getattr(cause, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in reason:
        return DISK_FULL
    if "readonly" in reason or "read-only" in reason:
        return f"lab file cannot be written ({reason})"
    return f"lab file is corrupt or truncated ({reason})"


def _one_line(text: str) -> str:
    """SQLite's message may quote the file's own bytes: one line, no control or bidi characters."""
    return "".join(ch if ch.isprintable() else "?" for ch in " ".join(text.split()))[:200]


def check_contents(path: Path, schema_version: str, tables: Iterable[str]) -> None:
    """The file must be a whole, undamaged lab of this schema version that someone can use."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
    except OSError as exc:
        raise LabFileError(str(path), f"cannot read: {_why(exc)}") from None
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        raise LabFileError(str(path), "not a lab file (not an SQLite database)")
    if head[18] not in (1, 2) or head[19] not in (1, 2):  # SQLite would open it read-only, or not at all
        raise LabFileError(str(path), f"lab file is corrupt (its header gives file format versions {head[18]} "
                                      f"and {head[19]}; SQLite writes 1 or 2)")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            _check_database(con, str(path), schema_version, set(tables))
        finally:
            con.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        raise LabFileError(str(path), damage_problem(exc) or f"lab file is corrupt or truncated ({exc})") from None


def _check_database(con: sqlite3.Connection, path: str, schema_version: str, needed: set[str]) -> None:
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        raise LabFileError(path, "not a solace-shell lab (no meta table)")
    row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        raise LabFileError(path, "not a solace-shell lab (no schema version)")
    if row[0] != schema_version:
        found = str(row[0])
        if found.isdigit() and schema_version.isdigit() and int(found) > int(schema_version):
            raise LabFileError(path, f"lab schema version {found} is newer than this program's ({schema_version}): "
                                     "open it with a newer solace-shell, or build a new lab (another --db file)")
        raise LabFileError(path, f"lab schema version {found}, this program needs {schema_version} and cannot "
                                 "upgrade it: build a new lab (another --db file, or move this one away)")
    missing = needed - tables
    if missing:
        raise LabFileError(path, f"lab file is missing tables: {', '.join(sorted(missing))}")
    bad = con.execute("PRAGMA quick_check").fetchone()
    if bad is None or bad[0] != "ok":
        raise LabFileError(path, "lab file is corrupt (integrity check failed)")


def check_state(path: Path, st: LabState) -> None:
    """A readable lab its root model cannot use (no routers at all, a CLI user this program cannot
    place: ``LabModel.unusable``) is refused in one line."""
    problem = _LAB.unusable(st)
    if problem is not None:
        raise LabFileError(str(path), problem)
