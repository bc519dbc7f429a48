"""`solace-shell serve` with a real SSH client (paramiko) against a real lab file, in-process.

Login as the broker shows it (captures T20, T21), the same shell as the local REPL (levels, `?`, the
More pager sized to the client's window), exec requests with their exit status, refusals, the host
key, and sessions that see each other's changes.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from solace_shell.banner import interactive_banner
from solace_shell.lab import Lab
from solace_shell.paging import MORE_PROMPT
from solace_shell.script import run_commands
from solace_shell.ssh.hostkey import host_key_path_for, load_or_create_host_key
from state_store.lab_store import LabStore
from tests.support.ssh_clients import (
    TIMEOUT,
    AsyncShell,
    ServerThread,
    Shell,
    connect,
    run_exec,
    serving,
)

NY = "NY_Appliance1"
NJ = "NJ_Appliance1"


@pytest.fixture
def lab_path(tmp_path: Path) -> Path:
    return tmp_path / "training.lab"


@pytest.fixture
def server(lab_path: Path) -> Iterator[ServerThread]:
    with serving(lab_path) as running:
        yield running


def local_output(lab_path: Path, user: str, commands: list[str], router: str = NY) -> tuple[int, str]:
    """What `solace-shell --user USER -c ... -c ...` prints on the same lab file."""
    lab = Lab(LabStore.open(lab_path), user=user)
    try:
        out = io.StringIO()
        return run_commands(lab, router, commands, out), out.getvalue()
    finally:
        lab.close()


def test_one_listener_per_router_in_lab_order(server: ServerThread) -> None:
    assert [listener.router for listener in server.listeners] == [NY, NJ]
    assert len({listener.port for listener in server.listeners}) == 2


def test_login_banner_start_banner_prompt_and_a_command(server: ServerThread) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        # The pre-authentication banner: the product line, as `show version` names the product.
        assert client.get_transport().get_banner() == b"Solace PubSub+ Enterprise\n"
        shell = Shell(client)
        text = shell.login_text()
        # the same start banner as the local shell (T17/T20/T21 layout; checked against the captures
        # in tests/cli/test_banner.py), then the prompt
        banner = interactive_banner({"software_version": "10.4.1.52"})
        assert text.startswith(banner) and "Operating Mode: Message Routing Node" in banner
        assert shell.command("show hostname") == "Hostname: NY_Appliance1"
        assert shell.command("enable") == ""
        shell.until(f"{NY}#")
        assert shell.command("exit") == ""
        shell.send("exit\r")  # at User EXEC: logs out
        assert shell.exit_status() == 0
    finally:
        client.close()


def test_each_port_is_its_router(server: ServerThread) -> None:
    client = connect(server.port(NJ), "operator", "operator")
    try:
        shell = Shell(client)
        shell.login_text()
        assert shell.command("show hostname") == "Hostname: NJ_Appliance1"
    finally:
        client.close()


def test_question_mark_and_tab_are_the_local_shells(server: ServerThread) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client)
        shell.login_text()
        shell.send("ena?")
        help_text = shell.until("Enter the Privileged EXEC level")
        assert f"{NY}> ena?" in help_text
        shell.send("\t\r")  # Tab completes `ena` to `enable `
        shell.until(f"{NY}#")
        shell.send("\x04")  # Ctrl-D on an empty line logs out
        assert shell.exit_status() == 0
    finally:
        client.close()


def test_a_terminal_that_reports_its_cursor_gets_the_toolbar(tmp_path: Path) -> None:
    # a generous wait for the answer: this machine may be slow to run the client's reply
    with serving(tmp_path / "cpr.lab", cpr_probe_seconds=TIMEOUT) as server:
        client = connect(server.port(NY), "admin", "admin")
        _toolbar_session(client)


def _toolbar_session(client: paramiko.SSHClient) -> None:
    try:
        shell = Shell(client, answer_cpr=True)
        shell.login_text()
        shell.until("F2 lab console / router")  # the local REPL's bottom toolbar
        assert shell.command("show hostname") == "Hostname: NY_Appliance1"
    finally:
        client.close()


def test_a_client_that_never_reports_it_gets_no_cursor_requests(server: ServerThread) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client)
        shell.login_text()
        for _ in range(3):
            assert shell.command("show hostname") == "Hostname: NY_Appliance1"
        assert shell.raw.count("\x1b[6n") == 1  # the one probe at the start
    finally:
        client.close()


def test_more_pager_follows_the_client_window(server: ServerThread) -> None:
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client, height=10)
        shell.login_text()
        shell.send("show message-vpn * replication detail\r")
        first_page = shell.until(MORE_PROMPT)
        assert "Message VPN" in first_page
        shell.send("q")
        shell.until(f"{NY}>")
        # A taller window: the same output now fits, no More prompt.
        shell.chan.resize_pty(width=80, height=200)
        shell.until(f"{NY}>")  # the prompt redrawn for the new size
        text = shell.command("show message-vpn * replication detail")
        assert MORE_PROMPT not in text
        assert len(text.split("\n")) == 70
    finally:
        client.close()


def test_exec_request_runs_like_dash_c_with_its_exit_status(server: ServerThread, lab_path: Path) -> None:
    status, text = run_exec(server.port(NY), "admin", "admin", "show hostname")
    assert (status, text) == (0, "\nHostname: NY_Appliance1\n")
    status, text = run_exec(server.port(NJ), "admin", "admin", "show no-such-thing")
    assert status == 1
    assert (status, text) == local_output(lab_path, "admin", ["show no-such-thing"], router=NJ)


def test_access_levels_are_the_logged_in_users(server: ServerThread, lab_path: Path) -> None:
    commands = ["enable", "configure", "message-spool message-vpn Trading_VPN", "create queue by_monitor"]
    status, text = run_exec(server.port(NY), "monitor", "monitor", "\n".join(commands))
    assert status == 1
    assert (status, text) == local_output(lab_path, "monitor", commands)
    assert "by_monitor" not in run_exec(server.port(NY), "admin", "admin", "show queue *")[1]


def test_sessions_see_each_others_changes(server: ServerThread) -> None:
    trainee = connect(server.port(NY), "operator", "operator")
    other = connect(server.port(NJ), "admin", "admin")
    try:
        a, b = Shell(trainee), Shell(other)
        a.login_text()
        b.login_text()
        before = b.command("show queue shared_q message-vpn Trading_VPN")
        for line in ("enable", "configure", "message-spool message-vpn Trading_VPN", "create queue shared_q"):
            assert a.command(line) == ""
        after = b.command("show queue shared_q message-vpn Trading_VPN")  # config-synced to the mate
        assert before != after
        assert "shared_q" in after
    finally:
        trainee.close()
        other.close()


def test_a_client_stuck_at_more_does_not_stall_the_others(server: ServerThread) -> None:
    stuck = connect(server.port(NY), "admin", "admin")
    other = connect(server.port(NY), "admin", "admin")
    try:
        slow = Shell(stuck, height=5)
        slow.login_text()
        slow.send("show current-config\r")
        slow.until(MORE_PROMPT)  # this session now waits for its client, which never answers
        fast = Shell(other)
        fast.login_text()
        for _ in range(5):
            assert fast.command("show hostname") == "Hostname: NY_Appliance1"
    finally:
        stuck.close()
        other.close()


def test_wrong_password_and_unknown_user_are_refused_alike(server: ServerThread,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="solace_shell.ssh")
    refusals = []
    for user, password in (("admin", "Wr0ng-secret"), ("nobody", "Wr0ng-secret")):
        with pytest.raises(paramiko.AuthenticationException) as caught:
            connect(server.port(NY), user, password)
        refusals.append(str(caught.value))
    assert refusals[0] == refusals[1]
    assert "Wr0ng-secret" not in caplog.text
    assert "login refused user=admin router=NY_Appliance1" in caplog.text
    assert "login refused user=nobody router=NY_Appliance1" in caplog.text


def test_host_key_is_made_once_with_mode_0600(server: ServerThread, lab_path: Path) -> None:
    path = host_key_path_for(lab_path)
    assert path == lab_path.with_name("training.lab.ssh_host_key")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    first = load_or_create_host_key(path)
    os.chmod(path, 0o644)  # loosened by hand: tightened again on the next start
    second = load_or_create_host_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert first.export_public_key() == second.export_public_key()
    # and the clients see that key
    client = connect(server.port(NY), "admin", "admin")
    try:
        served = client.get_transport().get_remote_server_key()
        assert served.get_base64() == first.export_public_key().split()[1].decode()
    finally:
        client.close()


F2 = "\x1bOQ"
SESSIONS = 50
ADVANCES = 3


def test_fifty_sessions_at_once_are_serialized(server: ServerThread, lab_path: Path) -> None:
    """50 interactive sessions (both routers), each moving the shared clock three times from the lab
    console: every step sees the others' (150 distinct clock values, 1 s to 150 s), none is lost."""

    async def trainee(index: int) -> list[str]:
        router = (NY, NJ)[index % 2]
        shell = await AsyncShell.open(server.port(router), "admin", "admin")
        try:
            shell.send(F2)
            await shell.until("lab>")
            return [await shell.command("advance 1s", prints=True) for _ in range(ADVANCES)]
        finally:
            await shell.close()

    async def everyone() -> list[list[str]]:
        return await asyncio.gather(*(trainee(i) for i in range(SESSIONS)))

    outputs = [line for lines in asyncio.run(everyone()) for line in lines]
    steps = [re.fullmatch(r"clock (\S+) \(\+1s\) drained \d+ reconnected \S+", line) for line in outputs]
    assert all(steps), [line for line, step in zip(outputs, steps, strict=True) if not step]
    clocks = sorted(step.group(1) for step in steps if step)
    expected = sorted(f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.000"
                      for s in range(1, SESSIONS * ADVANCES + 1))
    assert clocks == expected
    with server.store.transaction() as engine:
        assert engine.now_ms() == SESSIONS * ADVANCES * 1000


def test_every_write_to_a_connection_is_made_on_the_event_loop(
        lab_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """asyncssh encrypts a packet as it is written: a write from another thread races the loop's
    writes and corrupts the stream (the client then fails with "Invalid packet blocking"). A shell
    is built in a worker thread and its prompt_toolkit application writes as it is built, so
    each write of a shell's start, a command and its end is checked for the thread it runs on."""
    from solace_shell.ssh import transport

    off_loop: list[str] = []
    write = transport.GatheringTransport.write

    def checked(self: transport.GatheringTransport, data: bytes | bytearray | memoryview) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            off_loop.append(threading.current_thread().name)
        write(self, data)

    monkeypatch.setattr(transport.GatheringTransport, "write", checked)
    with serving(lab_path) as running:
        client = connect(running.port(NY), "admin", "admin")
        shell = Shell(client)
        try:
            shell.login_text()
            assert shell.command("show hostname").strip().endswith(NY)
            shell.send("exit\r")
            assert shell.exit_status() == 0
        finally:
            shell.close()
    assert off_loop == []
