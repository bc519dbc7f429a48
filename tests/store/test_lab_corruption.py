"""Damaged lab files: every corruption is one line naming the file and the problem, never a
traceback; a lab that still opens answers its commands (tests/support/lab_corruption.py)."""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from solace_shell.lab import Lab
from state_store.errors import LabFileError
from state_store.lab_store import LabStore
from tests.support.lab_corruption import Damage, damages, lab_bytes, open_damaged

WORKDIR = Path(tempfile.mkdtemp(prefix="lab-corruption-"))  # the real lab files, made once per run
atexit.register(shutil.rmtree, WORKDIR, ignore_errors=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damages())
def test_random_bytes_overwritten_in_real_lab_files(damage: Damage) -> None:
    with tempfile.TemporaryDirectory(dir=WORKDIR) as tmp:
        path = Path(tmp) / "lab.sqlite"
        path.write_bytes(damage.apply(lab_bytes(damage.kind, WORKDIR)))
        outcome = open_damaged(path)
        assert outcome.clean, outcome.what


def test_non_utf8_bytes_in_the_schema_text(tmp_path: Path) -> None:
    """Two bytes inside `CREATE TABLE meta` become CR and 0xED: SQLite still reads the schema, whose
    text is no longer UTF-8."""
    path = tmp_path / "lab.sqlite"
    LabStore.open(path).close()
    data = bytearray(path.read_bytes())
    at = data.index(b"CREATE TABLE meta")
    data[at + 14:at + 16] = b"\r\xed"
    path.write_bytes(bytes(data))
    with pytest.raises(LabFileError) as error:
        Lab.open(path)
    assert str(error.value) == f"{path}: lab file is corrupt (text in it is not UTF-8)"


def test_a_header_that_makes_the_lab_read_only(tmp_path: Path) -> None:
    """Byte 18 of the header above 2: SQLite opens the file but every write fails."""
    path = tmp_path / "lab.sqlite"
    LabStore.open(path).close()
    data = bytearray(path.read_bytes())
    data[18] = 18
    path.write_bytes(bytes(data))
    with pytest.raises(LabFileError) as error:
        Lab.open(path)
    assert str(error.value) == (f"{path}: lab file is corrupt (its header gives file format versions 18 and 2; "
                                "SQLite writes 1 or 2)")


def test_a_lab_that_cannot_be_written_any_more_is_one_line_per_command(tmp_path: Path) -> None:
    """SQLite refuses to write an open lab (as it does when its file went bad, or became read-only
    to it; here the shell's own connection is made query-only): a command that changes the lab
    says so in one line naming the file, and nothing changes."""
    path = tmp_path / "lab.sqlite"
    lab = Lab.open(path)
    try:
        before = lab.store.dump()
        journal = lab.store._journal
        assert journal is not None
        journal.raw.execute("PRAGMA query_only = 1")
        out = lab.execute("lab", "fail site NY")
        assert (out.ok, out.error_kind, out.text) == (False, "lab-file", (
            f"ERROR: The lab file {path} cannot be used: lab file cannot be written (attempt to write a readonly "
            "database); nothing was changed."))
        assert lab.store.dump() == before
    finally:
        lab.close()


def test_what_sqlite_says_is_shown_as_one_printable_line() -> None:
    from state_store.lab_file import damage_problem

    problem = damage_problem(sqlite3.DatabaseError('unrecognized token: "\x1b[2J\u202e)\n)"'))
    assert problem == 'lab file is corrupt or truncated (unrecognized token: "?[2J?) )")'
