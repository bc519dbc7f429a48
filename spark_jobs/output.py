"""The job's output directory, written all at once: every entry staged, then put in place by `commit()`.

Why: a run writes seven entries (four Parquet tables, summary.json, report.html, run.json). Written in
place, a run stopped half-way (Ctrl-C, a failed Spark job, a full disk) left tables without their
Parquet footer next to the previous run's summary, which then described other tables. Staged, a run
that does not finish leaves `--out` as it was; one that does replaces exactly the entries it writes
(other files in `--out` stay).

A local `--out` stages in a hidden directory inside it (`_solace-conformance-*`: Spark, Hadoop and
the job's own listing skip `_` names), on the same file system, so each entry moves by a rename. A
remote one (hdfs://, s3a://, ...) stages in a local temporary directory whose files `publish` copies
at commit, as before. Only a process killed outright (SIGKILL) can leave a staging directory behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

import pyarrow as pa

from .tables import TableSet

STAGING_PREFIX = "_solace-conformance-"

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
            self._staging = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out)
        else:
            self._staging = tempfile.mkdtemp(prefix=STAGING_PREFIX)
        self._entries: list[str] = list(schemas)
        try:
            self.tables = TableSet(self._staging, schemas)
        except BaseException:
            self._remove_staging()
            raise

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
            shutil.rmtree(self._staging, ignore_errors=True)

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

    def _remove_staging(self) -> None:
        shutil.rmtree(self._staging, ignore_errors=True)
        if self._created_out:
            try:
                os.rmdir(self._out)
            except OSError:  # something else was put there meanwhile: not ours to remove
                pass
