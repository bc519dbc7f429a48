"""A lab file that cannot grow (its disk is full) is said to be on a full disk, naming the file; the
command changes nothing, and once there is room again the lab goes on as before. The room is taken
away with SQLite's own quota (`PRAGMA max_page_count`), which fails a write exactly as a full disk
does (SQLITE_FULL, "database or disk is full")."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from solace_shell.lab import Lab
from state_store.lab_file import DISK_FULL, damage_problem

PUBLISH = "publish trader trading/orders/new count 5000"


def _published(lab: Lab) -> str:
    return lab.execute("lab", "audit").text.splitlines()[0]


def test_a_full_disk_is_reported_as_such_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "full.lab"
    lab = Lab.open(path)
    try:
        raw = lab.store._journal.raw  # type: ignore[attr-defined]
        pages = raw.execute("PRAGMA page_count").fetchone()[0]
        raw.execute(f"PRAGMA max_page_count={pages}")
        for _ in range(60):  # snapshots grow the file within a few dozen commands
            before = _published(lab)
            outcome = lab.execute("lab", PUBLISH)
            if not outcome.ok:
                break
        else:
            raise AssertionError("the lab file never needed another page")
        assert outcome.text == (f"ERROR: The lab file {path} cannot be used: the disk holding it is full "
                                "(free some space, then run the command again); nothing was changed.")
        assert "corrupt" not in outcome.text
        assert _published(lab) == before
        raw.execute("PRAGMA max_page_count=1073741823")
        assert lab.execute("lab", PUBLISH).ok
    finally:
        lab.close()
    reopened = Lab.open(path)
    try:
        assert _published(reopened) != before
    finally:
        reopened.close()


def test_an_operating_system_full_disk_and_sqlites_are_one_problem() -> None:
    assert damage_problem(OSError(errno.ENOSPC, "No space left on device")) == DISK_FULL
    assert damage_problem(sqlite3.OperationalError("database or disk is full")) == DISK_FULL
    assert damage_problem(sqlite3.DatabaseError("database disk image is malformed")).startswith("lab file is corrupt")
