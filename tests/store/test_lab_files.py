"""Lab files: atomic creation that never follows a symlink, no -wal/-shm left after a clean close,
and one clear line for every bad --db case."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solace_shell.cli import main
from tests.support.router_engine import router_engine

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


def _edit_state(db: Path, change) -> None:
    """A lab whose state (its one snapshot row, a JSON document) `change` edits in place."""
    assert run("--db", str(db), "-c", "show hostname").exit_code == 0
    con = sqlite3.connect(db)
    (body,) = con.execute("SELECT body FROM journal WHERE kind='snapshot'").fetchone()
    doc = json.loads(body)
    change(doc)
    con.execute("UPDATE journal SET body=? WHERE kind='snapshot'", (json.dumps(doc),))
    con.commit()
    con.close()


def _no_routers(doc: dict) -> None:
    for kind, part in doc["records"].items():
        if kind != "users":
            part["rows"] = []


def _user_level(doc: dict) -> None:
    users = doc["records"]["users"]
    at = users["fields"].index("level")
    for row in users["rows"]:
        if row[0] == "monitor":
            row[at] = "root"


def _legacy_lab(db: Path, version: str = "5") -> None:
    """A lab file as schema 5 wrote it (the default lab after a publish, `advance 1500`, a queue and
    two configuration objects), made from its SQL text; older versions by that version's upgrade
    taken back."""
    con = sqlite3.connect(db)
    con.executescript((Path(__file__).resolve().parents[1] / "data" / "lab_schema5.sql").read_text(encoding="utf-8"))
    if version in ("3", "4"):
        con.executescript("DELETE FROM subscription WHERE queue_id IN "
                          "(SELECT id FROM queue WHERE name LIKE '#telemetry-%'); "
                          "DELETE FROM queue WHERE name LIKE '#telemetry-%'; DROP TABLE config_object; "
                          f"UPDATE meta SET value='{version}' WHERE key='schema_version';")
    if version == "3":
        con.executescript("ALTER TABLE cli_user DROP COLUMN lab_admin;")
    con.commit()
    con.close()


@pytest.mark.parametrize(("make", "expected"), [
    (lambda db: db.mkdir(), "is a directory, not a lab file"),
    (lambda db: None, "directory {parent} does not exist"),
    (lambda db: db.symlink_to(db.parent / "elsewhere"), "cannot use: No such file or directory"),
    (lambda db: os.mkfifo(db), "is not a regular file"),
    (lambda db: _edit_state(db, _no_routers), "the lab has no routers"),
    (lambda db: _edit_state(db, _user_level), "CLI user 'monitor' has an unknown access level 'root'"),
    (lambda db: _edit(db, "UPDATE meta SET value='2' WHERE key='schema_version';"),
     "lab schema version 2, this program needs 6 and cannot upgrade it: build a new lab (another --db file, "
     "or move this one away)"),
    (lambda db: _edit(db, "UPDATE meta SET value='7' WHERE key='schema_version';"),
     "lab schema version 7 is newer than this program's (6): open it with a newer solace-shell, or build a new "
     "lab (another --db file)"),
    (lambda db: _edit(db, "UPDATE journal SET body='{\"format\": 1' WHERE kind='snapshot';"),
     "lab file is damaged (journal row 1: not valid JSON (Expecting ',' delimiter: line 1 column 13 (char 12)))"),
    (lambda db: _edit_state(db, lambda doc: doc["records"]["queues"]["rows"][0].__setitem__(1, 7)),
     "lab file is damaged (journal row 1: queues row 0: name must be a string, not 7)"),
    (lambda db: _edit_state(db, lambda doc: doc["records"]["vpns"]["rows"][0].__setitem__(0, 99)),
     "lab file is damaged (journal row 1: vpns row 0: router_id 99 refers to no record of 'routers')"),
    (lambda db: _edit(db, "INSERT INTO journal VALUES (2, 'calls', '[[\"close\", [], {}]]');"),
     "lab file is damaged (journal row 2: 'close' is not a recorded Engine call)"),
    (lambda db: _edit(db, "INSERT INTO journal VALUES (2, 'calls', '[[\"advance\", [\"soon\"], {}]]');"),
     "lab file is damaged (journal row 2: TypeError replaying it)"),
    (lambda db: _edit(db, "DELETE FROM journal;"),
     "lab file is damaged (its journal does not start with a snapshot)"),
    (lambda db: _edit(db, "DROP TABLE journal; CREATE TABLE journal (x);"),
     "lab file is damaged (no such column: seq)"),
    (lambda db: _edit(db, "DROP TABLE journal; CREATE TABLE journal (seq TEXT, kind, body); "
                          "INSERT INTO journal VALUES ('x', 'snapshot', NULL);"),
     "lab file is damaged (a journal row without a number)"),
    (lambda db: (_legacy_lab(db), _edit_legacy(db, "UPDATE queue SET msg_count='many';")),
     "lab schema version 5 cannot be read (queues row 0: msg_count must be an integer, not \"many\"): build a new "
     "lab (another --db file, or move this one away)"),
], ids=["directory", "missing-directory", "dangling-symlink", "fifo", "no-routers", "bad-level", "old-schema",
        "newer-schema", "bad-json", "bad-field", "bad-reference", "not-a-call", "bad-call", "no-snapshot",
        "foreign-journal", "journal-without-numbers", "damaged-schema-5"])
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


def _edit_legacy(db: Path, sql: str) -> None:
    con = sqlite3.connect(db)
    con.executescript(sql)
    con.close()


def test_a_schema_3_lab_with_old_password_hashes_still_opens(tmp_path: Path, monkeypatch) -> None:
    import hashlib

    db = tmp_path / "lab.sqlite"
    legacy = "scrypt$4096$" + b"user:admin".hex() + "$" + hashlib.scrypt(
        b"admin", salt=b"user:admin", n=4096, r=8, p=1, dklen=32).hex()
    _legacy_lab(db, "3")
    _edit_legacy(db, f"UPDATE cli_user SET password_hash='{legacy}' WHERE name='admin';")
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


@pytest.mark.parametrize("version", ["5", "4", "3"])
def test_an_older_lab_is_rewritten_and_shows_what_it_held(tmp_path: Path, version: str) -> None:
    """A lab of schema 3-5 opens as it was (clock, messages, queues, configuration objects) and is
    rewritten once as a schema 6 journal; its old tables are gone."""
    from solace_shell.lab import Lab

    db = tmp_path / "old.sqlite"
    _legacy_lab(db, version)
    fresh = Lab.fresh()
    for target, line in [("lab", "publish trader trading/orders/new count 3"), ("lab", "advance 1500ms")]:
        assert fresh.execute(target, line).ok, line
    with fresh.store.transaction() as e:
        router_engine(e).create_queue("NY_Appliance1", "Trading_VPN", "audit_q")
        if version == "5":
            router_engine(e).create_object("NY_Appliance1", "Trading_VPN", "client-profile", ("p1",))
            router_engine(e).create_object("NY_Appliance1", "Trading_VPN", "telemetry-profile", ("tp",))
    lab = Lab.open(db)
    try:
        for line in ("show queue * detail", "show message-vpn * replication", "show message-spool",
                     "show client-profile *", "show clock"):
            assert lab.execute("NY_Appliance1", line).text == fresh.execute("NY_Appliance1", line).text, line
        assert lab.execute("lab", "status").text == fresh.execute("lab", "status").text
    finally:
        lab.close()
    con = sqlite3.connect(db)
    try:
        tables = sorted(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'"))
        assert tables == ["journal", "meta"]
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("6",)
    finally:
        con.close()


def test_damaged_journals_are_one_line_each(tmp_path: Path) -> None:
    """A lab file may come from anywhere: random damage to its rows (values swapped for others of
    any JSON type, characters changed, rows cut short) opens as the lab or fails with one
    LabFileError line, never another exception."""
    import random

    from state_store.errors import LabFileError
    from state_store.lab_store import LabStore

    good = tmp_path / "good.sqlite"
    store = LabStore.open(good)
    with store.transaction() as e:
        router_engine(e).publish("trader", "trading/orders/new", count=2)
        e.advance(1500)
    store.close()
    con = sqlite3.connect(good)
    rows = con.execute("SELECT seq, kind, body FROM journal ORDER BY seq").fetchall()
    con.close()
    rng = random.Random(20261123)
    junk = [None, True, 0, -1, 2**70, 1.5, "", "x" * 300, [], {}, [1, 2], {"t": [1]}, {"h": 5}, {"d": [[[], 1]]}]

    def damage(value, depth=0):
        if isinstance(value, list) and value and depth < 6 and rng.random() < 0.8:
            at = rng.randrange(len(value))
            value[at] = damage(value[at], depth + 1)
            return value
        if isinstance(value, dict) and value and depth < 6 and rng.random() < 0.8:
            key = rng.choice(sorted(value))
            value[key] = damage(value[key], depth + 1)
            return value
        return rng.choice(junk)

    outcomes = {"opened": 0, "refused": 0}
    for case in range(60):
        seq, kind, body = rows[case % len(rows)]
        if case % 3 == 2:
            cut = rng.randrange(len(body))
            bad = body[:cut] + rng.choice(["", "\x00", "]", "}", '"', "9"]) + body[cut + 1:]
        else:
            bad = json.dumps(damage(json.loads(body)))
        path = tmp_path / f"bad{case}.sqlite"
        path.write_bytes(good.read_bytes())
        con = sqlite3.connect(path)
        con.execute("UPDATE journal SET body=? WHERE seq=?", (bad, seq))
        con.commit()
        con.close()
        try:
            LabStore.open(path).close()
            outcomes["opened"] += 1
        except LabFileError as exc:
            assert "\n" not in exc.problem and exc.problem, exc.problem
            outcomes["refused"] += 1
    assert outcomes["refused"] > 30, outcomes


def test_a_lab_file_damaged_while_open_is_one_line_per_command(tmp_path: Path) -> None:
    """Another process appends a row this shell cannot replay: each command says so in one line and
    changes nothing; reads and writes alike (both catch up first)."""
    from solace_shell.lab import Lab

    db = tmp_path / "lab.sqlite"
    lab = Lab.open(db)
    try:
        assert lab.execute("lab", "advance 1s").ok
        con = sqlite3.connect(db)
        con.execute("INSERT INTO journal (seq, kind, body) VALUES ((SELECT max(seq) FROM journal) + 1, 'calls', ?)",
                    ('[["advance", ["soon"], {}]]',))
        con.commit()
        con.close()
        for target, line in [("lab", "advance 1s"), ("NY_Appliance1", "show message-vpn * replication")]:
            out = lab.execute(target, line)
            assert (out.ok, out.error_kind) == (False, "lab-file")
            assert out.text == (f"ERROR: The lab file {db} cannot be used: lab file is damaged (journal row 3: "
                                "TypeError replaying it); nothing was changed.")
        assert lab.store.state.now_ms == 1000
    finally:
        lab.close()
