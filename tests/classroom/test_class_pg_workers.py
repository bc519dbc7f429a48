"""`class serve --workers 2 --db URL` over a real PostgreSQL role that logs in with a password
only: the password is on no worker's command line nor in its environment (it reaches each worker
through a pipe), never in the server's output, and both workers serve trainees from the shared
database (a change made through one is seen through the other)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from tests.support.postgres import Cluster, postgres_cluster
from tests.support.ssh_clients import TIMEOUT, connect

pytestmark = [pytest.mark.slow, pytest.mark.ssh]
ROOT = Path(__file__).resolve().parents[2]
STANDBY = "enable\nconfigure\nmessage-vpn Trading_VPN\nreplication state standby"
SHOW = "show message-vpn Trading_VPN replication"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with postgres_cluster() as found:
        yield found


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return sorted(found)


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def serving_worker(client: paramiko.SSHClient, workers: list[int]) -> int:
    """The worker process holding the server end of `client`'s TCP connection (/proc/net/tcp:
    the connection whose remote port is the client's local port, by socket inode)."""
    local_port = client.get_transport().sock.getsockname()[1]
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if int(fields[2].rsplit(":", 1)[1], 16) == local_port:
                    inodes.add(fields[9])
        for pid in workers:
            if inodes & socket_inodes(pid):
                return pid
        time.sleep(0.05)
    raise AssertionError(f"no worker holds the connection from port {local_port}")


def leaks(path: str, password: str) -> bool:
    """Whether the /proc file holds the password (a bool, so a failure does not print it)."""
    return password in Path(path).read_bytes().decode()


@pytest.mark.parametrize("given", ["argv", "environment"])
def test_two_workers_over_a_password_database_keep_the_password_off_ps(cluster: Cluster, class_path: Path,
                                                                       tmp_path: Path, given: str) -> None:
    password = f"Pw{secrets.token_hex(12)}"
    url = cluster.database_with_password(f"class_host_{given}", password)
    err_path = tmp_path / "serve.err"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "solace_shell.cli", "class", "serve", str(class_path), "--workers", "2",
               "--port", "0"]
    if given == "argv":
        command += ["--db", url]
    else:  # SOLACE_SHELL_CLASS_DB: then not on the trainer's own command line either
        env["SOLACE_SHELL_CLASS_DB"] = url
    with open(err_path, "w") as err:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
    clients: list[paramiko.SSHClient] = []
    try:
        assert proc.stdout is not None
        ports: dict[str, int] = {}
        while "NJ_Appliance1" not in ports:
            line = proc.stdout.readline()
            assert line, err_path.read_text()
            ports[line.split()[0]] = int(line.split()[3])
        workers = children(proc.pid)
        assert len(workers) == 2
        for pid in workers:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
            assert "--worker" in cmdline and "--db-fd" in cmdline
            on_argv = any(password in word or "postgresql" in word for word in cmdline)
            assert not on_argv, "the database URL is on a worker's command line"
            assert not leaks(f"/proc/{pid}/environ", password), "the password is in a worker's environment"
        if given == "environment":
            assert not leaks(f"/proc/{proc.pid}/cmdline", password)
        # a connection on each worker (the kernel spreads new connections over them)
        on: dict[int, paramiko.SSHClient] = {}
        for _ in range(40):
            client = connect(ports["NY_Appliance1"], "alice", "alice-pw")
            clients.append(client)
            on.setdefault(serving_worker(client, workers), client)
            if len(on) == 2:
                break
        assert len(on) == 2, "the kernel gave every connection to one worker"
        first, second = (on[pid] for pid in workers)
        _, stdout, _ = first.exec_command(STANDBY, timeout=TIMEOUT)
        assert stdout.channel.recv_exit_status() == 0, stdout.read().decode()
        _, stdout, _ = second.exec_command(SHOW, timeout=TIMEOUT)
        shown = stdout.read().decode()
        assert stdout.channel.recv_exit_status() == 0
        assert "Trading_VPN                      U S" in shown  # the other worker's change, from the database
        rows = cluster.sql(url, "SELECT count(*) FROM lines WHERE lab = 'alice'")
        assert rows[0][0] == len(STANDBY.splitlines()) + 1
    finally:
        for client in clients:
            client.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(TIMEOUT)
    log = err_path.read_text()
    assert "Traceback" not in log and "Error" not in log, log.replace(password, "***")
    assert not leaks(str(err_path), password), "the password is in the server's log"
