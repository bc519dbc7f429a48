"""`solace-shell serve` against hostile or broken clients: each attack fails against the server.

A failure inside one session ends that session (one log line), never the server; terminal sizes are
clamped; password guessing is capped per connection, delayed and locked out; the password hash runs
outside the lab lock; connections not yet logged in are capped; a client that stops reading is
dropped instead of buffered without bound; log fields cannot be faked; the host key is never read
or changed through a symbolic link; `serve` with nothing to serve says so; SIGTERM during an exec
stops the server without a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import paramiko  # type: ignore[import-untyped]
import pytest
from prompt_toolkit.history import InMemoryHistory

import solace_shell.repl
import state_store.passwords
from solace_shell.ssh import server as ssh_server
from solace_shell.ssh.guard import LoginGuard
from solace_shell.ssh.hostkey import HostKeyError, host_key_path_for, load_or_create_host_key
from solace_shell.ssh.limits import SshLimits
from solace_shell.ssh.logfields import fields
from solace_shell.ssh.session import MAX_TERMINAL_COLUMNS, MAX_TERMINAL_ROWS, LabSSHSession
from state_store.lab_store import LabStore
from state_store.solace.scenario import DEFAULT_SCENARIO
from tests.support.ssh_clients import TIMEOUT, ServerThread, Shell, connect, run_exec, server_errors, serving

NY = "NY_Appliance1"
ROOT = Path(__file__).resolve().parents[2]
LOGGER = "solace_shell.ssh"


def _lab(tmp_path: Path, **settings: int) -> Path:
    """A lab from the default scenario with these `settings: ssh_...` added."""
    text = DEFAULT_SCENARIO.read_text()
    extra = "".join(f"  ssh_{key}: {value}\n" for key, value in settings.items())
    scenario = tmp_path / "guarded.yaml"
    scenario.write_text(text.replace("settings:\n", "settings:\n" + extra, 1))
    lab_path = tmp_path / "guarded.lab"
    LabStore.open(lab_path, scenario).close()
    return lab_path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with serving(_lab(tmp_path, auth_delay_ms=0, auth_delay_max_ms=0, penalty_max_seconds=0)) as running:
        yield running


def _session_lines(caplog: pytest.LogCaptureFixture, text: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if text in r.getMessage()]


# ------------------------------------------------------------------ a failing session ends alone
def test_an_exception_in_a_sessions_key_handling_ends_that_session_only(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The line's accept handler raises (as history masking did on a control character): that
    session ends with status 1 and one log line; prompt_toolkit never waits for Enter on the
    server's own stdin; the other sessions and new logins go on."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    waited: list[object] = []
    monkeypatch.setattr("prompt_toolkit.application.application._do_wait_for_enter",
                        lambda *args: waited.append(args))

    class Failing(InMemoryHistory):
        def append_string(self, string: str) -> None:
            if "boom" in string:
                raise RuntimeError("boom in the accept handler")
            super().append_string(string)

    monkeypatch.setattr(solace_shell.repl.Repl, "_history", lambda self, path: Failing())
    other = connect(server.port(NY), "admin", "admin")
    victim = connect(server.port(NY), "admin", "admin")
    try:
        bystander, failing = Shell(other), Shell(victim)
        bystander.login_text()
        failing.login_text()
        failing.send("boom\r")
        assert failing.exit_status() == 1
        assert bystander.command("show hostname") == "Hostname: NY_Appliance1"
        later = Shell(connect(server.port(NY), "admin", "admin"))
        later.login_text()
        assert later.command("show hostname") == "Hostname: NY_Appliance1"
        later.close()
    finally:
        other.close()
        victim.close()
    assert waited == []
    (line,) = _session_lines(caplog, "session failed")
    assert line.getMessage().endswith('RuntimeError: "boom in the accept handler"')
    assert line.exc_info is None


def test_an_exception_while_drawing_a_session_ends_that_session_only(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A redraw (a callback the event loop runs for the session's app) raises: the server's loop
    handler charges it to that session, which ends; prompt_toolkit's handler never runs."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    waited: list[object] = []
    monkeypatch.setattr("prompt_toolkit.application.application._do_wait_for_enter",
                        lambda *args: waited.append(args))
    broken = threading.Event()
    prompt = solace_shell.repl.Repl.prompt

    def failing_prompt(self: solace_shell.repl.Repl) -> str:
        if broken.is_set() and self.lab.user.name == "operator":
            raise ValueError("cannot draw the prompt")
        return str(prompt.fget(self))  # type: ignore[attr-defined]

    monkeypatch.setattr(solace_shell.repl.Repl, "prompt", property(failing_prompt))
    victim = connect(server.port(NY), "operator", "operator")
    other = connect(server.port(NY), "admin", "admin")
    try:
        failing, bystander = Shell(victim), Shell(other)
        failing.login_text()
        bystander.login_text()
        broken.set()
        failing.send("s")  # one key: the line is redrawn
        assert failing.exit_status() == 1
        assert bystander.command("show hostname") == "Hostname: NY_Appliance1"
    finally:
        victim.close()
        other.close()
    assert waited == []
    (line,) = _session_lines(caplog, "session failed")
    assert "user=operator" in line.getMessage() and "ValueError" in line.getMessage()


def test_an_exception_after_a_command_ends_that_session_with_one_line(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """(A command's own exception is the shell's to report as an internal error; this one is raised
    by the shell itself, after the command.)"""
    caplog.set_level(logging.INFO, logger=LOGGER)
    after = solace_shell.repl.Repl._after

    def failing(self: solace_shell.repl.Repl, outcome: Any) -> bool:
        if "boom" in outcome.text:
            raise KeyError("a bug in the shell")
        return bool(after(self, outcome))

    monkeypatch.setattr(solace_shell.repl.Repl, "_after", failing)
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client)
        shell.login_text()
        shell.send("show boom\r")
        assert shell.exit_status() == 1
    finally:
        client.close()
    (line,) = _session_lines(caplog, "session failed")
    assert line.exc_info is None and "KeyError" in line.getMessage()


def test_the_event_loops_own_trouble_is_one_line_without_traceback(
        server: ServerThread, caplog: pytest.LogCaptureFixture) -> None:
    """A failed accept (descriptors run out) is reported by the event loop: one line, rate-limited."""
    caplog.set_level(logging.INFO)

    def report() -> None:
        for _ in range(500):
            server.loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                                "exception": OSError(24, "Too many open files")})

    asyncio.run_coroutine_threadsafe(asyncio.to_thread(lambda: None), server.loop).result(TIMEOUT)
    server.loop.call_soon_threadsafe(report)
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), server.loop).result(TIMEOUT)
    lines = [r for r in caplog.records if "accept" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].exc_info is None
    assert "Too many open files" in lines[0].getMessage()


# ------------------------------------------------------------------ terminal sizes
def test_terminal_sizes_are_clamped_on_pty_request_and_window_change(server: ServerThread) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client, width=2**31 - 1, height=2**31 - 1)
        shell.login_text()
        (session,) = [s for s in server.server.sessions if isinstance(s, LabSSHSession)]
        assert session._get_size() == (MAX_TERMINAL_ROWS, MAX_TERMINAL_COLUMNS)
        assert shell.command("show hostname") == "Hostname: NY_Appliance1"
        shell.chan.resize_pty(width=10_000_000, height=0)
        time.sleep(0.5)  # the prompt is redrawn for the new size (an empty prompt cycle)
        outputs = [shell.command("show hostname") for _ in range(2)]
        assert outputs[-1] == "Hostname: NY_Appliance1"
        assert session._get_size() == (24, MAX_TERMINAL_COLUMNS)
    finally:
        client.close()


# ------------------------------------------------------------------ password guessing
def _try_passwords(port: int, user: str, passwords: list[str], source: str = "127.0.0.1") -> tuple[int, str]:
    """Offer the passwords one after another on ONE connection (asyncssh: paramiko cannot retry a
    refused password on the same connection against this server): how many were asked for, and how
    it ended: "accepted" (the last one asked), "refused" (all of them), or "closed" by the server."""

    class Guesser(asyncssh.SSHClient):
        asked = 0

        def password_auth_requested(self) -> str | None:
            if self.asked < len(passwords):
                self.asked += 1
                return passwords[self.asked - 1]
            return None

    guesser = Guesser()

    async def attempt() -> str:
        try:
            conn = await asyncssh.connect("127.0.0.1", port, local_addr=(source, 0), username=user,
                                          known_hosts=None, client_keys=None,
                                          agent_path=None, client_factory=lambda: guesser, kbdint_auth=False,
                                          preferred_auth="password", login_timeout=TIMEOUT)
        except asyncssh.PermissionDenied:
            return "refused"
        except (asyncssh.DisconnectError, ConnectionError):
            return "closed"
        conn.close()
        await conn.wait_closed()
        return "accepted"

    outcome = asyncio.run(attempt())
    return guesser.asked, outcome


def test_refused_passwords_per_connection_are_capped(server: ServerThread,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    asked, outcome = _try_passwords(server.port(NY), "nobody", [f"guess{i}" for i in range(20)])
    assert outcome in ("refused", "closed") and asked <= 7  # asyncssh reports the server's close as a refusal
    assert len(_session_lines(caplog, "login refused user=nobody")) == 6
    assert _session_lines(caplog, "too many refused passwords")


def test_a_guessed_user_is_locked_out_from_the_guessing_source_only(tmp_path: Path,
                                                                    caplog: pytest.LogCaptureFixture) -> None:
    """The (source, user) pair is locked: its right password is refused unchecked for a while; the
    same user from another address, and another user from the same address, log in."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    lab_path = _lab(tmp_path, auth_delay_ms=0, auth_delay_max_ms=0, lockout_failures=4, lockout_seconds=2,
                    penalty_max_seconds=0)
    with serving(lab_path) as server:
        assert _try_passwords(server.port(NY), "admin", ["a", "b", "c", "d"], source="127.0.0.2") == (4, "refused")
        assert _try_passwords(server.port(NY), "admin", ["admin"], source="127.0.0.2") == (1, "refused")
        assert _session_lines(caplog, "login refused user=admin")[-1].getMessage().endswith("locked-out")
        assert _try_passwords(server.port(NY), "admin", ["admin"], source="127.0.0.3") == (1, "accepted")
        assert _try_passwords(server.port(NY), "operator", ["operator"], source="127.0.0.2") == (1, "accepted")
        time.sleep(2.5)
        assert _try_passwords(server.port(NY), "admin", ["admin"], source="127.0.0.2") == (1, "accepted")


def test_a_locked_out_pair_is_refused_unchecked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    lab_path = _lab(tmp_path, auth_delay_ms=0, auth_delay_max_ms=0, lockout_failures=3, lockout_seconds=60)
    with serving(lab_path) as server:
        for _ in range(3):
            server.server.guard.refused("127.0.0.1", "admin")
        checked: list[str] = []
        monkeypatch.setattr(ssh_server, "verify_password", lambda password, stored: checked.append(password))
        assert _try_passwords(server.port(NY), "admin", ["admin"]) == (1, "refused")
        assert checked == []  # not even hashed
        assert _session_lines(caplog, "login refused user=admin")[-1].getMessage().endswith("locked-out")
        monkeypatch.undo()
        assert _try_passwords(server.port(NY), "operator", ["operator"]) == (1, "accepted")


def test_the_guard_delays_more_and_more_then_locks_the_pair_out() -> None:
    now = [0.0]
    guard = LoginGuard(SshLimits(auth_delay_ms=100, auth_delay_max_ms=1000, lockout_failures=8,
                                 lockout_seconds=60), clock=lambda: now[0])
    delays = [guard.refused("10.0.0.1", f"user{i}") for i in range(7)]  # one source, many names: slowed
    assert delays == [0.0, 0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert not any(guard.locked("10.0.0.1", f"user{i}") for i in range(7))  # but no pair is locked
    for _ in range(8):
        guard.refused("10.0.0.1", "admin")
    assert guard.locked("10.0.0.1", "admin")
    assert not guard.locked("10.0.0.2", "admin") and not guard.locked("10.0.0.1", "operator")
    guard.accepted("10.0.0.1", "operator")  # the guesser's own good login as another user...
    assert guard.locked("10.0.0.1", "admin")  # ...clears nothing of admin's
    now[0] = 61.0
    assert not guard.locked("10.0.0.1", "admin")
    for i in range(8):  # many sources, one name: slowed down, nobody locked out
        delay = guard.refused(f"10.0.1.{i}", "no-such-user")
    assert delay == 1.0 and not guard.locked("10.0.9.9", "no-such-user")


def test_the_password_hash_runs_outside_the_lab_lock_and_off_the_event_loop(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []
    verify = ssh_server.verify_password

    def watched(password: str, stored: str | None) -> bool:
        free: list[bool] = []

        def try_the_lock() -> None:
            free.append(server.store.lock.acquire(timeout=2))
            if free[-1]:
                server.store.lock.release()

        probe = threading.Thread(target=try_the_lock)
        probe.start()
        probe.join()
        seen.append((threading.current_thread().name, free[0]))
        return verify(password, stored)

    monkeypatch.setattr(ssh_server, "verify_password", watched)
    assert _try_passwords(server.port(NY), "admin", ["wrong", "admin"]) == (2, "accepted")
    assert len(seen) == 2
    assert all(name.startswith("ssh-auth") and free for name, free in seen), seen


def test_an_unknown_user_costs_one_hash_as_a_wrong_password_does(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch) -> None:
    hashes: list[int] = []
    scrypt = state_store.passwords._scrypt

    def counted(*args: Any) -> bytes:
        hashes.append(1)
        return scrypt(*args)

    monkeypatch.setattr(state_store.passwords, "_scrypt", counted)
    assert _try_passwords(server.port(NY), "admin", ["wrong"]) == (1, "refused")
    known = len(hashes)
    assert _try_passwords(server.port(NY), "nobody", ["wrong"]) == (1, "refused")
    assert (known, len(hashes) - known) == (1, 1)


def test_a_password_just_accepted_is_not_hashed_again_a_wrong_one_always_is(
        server: ServerThread, monkeypatch: pytest.MonkeyPatch) -> None:
    hashes: list[str] = []
    verify = ssh_server.verify_password

    def counted(password: str, stored: str | None) -> bool:
        hashes.append(password)
        return verify(password, stored)

    monkeypatch.setattr(ssh_server, "verify_password", counted)
    for _ in range(3):
        assert _try_passwords(server.port(NY), "admin", ["admin"]) == (1, "accepted")
        assert _try_passwords(server.port(NY), "admin", ["wrong"]) == (1, "refused")
        assert _try_passwords(server.port(NY), "nobody", ["admin"]) == (1, "refused")
    assert hashes == ["admin", "wrong", "admin", "wrong", "admin", "wrong", "admin"]


# ------------------------------------------------------------------ connections not logged in
def test_connections_not_logged_in_are_capped_with_one_log_line(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with serving(_lab(tmp_path, max_startups=4)) as server:
        idle = [socket.create_connection(("127.0.0.1", server.port(NY)), TIMEOUT) for _ in range(4)]
        try:
            for sock in idle:
                assert sock.recv(64).startswith(b"SSH-2.0-")  # served: the server's version line
            extra = [socket.create_connection(("127.0.0.1", server.port(NY)), TIMEOUT) for _ in range(20)]
            for sock in extra:
                sock.settimeout(TIMEOUT)
                try:
                    assert sock.recv(64) == b""  # closed at once
                except ConnectionResetError:
                    pass
                sock.close()
            with pytest.raises((paramiko.SSHException, EOFError, OSError)):
                connect(server.port(NY), "admin", "admin")
        finally:
            for sock in idle:
                sock.close()
        deadline = time.monotonic() + TIMEOUT
        while server.server.unauthenticated and time.monotonic() < deadline:
            time.sleep(0.05)
        connect(server.port(NY), "admin", "admin").close()  # room again
    refusals = _session_lines(caplog, "refused connection")
    assert 1 <= len(refusals) <= 2  # rate-limited: one a second at most
    assert all(r.exc_info is None for r in caplog.records)


# ------------------------------------------------------------------ a client that stops reading
def test_a_client_that_stops_reading_is_paused_then_dropped(server: ServerThread,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    server.server.stall_seconds = 2.0
    client = connect(server.port(NY), "admin", "admin")
    try:
        chan = client.get_transport().open_session(window_size=4096)
        chan.get_pty(term="xterm", width=80, height=24)
        chan.invoke_shell()
        chan.sendall(b"no paging\r")
        backlog = 0
        deadline = time.monotonic() + 20
        while not chan.closed and not chan.eof_received and time.monotonic() < deadline:
            try:
                chan.sendall(b"show current-config\r" * 20)
            except (OSError, EOFError, paramiko.SSHException):
                break
            for session in list(server.server.sessions):
                if session.channel is not None:
                    backlog = max(backlog, session.channel.get_write_buffer_size())
            time.sleep(0.1)
        assert time.monotonic() < deadline, "the client that reads nothing was never dropped"
        assert backlog < 4 * 1024 * 1024
    finally:
        client.close()
    assert _session_lines(caplog, "dropped user=admin")


# ------------------------------------------------------------------ log fields
def test_log_fields_cannot_be_faked_by_a_user_name(server: ServerThread,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    name = 'mallory router=Elsewhere peer=10.9.9.9:1 "x'  # (a line feed is refused by the client)
    assert _try_passwords(server.port(NY), name, ["x"]) == (1, "refused")
    (line,) = _session_lines(caplog, "login refused")
    message = line.getMessage()
    assert message.startswith('login refused user="mallory router=Elsewhere peer=10.9.9.9:1 \\"x" '
                              f"router={NY} peer=127.0.0.1:")
    assert fields(user="a\nlogin user=admin") == 'user="a\\nlogin user=admin"'  # one line, always
    assert fields(user="operator", peer="10.0.0.7:53122") == "user=operator peer=10.0.0.7:53122"


# ------------------------------------------------------------------ the host key
def test_the_host_key_is_never_read_or_changed_through_a_link(tmp_path: Path) -> None:
    other = tmp_path / "someone_elses_key"
    load_or_create_host_key(other)
    os.chmod(other, 0o644)
    link = host_key_path_for(tmp_path / "training.lab")
    link.symlink_to(other)
    with pytest.raises(HostKeyError, match="symbolic link"):
        load_or_create_host_key(link)
    assert stat.S_IMODE(other.stat().st_mode) == 0o644  # not changed through the link
    dangling = host_key_path_for(tmp_path / "other.lab")
    dangling.symlink_to(tmp_path / "nothing-here")
    with pytest.raises(HostKeyError):
        load_or_create_host_key(dangling)
    assert not (tmp_path / "nothing-here").exists()  # not created through the link


# ------------------------------------------------------------------ serve as a command
def _serve(args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "solace_shell.cli", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kwargs)


def test_serve_on_a_lab_without_routers_serves_its_ha_systems_cli(tmp_path: Path) -> None:
    """A lab of HA routers only has no Solace router to serve, but its system's CLI listens (a lab
    with nothing at all to serve would be one line and exit 2; no scenario makes one)."""
    scenario = ROOT / "transcripts" / "scenarios" / "swiftmq-ha.yaml"
    proc = _serve(["--db", str(tmp_path / "swift.lab"), "--scenario", str(scenario), "serve", "--port", "0"])
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split()[0] == "swiftmq"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, server_errors(err)


def test_sigterm_during_an_exec_stops_the_server_without_a_traceback(tmp_path: Path) -> None:
    proc = _serve(["--db", str(tmp_path / "t.lab"), "serve", "--port", "0"])
    assert proc.stdout is not None and proc.stderr is not None
    port = int(proc.stdout.readline().split()[3])
    client = connect(port, "admin", "admin")
    try:
        _, stdout, _ = client.exec_command("\n".join(["show current-config"] * 3000), timeout=TIMEOUT)
        time.sleep(0.5)  # the exec is running
        proc.send_signal(signal.SIGTERM)
        stdout.read()
        status = proc.wait(TIMEOUT)
    finally:
        client.close()
        proc.kill()
    err = proc.stderr.read()
    assert status == 0
    assert "Traceback" not in err, err


# ------------------------------------------------------------------ several worker processes
def test_workers_share_the_ports_and_the_lab_and_stop_together(tmp_path: Path) -> None:
    proc = _serve(["--db", str(tmp_path / "w.lab"), "serve", "--port", "0", "--workers", "2"])
    assert proc.stdout is not None and proc.stderr is not None
    try:
        lines = [proc.stdout.readline().split() for _ in range(2)]
        assert [line[0] for line in lines] == [NY, "NJ_Appliance1"]
        ny, nj = int(lines[0][3]), int(lines[1][3])
        assert nj == ny + 1
        create = "enable\nconfigure\nmessage-spool message-vpn Trading_VPN\ncreate queue from_a_worker"
        assert run_exec(ny, "admin", "admin", create)[0] == 0
        for port in (ny, nj, ny, nj):  # whichever worker serves the connection sees the queue
            status, text = run_exec(port, "admin", "admin", "show queue from_a_worker message-vpn Trading_VPN")
            assert status == 0 and "from_a_worker" in text
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(TIMEOUT) == 0
    finally:
        proc.kill()
    assert "Traceback" not in proc.stderr.read()
