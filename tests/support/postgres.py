"""A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory, `pg_ctl start`
on a free loopback port with its unix socket in that directory, stopped and removed at the end.

Why this way: the class's shared database is tested against the real server, not a fake, and
nothing of the machine's own PostgreSQL (if any) is used or touched. `initdb` refuses to run as
root, so under root the cluster runs as the `postgres` user (Debian's package makes it), else as
`nobody`, through `runuser`. Without the server binaries the tests skip with the reason, except
under CI (`CI=true`), where a missing server is a failure (.ci/run installs it).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count
from pathlib import Path

import pytest

from tests.support.ssh_clients import free_port

_names = count(1)


def server_bin() -> Path | None:
    """The directory of the newest installed PostgreSQL server binaries (Debian's layout first)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def require_server() -> Path:
    """The server binaries, or a skip (a failure under CI) saying what is missing."""
    where = server_bin()
    problem = None
    if where is None:
        problem = "the PostgreSQL server (initdb, pg_ctl) is not installed: apt-get install postgresql"
    else:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            problem = "psycopg is not installed: pip install -e '.[test]'"
    if problem is None:
        assert where is not None
        return where
    if os.environ.get("CI") == "true":
        pytest.fail(problem)
    pytest.skip(problem)


class Cluster:
    """A running throwaway cluster; `database()` makes a fresh database and returns its URL."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        # as root the cluster runs as another user, who must reach its directory: /tmp itself, not a
        # TMPDIR below root's own private directories (pytest's tmp_path is one)
        self.root = Path(tempfile.mkdtemp(prefix="solace-pg-", dir="/tmp" if os.geteuid() == 0 else None))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            user = "postgres"
            try:
                pwd.getpwnam(user)
            except KeyError:
                user = "nobody"
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, user)
            self.as_user = ["runuser", "-u", user, "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c max_connections=200")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "log"), "-w", "-t", "60",
                  "start")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True,
                              timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def database(self) -> str:
        """A new empty database's URL."""
        import psycopg

        name = f"class_{os.getpid()}_{next(_names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def database_with_password(self, user: str, password: str) -> str:
        """A new empty database owned by a new role `user` that logs in with `password` only
        (SCRAM over TCP: the cluster's other logins are trusted); its URL, the password in it."""
        import psycopg
        from psycopg import sql

        name = f"class_{os.getpid()}_{next(_names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(user),
                                                                            sql.Literal(password)))
            conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(name), sql.Identifier(user)))
        hba = self.data / "pg_hba.conf"
        hba.write_text(f"host all {user} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        self._run("pg_ctl", "-D", str(self.data), "reload")
        deadline = time.monotonic() + 30
        while True:  # the postmaster rereads pg_hba.conf when its reload signal arrives
            try:
                psycopg.connect(f"host=127.0.0.1 port={self.port} user={user} password=wrong dbname={name}").close()
            except psycopg.OperationalError:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("pg_hba.conf was not reloaded")
            time.sleep(0.05)
        return f"postgresql+psycopg://{user}:{password}@127.0.0.1:{self.port}/{name}"

    def sql(self, url: str, statement: str) -> list[tuple[object, ...]]:
        """Run one statement on the database of `url` (autocommit); its rows."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname={name}",
                             autocommit=True) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop")
        finally:
            for _ in range(3):
                try:
                    shutil.rmtree(self.root)
                    break
                except OSError:
                    time.sleep(0.5)


@contextmanager
def postgres_cluster() -> Iterator[Cluster]:
    cluster = Cluster(require_server())
    try:
        yield cluster
    finally:
        cluster.stop()
