"""The class over a shared PostgreSQL database (a throwaway cluster the tests start): the same
drill, record, grades and export as over SQLite files; bad URLs, another schema version and a
connection lost in the middle of a command each one line, nothing applied twice."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from solace_shell.classroom.class_file import ClassFile
from solace_shell.classroom.room import ClassRoom
from state_store import lab_db
from state_store.errors import LabFileError
from tests.support.postgres import Cluster, postgres_cluster
from tests.support.ssh_clients import TIMEOUT

from .conftest import drill_lines

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with postgres_cluster() as found:
        yield found


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solace_shell.cli", *args], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=TIMEOUT, check=False)


def run_drill(room: ClassRoom, class_file: ClassFile) -> list[str]:
    member = class_file.trainee("alice")
    assert member is not None
    lab = room.trainee_lab(member, "shell")
    return [lab.execute(target, line).text for target, line in drill_lines()]


def without_times(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "T", text)


def test_the_drill_records_and_grades_alike_on_postgresql_and_sqlite(cluster: Cluster, class_file: ClassFile,
                                                                      tmp_path: Path) -> None:
    url = cluster.database()
    on_pg = ClassRoom(class_file, tmp_path / "pg", url)
    on_files = ClassRoom(class_file, tmp_path / "files")
    try:
        assert run_drill(on_pg, class_file) == run_drill(on_files, class_file)
        assert not (tmp_path / "pg" / "labs").exists()  # the labs are the database's
        assert on_pg.grade("alice").score == on_files.grade("alice").score == 1.0
        assert without_times(on_pg.transcript("alice")) == without_times(on_files.transcript("alice"))
        assert on_pg.opened("alice") and not on_pg.opened("bob")
    finally:
        on_pg.close()
        on_files.close()
    # another process (a second host) finds the lab as it was left, and the record
    again = ClassRoom(class_file, tmp_path / "pg2", url)
    try:
        member = class_file.trainee("alice")
        assert member is not None
        lab = again.trainee_lab(member, "exec")
        assert "published 10 delivered 10" in lab.execute("lab", "audit").text
        assert len(again.record.lines("alice")) == len(drill_lines()) + 1
    finally:
        again.close()
    # the record is append-only there too
    with pytest.raises(Exception, match="append-only"):
        cluster.sql(url, "DELETE FROM lines")
    done = cli("class", "export", str(class_file.path), "alice", "--db", url)
    assert done.returncode == 0, done.stderr
    assert "NJ_Appliance1(configure/message-vpn)# replication state active" in done.stdout
    done = cli("class", "grades", str(class_file.path), "--db", url, "--json")
    assert done.returncode == 0 and '"score": 1.0' in done.stdout


def test_bad_database_urls_are_one_line(cluster: Cluster, class_file: ClassFile, tmp_path: Path) -> None:
    dead = f"postgresql+psycopg://postgres:s3cret@127.0.0.1:{cluster.port + 1 if cluster.port < 65535 else 1}/x"
    for url, expected in ((dead, "cannot connect: "),
                          (cluster.admin_url.rsplit("/", 1)[0] + "/no_such_db", 'database "no_such_db" does not exist'),
                          ("mysql://u@h/db", "database kind 'mysql' is not supported here"),
                          ("postgresql+psycopg://u@h:port/db", "not a database URL")):
        for command in (["grades", "--json"], ["export", "alice"]):
            done = cli("class", *command[:1], str(class_file.path), *command[1:], "--db", url)
            assert done.returncode == 2, done.stderr
            assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr
            assert done.stderr.startswith("solace-shell: class database ") and expected in done.stderr
            assert "s3cret" not in done.stderr
    done = cli("class", "serve", str(class_file.path), "--db", dead, "--port", "0")
    errors = [line for line in done.stderr.splitlines() if line.startswith("solace-shell:")]
    assert done.returncode == 2 and len(errors) == 1 and "cannot connect" in errors[0]
    assert "s3cret" not in done.stderr and "Traceback" not in done.stderr


def test_a_database_of_another_schema_version_is_refused(cluster: Cluster, class_file: ClassFile,
                                                         tmp_path: Path) -> None:
    url = cluster.database()
    ClassRoom(class_file, tmp_path, url).close()
    cluster.sql(url, "UPDATE schema_versions SET value = '99' WHERE key = 'lab_journal'")
    with pytest.raises(LabFileError, match="lab_journal schema version 99; this program needs 1"):
        ClassRoom(class_file, tmp_path, url)
    done = cli("class", "grades", str(class_file.path), "--db", url, "--json")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "schema version 99" in done.stderr


def test_a_record_an_older_version_made_gets_lab_seq(cluster: Cluster, class_file: ClassFile,
                                                      tmp_path: Path) -> None:
    url = cluster.database()
    ClassRoom(class_file, tmp_path, url).close()
    cluster.sql(url, "ALTER TABLE lines DROP COLUMN lab_seq")  # as the first version made it
    room = ClassRoom(class_file, tmp_path, url)
    try:
        member = class_file.trainee("alice")
        assert member is not None
        assert room.trainee_lab(member, "shell").execute("lab", "advance 1s").ok
        assert [line.lab_seq for line in room.record.lines("alice")] == [2]
    finally:
        room.close()


def test_a_connection_lost_mid_command_applies_nothing_and_the_next_command_works(
        cluster: Cluster, class_file: ClassFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import text

    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, url)
    try:
        member = class_file.trainee("bob")
        assert member is not None
        lab = room.trainee_lab(member, "shell")
        before = lab.execute("lab", "audit").text
        real_append = lab_db.DbJournal.append

        def lost(self: lab_db.DbJournal, expected_last: int, kind: str, body: str) -> int:
            assert self._conn is not None
            self._conn.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))  # the server drops us
            return real_append(self, expected_last, kind, body)

        monkeypatch.setattr(lab_db.DbJournal, "append", lost)
        out = lab.execute("lab", "publish trader trading/orders/new count 5")
        assert not out.ok and len(out.text.splitlines()) == 1
        assert "connection to the database was lost" in out.text and "nothing was changed" in out.text
        monkeypatch.setattr(lab_db.DbJournal, "append", real_append)
        assert lab.execute("lab", "audit").text == before  # not applied
        assert lab.execute("lab", "publish trader trading/orders/new count 5").ok  # the next one reconnects
        assert "published 5 " in lab.execute("lab", "audit").text  # applied once
        rows = cluster.sql(url, "SELECT count(*) FROM lab_journal WHERE lab = 'bob' AND kind = 'calls'")
        assert rows[0][0] == 1
    finally:
        room.close()


def test_a_message_a_trainer_writes_on_another_host_is_shown_once(cluster: Cluster, class_file: ClassFile,
                                                                   tmp_path: Path) -> None:
    url = cluster.database()
    room = ClassRoom(class_file, tmp_path / "a", url)
    other = ClassRoom(class_file, tmp_path / "b", url)
    try:
        member = class_file.trainee("alice")
        assert member is not None
        lab = room.trainee_lab(member, "shell")
        for _ in range(3):
            assert "Message" not in lab.execute("lab", "audit").text
        other.record.add_note(lab="alice", member="alice", by="trainer", kind="message", text="look at NJ")
        assert lab.execute("lab", "audit").text.endswith("*** Message from trainer: look at NJ")
        assert "Message" not in lab.execute("lab", "audit").text
    finally:
        room.close()
        other.close()


def test_backends_killed_between_commands_cost_one_answer(cluster: Cluster, class_file: ClassFile,
                                                          tmp_path: Path) -> None:
    """The server drops every connection of the host's pool while it is idle (a restart): the next
    command says the connection was lost and changed nothing; the one after works (the whole pool
    was let go, not only the connection that met the failure)."""
    url = cluster.database()
    room = ClassRoom(class_file, tmp_path, url)
    try:
        member = class_file.trainee("bob")
        assert member is not None
        lab = room.trainee_lab(member, "shell")
        assert lab.execute("lab", "audit").ok
        assert room.database is not None
        with room.database.connect() as first, room.database.connect() as second:  # two idle in the pool
            first.exec_driver_sql("SELECT 1")
            second.exec_driver_sql("SELECT 1")
        killed = cluster.sql(url, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                  "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert int(str(killed[0][0])) >= 2
        others = ("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                  "AND pid <> pg_backend_pid()")
        deadline = time.monotonic() + TIMEOUT
        while int(str(cluster.sql(url, others)[0][0])) and time.monotonic() < deadline:
            time.sleep(0.05)  # (a backend ends a moment after it is told to)
        out = lab.execute("lab", "publish trader trading/orders/new count 5")
        assert not out.ok and len(out.text.splitlines()) == 1
        assert "connection to the database was lost" in out.text and "nothing was changed" in out.text
        assert lab.execute("lab", "publish trader trading/orders/new count 5").ok
        assert "published 5 " in lab.execute("lab", "audit").text
    finally:
        room.close()
