"""The job's output directory, written all at once: every entry staged, then put in place by `commit()`.

Why: a run writes seven entries (four Parquet tables, summary.json, report.html, run.json). Written in
place, a run stopped half-way (Ctrl-C, a failed Spark job, a full disk) left tables without their
Parquet footer next to the previous run's summary, which then described other tables. Staged, a run
that does not finish leaves `--out` as it was; one that does replaces exactly the entries it writes
(other files in `--out` stay).

A local `--out` stages in a hidden directory inside it (`_solace-conformance-*`: Spark, Hadoop and
the job's own listing skip `_` names), on the same file system, so each entry moves by a rename. A
remote one (hdfs://, s3a://, ...) stages in a local temporary directory whose files `publish` copies
at commit, as before. Only a process killed outright (SIGKILL, a lost machine) can leave a staging
directory behind; the next run that stages in the same place removes it (`sweep_abandoned`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable

try:
    import fcntl
except ImportError:  # Windows: no flock, so no run can tell an abandoned staging directory from a live one
    fcntl = None  # type: ignore[assignment]

import pyarrow as pa

from .tables import TableSet

STAGING_PREFIX = "_solace-conformance-"
OWNER_FILE = ".owner"  # in a staging directory: locked (flock) by the run staging there, for as long as it runs

Publish = Callable[[str, str], None]  # (local file, name relative to --out): copy it to a remote --out


def unusable_local_out(path: str) -> str | None:
    """Why a run could not write a local `--out`, or None. Checked before Spark starts, so a wrong
    argument costs no session start-up and no replay."""
    if os.path.lexists(path) and not os.path.isdir(path):
        return "a file, not a directory"
    ancestor = os.path.abspath(path)
    while not os.path.lexists(ancestor):
        ancestor = os.path.dirname(ancestor)
    if not os.path.isdir(ancestor):
        return f"{ancestor} is a file, not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"no permission to write in {ancestor}"
    return None


def sweep_abandoned(parent: str) -> list[str]:
    """Remove the staging directories in `parent` whose run has ended without removing them; returns
    their names.

    Why a lock and not a process id: each run holds an exclusive `flock` on its staging directory's
    `OWNER_FILE` while it runs, and the kernel releases it when the process ends, however it ends
    (SIGKILL included); a process id can be reused, or belong to another machine sharing `--out`. A
    directory whose lock can be taken is abandoned. One with no owner file is left alone: a run
    between creating its directory and locking it, or one a release before this one left."""
    if fcntl is None:
        return []
    swept = []
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        candidates = [e.path for e in entries if e.name.startswith(STAGING_PREFIX) and e.is_dir(follow_symlinks=False)]
        for path in candidates:
            try:
                fd = os.open(os.path.join(path, OWNER_FILE), os.O_RDWR | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # its run is alive
                continue
            finally:
                os.close(fd)  # an abandoned one stays unlocked: no run stages in it again
            shutil.rmtree(path, ignore_errors=True)
            swept.append(os.path.basename(path))
    return swept


def _stage_in(parent: str) -> tuple[str, int]:
    """A new staging directory in `parent` and the descriptor holding its owner lock."""
    sweep_abandoned(parent)
    staging = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=parent)
    fd = -1
    try:
        # Locked under another name, then renamed: an owner file another run can see is always locked.
        locking = os.path.join(staging, OWNER_FILE + "-new")
        fd = os.open(locking, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file of our own: never held by another
        os.rename(locking, os.path.join(staging, OWNER_FILE))
    except BaseException:
        if fd >= 0:
            os.close(fd)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging, fd


class OutputDir:
    """One run's entries, staged until `commit()`; `discard()` drops them and leaves `--out` as it was."""

    def __init__(self, out: str, is_local: bool, schemas: dict[str, pa.Schema], publish: Publish) -> None:
        """`out` is a local path when `is_local`, else a remote URI that `publish` writes to."""
        self._out, self._is_local, self._publish = out, is_local, publish
        self._created_out = False
        if is_local:
            if not os.path.isdir(out):
                os.makedirs(out)
                self._created_out = True
        self._staging, self._owner = _stage_in(out if is_local else tempfile.gettempdir())
        self._entries: list[str] = list(schemas)
        try:
            self.tables = TableSet(self._staging, schemas)
        except BaseException:
            self._remove_staging()
            raise

    @property
    def staging(self) -> str:
        """The directory this run stages in."""
        return self._staging

    def write_text(self, name: str, text: str) -> None:
        """A text entry (UTF-8, `\\n` line ends), staged."""
        with open(os.path.join(self._staging, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        self._entries.append(name)

    def commit(self) -> None:
        """Every staged entry into `--out`, replacing an entry of the same name; the tables must be
        closed (`tables.close()`)."""
        try:
            if self._is_local:
                for name in self._entries:
                    self._move_into_place(name)
            else:
                for name in self._entries:
                    staged = os.path.join(self._staging, name)
                    if not os.path.isdir(staged):
                        self._publish(staged, name)
                        continue
                    for file in sorted(os.listdir(staged)):
                        self._publish(os.path.join(staged, file), f"{name}/{file}")
        finally:
            self._remove_staging(keep_out=True)

    def discard(self) -> None:
        """Drop every staged entry: `--out` is left as it was (removed again if this run created it)."""
        self.tables.abort()
        self._remove_staging()

    def _move_into_place(self, name: str) -> None:
        staged, target = os.path.join(self._staging, name), os.path.join(self._out, name)
        if os.path.isdir(staged) and os.path.lexists(target):
            if os.path.isdir(target) and not os.path.islink(target):
                os.rename(target, os.path.join(self._staging, f".replaced-{name}"))  # goes with the staging
            else:
                os.remove(target)
        os.replace(staged, target)  # a file: atomic; a directory: its place is free by now

    def _remove_staging(self, keep_out: bool = False) -> None:
        shutil.rmtree(self._staging, ignore_errors=True)
        if self._owner >= 0:  # closed after the removal: until then no other run takes the directory for abandoned
            os.close(self._owner)
            self._owner = -1
        if self._created_out and not keep_out:
            try:
                os.rmdir(self._out)
            except OSError:  # something else was put there meanwhile: not ours to remove
                pass
