"""Lab files: atomic creation that never follows a symlink, no -wal/-shm left after a clean close,
and one clear line for every bad --db case."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solace_shell.cli import main

ROOT = os.geteuid() == 0  # root may write anything, so the permission cases cannot happen as root


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def _edit(db: Path, sql: str) -> None:
    assert run("--db", str(db), "-c", "show hostname").exit_code == 0
    con = sqlite3.connect(db)
    con.executescript(sql)
    con.close()


@pytest.mark.parametrize(("make", "expected"), [
    (lambda db: db.mkdir(), "is a directory, not a lab file"),
    (lambda db: None, "directory {parent} does not exist"),
    (lambda db: db.symlink_to(db.parent / "elsewhere"), "cannot use: No such file or directory"),
    (lambda db: os.mkfifo(db), "is not a regular file"),
    (lambda db: _edit(db, "DELETE FROM router;"), "the lab has no routers"),
    (lambda db: _edit(db, "UPDATE cli_user SET level='root' WHERE name='monitor';"),
     "CLI user 'monitor' has an unknown access level 'root'"),
    (lambda db: _edit(db, "UPDATE meta SET value='2' WHERE key='schema_version';"),
     "lab schema version 2, this program needs 5 and cannot upgrade it: build a new lab (another --db file, "
     "or move this one away)"),
], ids=["directory", "missing-directory", "dangling-symlink", "fifo", "no-routers", "bad-level", "old-schema"])
def test_every_bad_db_is_one_clear_line(tmp_path: Path, make, expected: str) -> None:
    db = tmp_path / "lab.sqlite"
    if expected.startswith("directory {parent}"):
        db = tmp_path / "missing" / "lab.sqlite"
        expected = expected.format(parent=db.parent)
    make(db)
    line = one_line(run("--db", str(db), "-c", "show hostname"))
    assert line == f"solace-shell: cannot open lab {db}: {expected}"


@pytest.mark.skipif(ROOT, reason="root may write a read-only file")
def test_a_read_only_lab_is_one_clear_line(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    run("--db", str(db), "-c", "show hostname")
    db.chmod(0o444)
    line = one_line(run("--db", str(db), "-c", "show hostname"))
    assert line == f"solace-shell: cannot open lab {db}: is read-only (the shell writes every command to its lab)"


@pytest.mark.skipif(ROOT, reason="root may write into a read-only directory")
def test_an_unwritable_directory_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir(mode=0o555)
    db = tmp_path / "ro" / "lab.sqlite"
    line = one_line(run("--db", str(db), "-c", "show hostname"))
    assert line.startswith(f"solace-shell: cannot open lab {db}: directory {db.parent} is not writable")


def test_an_unusable_home_for_the_default_lab_is_one_clear_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {"XDG_DATA_HOME": str(blocker / "data"), "SOLACE_SHELL_DB": ""}
    line = one_line(run("-c", "show hostname", env=env))
    assert line == (f"solace-shell: cannot create the directory of the default lab {blocker}/data/solace-shell: "
                    "Not a directory (choose a lab file with --db or SOLACE_SHELL_DB)")


def test_creation_never_follows_a_planted_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    db = tmp_path / "lab.sqlite"
    # the old fixed temporary name, and the lab name itself, planted as links to the victim
    (tmp_path / "lab.sqlite.creating").symlink_to(victim)
    assert run("--db", str(db), "-c", "show hostname").exit_code == 0
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.sqlite", "lab.sqlite.creating", "victim.txt"]
    other = tmp_path / "other.sqlite"
    other.symlink_to(victim)
    one_line(run("--db", str(other), "-c", "show hostname"))
    assert victim.read_text() == "precious\n"


def test_no_wal_or_shm_after_a_clean_close_even_after_a_kill(tmp_path: Path) -> None:
    db = tmp_path / "lab.sqlite"
    assert run("--db", str(db), "-c", "lab-less command is refused").exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.sqlite"]
    # a process killed with the lab open leaves its -wal and -shm (they hold committed work) ...
    code = ("import os, sys; from solace_shell.lab import Lab; lab = Lab.open(sys.argv[1]); "
            "lab.execute('NY_Appliance1', 'enable'); lab.execute('lab', 'advance 5s'); os._exit(9)")
    subprocess.run([sys.executable, "-c", code, str(db)], check=False, env={**os.environ})
    assert {p.name for p in tmp_path.iterdir()} >= {"lab.sqlite-wal", "lab.sqlite-shm"}
    # ... the next clean run recovers them and closes without any
    result = run("--db", str(db), "-c", "show hostname")
    assert result.exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.sqlite"]


def test_a_schema_3_lab_with_old_password_hashes_still_opens(tmp_path: Path, monkeypatch) -> None:
    import hashlib

    db = tmp_path / "lab.sqlite"
    legacy = "scrypt$4096$" + b"user:admin".hex() + "$" + hashlib.scrypt(
        b"admin", salt=b"user:admin", n=4096, r=8, p=1, dklen=32).hex()
    _edit(db, "DROP TABLE config_object; ALTER TABLE cli_user DROP COLUMN lab_admin; "
              "UPDATE meta SET value='3' WHERE key='schema_version'; "
              f"UPDATE cli_user SET password_hash='{legacy}' WHERE name='admin';")
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "admin")
    result = run("--db", str(db), "--user", "admin", "-c", "show hostname")
    assert (result.exit_code, result.stdout) == (0, "\nHostname: NY_Appliance1\n")
    from solace_shell.lab import Lab

    lab = Lab.open(db, user="admin")
    try:
        assert lab.console_refusal() is None  # the upgrade gave `admin` the lab-administration right
    finally:
        lab.close()
    monkeypatch.setenv("SOLACE_SHELL_PASSWORD", "wrong")
    assert run("--db", str(db), "--user", "admin", "-c", "show hostname").exit_code == 2
