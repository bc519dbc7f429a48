"""Several `class serve` processes standing in for hosts, sharing nothing but a PostgreSQL database
(a throwaway cluster): a trainee's drill split across two hosts, a host killed -9 in the middle of
a class whose trainee logs in again on another and finds every acknowledged line, two hosts
racing commands of one lab serialized by the database's lock."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from solace_shell.classroom.class_file import load_class_file
from solace_shell.classroom.room import ClassRoom
from tests.support.postgres import Cluster, postgres_cluster
from tests.support.ssh_clients import TIMEOUT, Shell, connect, free_port, run_exec

from .class_server import F2

pytestmark = [pytest.mark.slow, pytest.mark.ssh]
ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
STANDBY = "enable\nconfigure\nmessage-vpn Trading_VPN\nreplication state standby"
ACTIVE = "enable\nconfigure\nmessage-vpn Trading_VPN\nreplication state active"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with postgres_cluster() as found:
        yield found


class Host:
    """One `class serve --db URL --port 0` process: its ports by router."""

    def __init__(self, class_path: Path, url: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "class", "serve", str(class_path),
                                      "--db", url, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=ENV)
        self.ports: dict[str, int] = {}
        assert self.proc.stdout is not None
        while "NJ_Appliance1" not in self.ports:
            line = self.proc.stdout.readline()
            assert line, self.proc.stderr.read() if self.proc.stderr else "no output"
            words = line.split()
            self.ports[words[0]] = int(words[3])

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=TIMEOUT)
        return err


@contextmanager
def hosts(class_path: Path, url: str, count: int) -> Iterator[list[Host]]:
    started: list[Host] = []
    try:
        for _ in range(count):  # one after the other: the first makes the shared host key
            started.append(Host(class_path, url))
        yield started
    finally:
        for host in started:
            err = host.stop()
            assert "Traceback" not in err, err


def test_a_drill_split_across_two_hosts(cluster: Cluster, class_path: Path) -> None:
    url = cluster.database()
    with hosts(class_path, url, 2) as (a, b):
        assert run_exec(a.ports["NY_Appliance1"], "alice", "alice-pw", STANDBY)[0] == 0
        shown = run_exec(b.ports["NY_Appliance1"], "alice", "alice-pw", "show message-vpn Trading_VPN replication")
        assert "Trading_VPN                      U S" in shown[1]  # host b finds host a's change
        assert run_exec(b.ports["NJ_Appliance1"], "alice", "alice-pw", ACTIVE)[0] == 0
        shown = run_exec(a.ports["NJ_Appliance1"], "alice", "alice-pw", "show message-vpn Trading_VPN replication")
        assert "Trading_VPN                      U A" in shown[1]
        # the trainer's console on either host reads the shared record
        roster = run_exec(a.ports["NY_Appliance1"], "trainer", "trainer-pw", "show alice")[1]
        assert "replication state active" in roster and "replication state standby" in roster
    done = subprocess.run([sys.executable, "-m", "solace_shell.cli", "class", "export", str(class_path), "alice",
                           "--db", url], capture_output=True, text=True, env=ENV, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "replication state" in line]
    assert lines == ["NY_Appliance1(configure/message-vpn)# replication state standby",
                     "NJ_Appliance1(configure/message-vpn)# replication state active"]


def test_a_host_killed_mid_class_loses_no_acknowledged_line(cluster: Cluster, class_path: Path) -> None:
    url = cluster.database()
    with hosts(class_path, url, 2) as (a, b):
        shell = Shell(connect(a.ports["NY_Appliance1"], "bob", "bob-pw"))
        acknowledged = 0
        try:
            shell.until("NY_Appliance1>")
            shell.send(F2)
            shell.until("lab>")
            stop = threading.Event()
            killer = threading.Timer(1.5, lambda: (a.proc.kill(), stop.set()))
            killer.start()
            try:
                while not stop.is_set() and acknowledged < 500:
                    out = shell.command("publish trader trading/orders/new count 1")
                    assert "published 1 " in out
                    acknowledged += 1
            except (EOFError, OSError, TimeoutError):
                pass  # the host died under this command
            killer.join()
        finally:
            shell.close()
        assert a.proc.wait(TIMEOUT) == -signal.SIGKILL and acknowledged > 0
        again = Shell(connect(b.ports["NY_Appliance1"], "bob", "bob-pw"))
        try:
            again.until("NY_Appliance1>")
            again.send(F2)
            again.until("lab>")
            audit = again.command("audit")
        finally:
            again.close()
        published = int(audit.split()[1])
        assert acknowledged <= published <= acknowledged + 1  # the one in flight may have committed
    room = ClassRoom(load_class_file(class_path), class_path.parent / "check", url)
    try:
        recorded = [r for r in room.record.lines("bob") if r.line.startswith("publish")]
        assert len(recorded) == published  # the record and the lab agree, line for line
    finally:
        room.close()


def test_two_hosts_racing_one_lab_are_serialized(cluster: Cluster, class_path: Path) -> None:
    url = cluster.database()
    per_member = 25
    with hosts(class_path, url, 2) as (a, b):
        def publish(host: Host, user: str) -> None:  # carol and dave share team blue's lab
            shell = Shell(connect(host.ports["NY_Appliance1"], user, f"{user}-pw"))
            try:
                shell.until("NY_Appliance1>")
                shell.send(F2)
                shell.until("lab>")
                for _ in range(per_member):
                    assert "published 1 " in shell.command("publish trader trading/orders/new count 1")
            finally:
                shell.close()
        threads = [threading.Thread(target=publish, args=(a, "carol")),
                   threading.Thread(target=publish, args=(b, "dave"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TIMEOUT * 4)
    rows = cluster.sql(url, "SELECT seq FROM lab_journal WHERE lab = 'blue' ORDER BY seq")
    seqs = [int(str(r[0])) for r in rows]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # one sequence, no row written twice
    room = ClassRoom(load_class_file(class_path), class_path.parent / "check", url)
    try:
        recorded = room.record.lines("blue")
        assert {r.member for r in recorded} == {"carol", "dave"}
        assert len(recorded) == 2 * per_member and all(r.ok and r.line.startswith("publish") for r in recorded)
        member = room.class_file.trainee("carol")
        assert member is not None
        audit = room.trainee_lab(member, "exec").execute("lab", "audit").text
        assert audit.startswith(f"published {2 * per_member} ")  # no command lost to the other host's
    finally:
        room.close()


HAPROXY = shutil.which("haproxy")


def test_behind_haproxy_a_killed_hosts_trainee_lands_on_the_other(cluster: Cluster, class_path: Path,
                                                                  tmp_path: Path) -> None:
    """docs/class.md's HAProxy configuration (TCP, leastconn, health checks), on loopback."""
    if HAPROXY is None:
        if os.environ.get("CI") == "true":
            pytest.fail("haproxy is not installed: apt-get install haproxy")
        pytest.skip("haproxy is not installed: apt-get install haproxy")
    url = cluster.database()
    with hosts(class_path, url, 2) as (a, b):
        front = free_port()
        config = tmp_path / "haproxy.cfg"
        config.write_text(f"""\
defaults
    mode tcp
    timeout connect 5s
    timeout client  2h
    timeout server  2h
frontend ny
    bind 127.0.0.1:{front}
    default_backend ny
backend ny
    balance leastconn
    server host1 127.0.0.1:{a.ports["NY_Appliance1"]} check inter 200ms fall 1 rise 1
    server host2 127.0.0.1:{b.ports["NY_Appliance1"]} check inter 200ms fall 1 rise 1
""")
        proxy = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + TIMEOUT
            while True:  # bounded: until the proxy listens
                try:
                    assert run_exec(front, "alice", "alice-pw", STANDBY)[0] == 0
                    break
                except (OSError, EOFError, paramiko.SSHException):
                    assert time.monotonic() < deadline and proxy.poll() is None
                    time.sleep(0.2)
            for _ in range(2):  # whichever host answers, the same lab
                shown = run_exec(front, "alice", "alice-pw", "show message-vpn Trading_VPN replication")[1]
                assert "Trading_VPN                      U S" in shown
            a.proc.kill()
            a.proc.wait(TIMEOUT)
            for _ in range(3):  # once the check has seen it down, every login lands on host b
                deadline = time.monotonic() + TIMEOUT
                while True:
                    try:
                        shown = run_exec(front, "alice", "alice-pw", "show message-vpn Trading_VPN replication")[1]
                        break
                    except (OSError, EOFError, paramiko.SSHException):
                        assert time.monotonic() < deadline
                        time.sleep(0.2)
                assert "Trading_VPN                      U S" in shown
        finally:
            proxy.terminate()
            proxy.wait(TIMEOUT)
