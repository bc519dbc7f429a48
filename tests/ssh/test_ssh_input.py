"""What a client sends can never stall `solace-shell serve`: keys wait in a bounded queue read a
little per pass of the event loop (the channel is not read while too many wait), an exec's input
is read and dropped, an exec ends with its channel, SIGINT and SIGTERM stop the server whatever
its sessions do, workers end with their parent, and a pasted block runs line by line.

Each attack test times a second session's (the trainer's) `show hostname` on the quiet server and
under the attack, in the same run, and holds it to a loose bound (10 x quiet p99 + 3 s: the
machine may be shared, and what the bound catches is a server that stops answering, as it did
for tens of seconds); the p99 ratio is printed and recorded (`record_property`).
bench/bench_ssh_attacks.py measures the same with more samples.
"""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from prompt_toolkit.input import typeahead

from solace_shell.ssh import workers
from solace_shell.ssh.channel_input import KEYS_PER_PASS, QUEUE_HIGH_CHARS, QUEUE_LOW_CHARS, ChannelInput
from solace_shell.ssh.session import LabSSHSession
from tests.support.ssh_attacks import EXEC_STDIN_BYTES, Measured, attacking, measure, served
from tests.support.ssh_clients import TIMEOUT, ServerThread, Shell, connect, openssh_args, serving, strip_ansi

NY = "NY_Appliance1"


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    return tmp_path / "input.lab"


def _bounded(measured: Measured, record_property: Callable[[str, object], None]) -> None:
    print(measured.line())
    record_property(f"{measured.attack}_p99_ratio", round(measured.ratio, 2))
    assert measured.bounded(), measured.line()


# ------------------------------------------------------------------ the queue itself
def test_the_queue_hands_out_a_few_keys_per_pass_and_holds_the_channel_while_full() -> None:
    """A burst far beyond the high mark: the channel is held once, released once below the low
    mark, and each read gives the prompt at most KEYS_PER_PASS characters' keys."""

    async def main() -> tuple[list[bool], list[int], int]:
        holds: list[bool] = []
        failures: list[BaseException] = []
        keys = ChannelInput(holds.append, failures.append)
        reads: list[int] = []

        def ready() -> None:
            reads.append(len(keys.read_keys()))

        with keys.attach(ready):
            keys.feed("x" * (QUEUE_HIGH_CHARS + 1000))
            assert holds == [True]
            while keys.queued:
                await asyncio.sleep(0)
        assert not failures
        return holds, reads, keys.queued

    holds, reads, left = asyncio.run(main())
    assert holds == [True, False]
    assert max(reads) == KEYS_PER_PASS and sum(reads) == QUEUE_HIGH_CHARS + 1000 and left == 0
    assert QUEUE_LOW_CHARS < QUEUE_HIGH_CHARS


def test_a_pastes_keys_wait_bounded_on_the_server(lab: Path) -> None:
    """Through the real server: 98 KB of keys handed to a session in one go (as asyncssh hands on
    packets that arrived together) returns at once, holds the channel, and is worked off while
    another session's commands are answered; keys sent meanwhile wait in the client."""
    with serving(lab) as server:
        client = connect(server.port(NY), "monitor", "monitor")
        try:
            shell = Shell(client)
            shell.login_text()
            (session,) = [s for s in server.server.sessions if isinstance(s, LabSSHSession)]
            paste = "show hostname\r" * 7000

            async def deliver() -> tuple[bool, int]:
                session.data_received(paste, None)
                return "input" in session._holds, session.keys.queued

            held, queued = asyncio.run_coroutine_threadsafe(deliver(), server.loop).result(TIMEOUT)
            assert held and queued == len(paste)
            shell.chan.settimeout(None)
            shell.chan.sendall(b"show hostname\r" * 7000)  # waits in the client while the channel is held
            trainer = Shell(connect(server.port(NY), "admin", "admin"))
            trainer.login_text()
            assert trainer.command("show hostname") == f"Hostname: {NY}"
            trainer.close()
            most = 0
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                most = max(most, session.keys.queued)
                time.sleep(0.01)
            assert most <= len(paste)  # no more than what was handed on at once
        finally:
            client.close()


def test_an_execs_input_handed_on_at_once_is_dropped_without_a_wait(lab: Path) -> None:
    """100 KB of an exec's standard input handed to its session in one go, while the exec runs:
    dropped at once (nothing reads an exec's input), and the exec goes on to its end."""
    with serving(lab) as server:
        client = connect(server.port(NY), "monitor", "monitor")
        try:
            chan = client.get_transport().open_session()
            chan.exec_command("\n".join(["show current-config"] * 200))
            deadline = time.monotonic() + TIMEOUT
            while not [s for s in server.server.sessions if s.command] and time.monotonic() < deadline:
                time.sleep(0.01)
            (session,) = [s for s in server.server.sessions if isinstance(s, LabSSHSession) and s.command]

            async def deliver() -> int:
                session.data_received("y" * EXEC_STDIN_BYTES, None)
                return session.keys.queued

            assert asyncio.run_coroutine_threadsafe(deliver(), server.loop).result(TIMEOUT) == 0
            chan.settimeout(TIMEOUT)
            while chan.recv(65536):
                pass
            assert chan.recv_exit_status() == 0
        finally:
            client.close()


# ------------------------------------------------------------------ attacks, and a trainer meanwhile
def test_a_70_kb_paste_stalls_neither_the_server_nor_another_session(
        lab: Path, record_property: Callable[[str, object], None]) -> None:
    with served(lab) as server:
        _bounded(measure("paste", server.ports[NY]), record_property)
        assert server.stop() == 0


def test_100_kb_on_an_execs_input_stalls_nothing_and_the_exec_answers(
        lab: Path, record_property: Callable[[str, object], None]) -> None:
    with served(lab) as server:
        client = connect(server.ports[NY], "monitor", "monitor")
        try:
            chan = client.get_transport().open_session()
            chan.exec_command("show hostname")
            chan.sendall(b"y" * EXEC_STDIN_BYTES)
            chan.shutdown_write()
            chan.settimeout(TIMEOUT)
            output = b""
            while data := chan.recv(65536):
                output += data
            assert chan.recv_exit_status() == 0 and output.decode().strip() == f"Hostname: {NY}"
        finally:
            client.close()
        _bounded(measure("exec_stdin", server.ports[NY]), record_property)
        assert server.stop() == 0


def test_a_30_kb_line_typed_at_once_stalls_no_other_session(
        lab: Path, record_property: Callable[[str, object], None]) -> None:
    with served(lab) as server:
        _bounded(measure("long_line", server.ports[NY]), record_property)
        assert server.stop() == 0


def test_execs_closed_early_are_cancelled_and_sigterm_stops_the_server_at_once(
        lab: Path, record_property: Callable[[str, object], None]) -> None:
    with served(lab) as server:
        _bounded(measure("execs_closed", server.ports[NY]), record_property)
        with attacking("execs_closed", server.ports[NY], settle=2.0):
            started = time.monotonic()
            status = server.stop(signal.SIGTERM)
            stopped = time.monotonic() - started
        log = server.log
    print(f"SIGTERM during 24 execs: exit status {status} after {stopped:.1f} s")
    record_property("sigterm_during_execs_seconds", round(stopped, 1))
    assert status == 0 and "Traceback" not in log
    assert "cancelled: the channel closed" in log
    assert stopped < 15, f"SIGTERM took {stopped:.1f} s"


# ------------------------------------------------------------------ signals and workers
def test_ctrl_c_stops_the_server_after_a_session_ended_and_while_one_waits(lab: Path) -> None:
    """A session's prompt never takes the server's SIGINT over (nor leaves it unhandled when it ends)."""
    with served(lab) as server:
        ended = Shell(connect(server.ports[NY], "operator", "operator"))
        ended.login_text()
        assert ended.command("show hostname") == f"Hostname: {NY}"
        ended.send("exit\r")
        assert ended.exit_status() == 0
        ended.close()
        waiting = Shell(connect(server.ports[NY], "admin", "admin"))
        waiting.login_text()
        try:
            assert server.stop(signal.SIGINT) == 0
        finally:
            waiting.close()
        assert "Traceback" not in server.log


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_workers_end_with_their_parent_and_the_ports_can_be_served_again(lab: Path) -> None:
    with served(lab, "--workers", "2") as parent:
        port = parent.ports[NY]
        assert Shell(connect(port, "admin", "admin")).login_text()
        parent.proc.kill()  # SIGKILL: the parent passes nothing on
        parent.proc.wait(TIMEOUT)
        deadline = time.monotonic() + TIMEOUT
        while not (_port_free(port) and _port_free(port + 1)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _port_free(port) and _port_free(port + 1), "a worker outlived its parent"
    with served(lab, "--workers", "2") as again:
        assert again.ports[NY]
        assert again.stop() == 0


def test_a_worker_without_a_pipe_from_its_parent_notices_the_parent_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The portable fallback of `watch_parent`, for a worker whose standard input is no pipe.)"""
    monkeypatch.setattr(workers.sys, "stdin", None)
    monkeypatch.setattr(workers, "PARENT_POLL_SECONDS", 0.01)
    parents = iter([100, 100, 100, 1])
    monkeypatch.setattr(workers.os, "getppid", lambda: next(parents, 1))

    async def main() -> int:
        gone = asyncio.Event()
        calls: list[int] = []

        def parent_gone() -> None:
            calls.append(1)
            gone.set()

        unwatch = workers.watch_parent(parent_gone)
        await asyncio.wait_for(gone.wait(), TIMEOUT)
        await asyncio.sleep(0.05)
        unwatch()
        return len(calls)

    assert asyncio.run(main()) == 1


# ------------------------------------------------------------------ a pasted block
@pytest.fixture
def server(lab: Path) -> Iterator[ServerThread]:
    with serving(lab) as running:
        yield running


def _screen_after_paste(server: ServerThread, paste: str, last: str) -> str:
    client = connect(server.port(NY), "admin", "admin")
    try:
        shell = Shell(client)
        shell.login_text()
        shell.send(paste)
        return shell.until(last)
    finally:
        client.close()


def _in_order(screen: str, pieces: list[str]) -> bool:
    """Does each piece show on the screen (redraws and all, escapes stripped) after the one before?"""
    at = 0
    for piece in pieces:
        found = screen.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@pytest.mark.parametrize("bracketed", [True, False])
def test_a_pasted_block_runs_line_by_line_each_echoed_after_its_prompt(server: ServerThread,
                                                                       bracketed: bool) -> None:
    block = "show hostname\nenable\nshow hostname\nshow clock\n"
    paste = f"\x1b[200~{block}\x1b[201~" if bracketed else block.replace("\n", "\r")
    screen = _screen_after_paste(server, paste, "NY_Appliance1# show clock")
    assert _in_order(screen, [f"{NY}> show hostname\n", f"Hostname: {NY}\n", f"{NY}> enable\n",
                              f"{NY}# show hostname\n", f"Hostname: {NY}\n", f"{NY}# show clock"]), screen


def test_a_paste_of_many_lines_runs_them_all(server: ServerThread) -> None:
    count = 300
    block = "show hostname\n" * count + "show clock\n"
    screen = _screen_after_paste(server, f"\x1b[200~{block}\x1b[201~", "> show clock")
    assert strip_ansi(screen).count(f"Hostname: {NY}") == count


def test_a_session_that_ends_mid_paste_leaves_nothing_behind(server: ServerThread) -> None:
    """The rest of its paste (prompt_toolkit's typeahead, kept per input for the process's life)
    goes with the session."""
    client = connect(server.port(NY), "monitor", "monitor")
    shell = Shell(client)
    shell.login_text()
    shell.send("\x1b[200~" + "show hostname\n" * 2000 + "\x1b[201~")
    shell.until(f"Hostname: {NY}")
    client.close()
    deadline = time.monotonic() + TIMEOUT
    while server.server.sessions and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.server.sessions
    assert not [key for key in typeahead._buffer if key.startswith("ssh-channel-input-")]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client `ssh` is not installed")
def test_openssh_a_pasted_block_runs_line_by_line(lab: Path) -> None:
    """Through the OpenSSH client in a terminal, as a trainee pastes (the terminal marks the paste)."""
    with served(lab) as server:
        child = pexpect.spawn(shutil.which("ssh"), openssh_args(server.ports[NY], "operator"),
            encoding="utf-8", timeout=TIMEOUT, dimensions=(24, 80))
        try:
            child.expect("Password:")
            child.sendline("operator")
            child.expect_exact(f"{NY}>")
            child.send("\x1b[200~show hostname\nenable\nshow hostname\n\x1b[201~")
            for text in (f"{NY}> show hostname", f"Hostname: {NY}", f"{NY}> enable", f"{NY}# show hostname",
                         f"Hostname: {NY}", f"{NY}#"):
                child.expect_exact(text)
            child.send("exit\r")
            child.expect_exact(f"{NY}>")
            child.send("exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close()
        assert child.exitstatus == 0
        assert server.stop() == 0
