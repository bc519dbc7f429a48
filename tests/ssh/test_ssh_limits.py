"""`solace-shell serve`'s limits per source, per connection and per user: one client cannot deny
the others. Each attack runs against a real server on loopback, from its own source address
(127.0.0.2; the victim logs in from 127.0.0.3), while another user logs in and runs a command: that
user's latency during the attack is compared with the same on the quiet server, in the same test,
with a loose bound (these are no timing tests: the attacks used to make it time out or fail).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import paramiko  # type: ignore[import-untyped]
import pytest

from solace_shell.ssh.fairlock import FairRLock
from solace_shell.ssh.limits import Penalty, PenaltyBox, Slots, SshLimits, Startups
from state_store.lab_store import LabStore
from state_store.solace.scenario import DEFAULT_SCENARIO
from tests.support.ssh_clients import TIMEOUT, serving

NY = "NY_Appliance1"
LOGGER = "solace_shell.ssh"
SSH = shutil.which("ssh")
ATTACKER = "127.0.0.2"
VICTIM = "127.0.0.3"
MONITOR = "  - {name: monitor, scope: global, level: read-only,\n"  # the default lab's read-only user


def _lab(tmp_path: Path, monitor_key: str | None = None, **settings: int) -> Path:
    """The default scenario with these `settings: ssh_...`, and `monitor_key` as monitor's key."""
    text = DEFAULT_SCENARIO.read_text()
    extra = "".join(f"  ssh_{key}: {value}\n" for key, value in settings.items())
    text = text.replace("settings:\n", "settings:\n" + extra, 1)
    if monitor_key is not None:
        assert MONITOR in text
        text = text.replace(MONITOR, MONITOR.replace(",\n", f", ssh_keys: ['{monitor_key}'],\n"))
    scenario = tmp_path / "limits.yaml"
    scenario.write_text(text)
    lab_path = tmp_path / "limits.lab"
    LabStore.open(lab_path, scenario).close()
    return lab_path


def _client(port: int, user: str, source: str, password: str | None = None,
            key_file: Path | None = None) -> paramiko.SSHClient:
    """A paramiko client logged in from `source` (a loopback address of its own)."""
    sock = socket.create_connection(("127.0.0.1", port), TIMEOUT, source_address=(source, 0))
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect("127.0.0.1", port=port, username=user, password=password, sock=sock,
                   key_filename=str(key_file) if key_file else None, look_for_keys=False, allow_agent=False,
                   timeout=TIMEOUT, banner_timeout=TIMEOUT, auth_timeout=TIMEOUT)
    return client


def _exec(client: paramiko.SSHClient, command: str) -> tuple[int, str]:
    _, stdout, _ = client.exec_command(command, timeout=TIMEOUT)
    text = stdout.read().decode()
    return stdout.channel.recv_exit_status(), text


def _login_and_command(port: int, source: str = VICTIM) -> float:
    """Seconds for the trainer to log in (from `source`) and run one command."""
    start = time.perf_counter()
    client = _client(port, "admin", source, password="admin")
    try:
        assert _exec(client, "show hostname") == (0, "\nHostname: NY_Appliance1\n")
    finally:
        client.close()
    return time.perf_counter() - start


def _typical(port: int, times: int = 3) -> float:
    return statistics.median(_login_and_command(port) for _ in range(times))


def _bounded(during: float, quiet: float) -> bool:
    """Loose: an attack may slow the trainer down on a busy machine, never by tens of seconds."""
    return during < max(20 * quiet, 10.0)


def _lines(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


# ------------------------------------------------------------------ the limits alone
def test_connections_not_logged_in_are_capped_per_source_and_in_all() -> None:
    limits = SshLimits(max_startups=5, max_startups_per_source=3)
    startups = Startups()
    assert [startups.admit("a", limits) for _ in range(4)][3] == "3 connections not yet logged in from this address"
    assert startups.admit("b", limits) is None and startups.admit("b", limits) is None
    assert startups.admit("c", limits) == "5 connections not yet logged in"
    startups.release("a")
    assert startups.from_source("a") == 2 and startups.admit("c", limits) is None


def test_penalties_add_up_are_enforced_past_the_minimum_and_run_out() -> None:
    now = [0.0]
    box = PenaltyBox(clock=lambda: now[0], size=3)
    limits = SshLimits(penalty_noauth_seconds=1, penalty_authfail_seconds=5, penalty_grace_seconds=10,
                       penalty_min_seconds=15, penalty_max_seconds=20)
    assert not box.penalise("a", Penalty.GRACE, limits)
    assert not box.connections_refused("a")
    assert box.penalise("a", Penalty.GRACE, limits)  # 20 s owed: enforced
    assert box.connections_refused("a") and not box.passwords_refused("a")
    for _ in range(10):
        box.penalise("a", Penalty.GRACE, limits)
    now[0] = 19.9
    assert box.connections_refused("a")  # capped at 20 s from the last penalty
    now[0] = 40.0
    assert not box.connections_refused("a") and len(box) == 0
    for _ in range(3):
        box.penalise("b", Penalty.AUTHFAIL, limits)
    assert box.passwords_refused("b") and not box.connections_refused("b")
    for source in ("c", "d", "e"):
        box.penalise(source, Penalty.NOAUTH, limits)
    assert len(box) == 3 and not box.passwords_refused("b")  # bounded: the least recent went
    assert not box.penalise("f", Penalty.GRACE, SshLimits(penalty_max_seconds=0))  # 0: no penalties


def test_slots_are_counted_per_key() -> None:
    slots = Slots()
    assert slots.take("u", 2) and slots.take("u", 2) and not slots.take("u", 2) and slots.take("v", 2)
    slots.give_back("u")
    assert slots.held("u") == 1 and slots.take("u", 2)


def test_the_store_lock_is_handed_over_in_arrival_order_and_is_reentrant() -> None:
    lock = FairRLock()
    order: list[int] = []
    lock.acquire()
    assert lock.acquire(blocking=False)  # reentrant
    lock.release()

    def waiter(number: int) -> None:
        with lock:
            order.append(number)

    threads = []
    for number in range(5):
        threads.append(threading.Thread(target=waiter, args=(number,)))
        threads[-1].start()
        deadline = time.monotonic() + TIMEOUT
        while len(lock._waiters) <= number and time.monotonic() < deadline:  # queued behind the others
            time.sleep(0.001)
    gave_up: list[bool] = []
    impatient = threading.Thread(target=lambda: gave_up.append(lock.acquire(timeout=0.05)))
    impatient.start()
    impatient.join(TIMEOUT)
    assert gave_up == [False] and len(lock._waiters) == 5  # it left the queue
    lock.release()
    for thread in threads:
        thread.join(TIMEOUT)
    assert order == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError):
        lock.release()
    assert lock.acquire(blocking=False)


def test_the_settings_give_the_limits(tmp_path: Path) -> None:
    lab_path = _lab(tmp_path, max_startups_per_source=7, max_sessions=3, max_user_execs=2, penalty_max_seconds=0)
    with serving(lab_path) as server:
        limits = server.server.limits
        assert (limits.max_startups_per_source, limits.max_sessions, limits.max_user_execs,
                limits.penalty_max_seconds, limits.max_startups) == (7, 3, 2, 0, 128)


# ------------------------------------------------------------------ the attacks
@contextlib.contextmanager
def _pre_auth_flood(port: int, count: int) -> Iterator[list[socket.socket]]:
    """`count` connections from the attacker that send their version line and nothing more."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), TIMEOUT, source_address=(ATTACKER, 0))
            with contextlib.suppress(OSError):
                sock.sendall(b"SSH-2.0-flood\r\n")
            held.append(sock)
        yield held
    finally:
        for sock in held:
            sock.close()


def test_a_pre_auth_flood_from_one_address_leaves_room_for_the_others(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """128 connections from one address that send their version line and nothing more: 64 are
    served, the rest closed at once, and for those the address is penalised: its next connection
    is held unanswered, then closed. The trainer logs in from another address meanwhile; the
    flood's connections that were served are closed at the end of the login grace time."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    with serving(_lab(tmp_path, login_grace_seconds=3)) as server:
        server.server.hold_seconds = 1.0
        port = server.port(NY)
        quiet = _typical(port)
        with _pre_auth_flood(port, 128):
            deadline = time.monotonic() + TIMEOUT
            while not _lines(caplog, "from this address") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.server.startups.from_source(ATTACKER) == 64
            during = _login_and_command(port)
            assert _bounded(during, quiet), (during, quiet)
            while not _lines(caplog, "source penalised") and time.monotonic() < deadline:
                time.sleep(0.05)
            with pytest.raises((paramiko.SSHException, EOFError, OSError)):  # held, then closed
                _client(port, "admin", ATTACKER, password="admin").close()
            while server.server.startups.from_source(ATTACKER) and time.monotonic() < deadline:
                time.sleep(0.05)  # the grace time over: the served ones closed
            assert _login_and_command(port) < max(20 * quiet, 10.0)
    assert _lines(caplog, "64 connections not yet logged in from this address")
    assert _lines(caplog, "source penalised source=127.0.0.2: noauth")
    assert _lines(caplog, "login time over, disconnected router=NY_Appliance1 peer=127.0.0.2:")


def _guess(port: int, user: str, passwords: list[str], source: str) -> None:
    """Offer the passwords one after another (asyncssh: several per connection)."""
    class Guesser(asyncssh.SSHClient):
        asked = 0

        def password_auth_requested(self) -> str | None:
            self.asked += 1
            return passwords[self.asked - 1] if self.asked <= len(passwords) else None

    async def attempt() -> None:
        with contextlib.suppress(asyncssh.Error, OSError):
            conn = await asyncssh.connect("127.0.0.1", port, local_addr=(source, 0), username=user,
                                          known_hosts=None, client_keys=None, agent_path=None,
                                          client_factory=Guesser, kbdint_auth=False,
                                          preferred_auth="password", login_timeout=TIMEOUT)
            conn.close()

    asyncio.run(attempt())


def test_guessing_at_admin_locks_out_neither_admin_nor_the_guessers_neighbours_keys(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """20 wrong guesses at admin from one source: admin logs in from another as fast as on a quiet
    server; the guesser's own address is refused admin's right password, and penalised for
    passwords, but a key login from that address goes on."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_monitor"
    key.write_private_key(key_file)
    key_file.chmod(0o600)
    lab_path = _lab(tmp_path, monitor_key=key.export_public_key().decode().strip(), auth_delay_ms=10,
                    auth_delay_max_ms=100)
    with serving(lab_path) as server:
        port = server.port(NY)
        quiet = _typical(port)
        guesses = [f"guess{i}" for i in range(20)]
        stop = threading.Event()

        def guesser() -> None:
            for start in range(0, 20, 5):
                _guess(port, "admin", guesses[start:start + 5], ATTACKER)
            while not stop.is_set():  # and on, as a guesser does
                _guess(port, "admin", guesses[:5], ATTACKER)

        attack = threading.Thread(target=guesser)
        attack.start()
        try:
            deadline = time.monotonic() + TIMEOUT
            while len(_lines(caplog, "login refused user=admin")) < 20 and time.monotonic() < deadline:
                time.sleep(0.05)
            during = statistics.median(_login_and_command(port) for _ in range(3))
            assert _bounded(during, quiet), (during, quiet)
            with pytest.raises(paramiko.AuthenticationException):  # the guesser's pair is locked
                _client(port, "admin", ATTACKER, password="admin").close()
            client = _client(port, "monitor", ATTACKER, key_file=key_file)  # a neighbour's key
            try:
                assert _exec(client, "show hostname")[0] == 0
            finally:
                client.close()
            if SSH is not None:  # and with OpenSSH, bound to the guesser's address
                done = subprocess.run(
                    [SSH, "-F", "/dev/null", "-b", ATTACKER, "-p", str(port), "-i", str(key_file),
                     "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                     "-o", "UserKnownHostsFile=/dev/null", "monitor@127.0.0.1", "show hostname"],
                    capture_output=True, text=True, timeout=TIMEOUT, check=False,
                    env=dict(os.environ, SSH_AUTH_SOCK=""))
                assert (done.returncode, done.stdout) == (0, "\nHostname: NY_Appliance1\n"), done.stderr
        finally:
            stop.set()
            attack.join(TIMEOUT)
    assert _lines(caplog, "source penalised source=127.0.0.2: authfail")
    assert any(line.startswith("login user=admin") and VICTIM in line for line in _lines(caplog, "login user=admin"))


def test_three_hundred_session_channels_on_one_connection_are_capped(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with serving(_lab(tmp_path)) as server:
        port = server.port(NY)
        quiet = _typical(port)
        attacker = _client(port, "monitor", ATTACKER, password="monitor")
        try:
            transport = attacker.get_transport()
            opened, refusals = [], set()
            for _ in range(300):
                try:
                    chan = transport.open_session(timeout=TIMEOUT)
                    chan.get_pty(term="xterm", width=80, height=24)
                    chan.invoke_shell()
                    opened.append(chan)
                except paramiko.ChannelException as exc:
                    refusals.add(exc.code)
            assert len(opened) == 10
            assert refusals == {asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED}
            assert len(_lines(caplog, "open FAILED: 10 sessions open on this connection already")) == 290
            during = _login_and_command(port)
            assert _bounded(during, quiet), (during, quiet)
            assert len(server.server.sessions) <= 11
            opened.pop().close()  # a place again (closed before its shell even started)
            deadline = time.monotonic() + TIMEOUT
            while len(server.server.sessions) > 9 and time.monotonic() < deadline:
                time.sleep(0.05)
            transport.open_session(timeout=TIMEOUT).close()
        finally:
            attacker.close()
    assert len(_lines(caplog, "session refused")) == 1


def test_long_execs_neither_queue_a_login_nor_the_trainers_commands(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """24 execs of 6,000 commands each on one read-only connection: 4 run (`max_user_execs` of the
    user from one address), the others are refused at once in one line each (one log line);
    meanwhile the trainer logs in from another address and runs a command."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    with serving(_lab(tmp_path)) as server:
        port = server.port(NY)
        quiet = _typical(port)
        attacker = _client(port, "monitor", ATTACKER, password="monitor")
        long_exec = "\n".join(["show message-vpn * replication"] * 6000)  # under 256 KiB, one packet
        try:
            transport = attacker.get_transport()
            channels, refused_opens = [], 0
            for _ in range(24):
                try:
                    chan = transport.open_session(timeout=TIMEOUT)
                except paramiko.ChannelException:
                    refused_opens += 1
                    continue
                chan.exec_command(long_exec)
                channels.append(chan)
            deadline = time.monotonic() + TIMEOUT
            while len(_lines(caplog, "exec refused")) < 1 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.server.user_execs.held((ATTACKER, "monitor")) == 4
            during = statistics.median(_login_and_command(port) for _ in range(3))
            assert _bounded(during, quiet), (during, quiet)
            ran, refused = 0, []
            for chan in channels:
                chan.settimeout(TIMEOUT)
                chan.makefile().read()  # an exec waits for its reader (flow control): read it all
                if chan.recv_exit_status() == 0:
                    ran += 1
                else:
                    refused.append(chan.makefile_stderr().read().decode())
            assert ran == 4 and len(refused) + refused_opens == 20
            assert set(refused) == {"ERROR: 4 commands of user monitor from this address are running "
                                    "already; try again when one has finished.\n"}
            shared = _client(port, "monitor", VICTIM, password="monitor")  # the same user elsewhere
            try:
                assert _exec(shared, "show hostname")[0] == 0
            finally:
                shared.close()
        finally:
            attacker.close()
