"""How `solace-shell serve` spends its work: the event loop it runs on, a connection's writes
gathered into one socket send per pass of the loop, and the ciphers it offers.

What is checked is what each piece promises: the same callbacks run in the same order, the same
bytes reach the client in the same order, and clients that have the offered ciphers get one of
them while a client offering none of them is refused with the SSH error, not a hang.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from solace_shell.ssh.eventloop import ServerEventLoop
from solace_shell.ssh.server import CIPHERS
from solace_shell.ssh.transport import GatheringTransport
from tests.support.ssh_clients import TIMEOUT, AsyncShell, ServerThread, serving, strip_ansi

NY = "NY_Appliance1"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with serving(tmp_path / "serving.lab") as running:
        yield running


# ------------------------------------------------------------------ the event loop
def test_call_soon_threadsafe_on_the_loop_thread_needs_no_wake_up() -> None:
    loop = ServerEventLoop()
    wake_ups: list[int] = []
    original = loop._write_to_self  # type: ignore[attr-defined]

    def counted() -> None:
        wake_ups.append(1)
        original()

    loop._write_to_self = counted  # type: ignore[attr-defined]
    order: list[str] = []

    async def main() -> None:
        loop.call_soon_threadsafe(order.append, "first")
        loop.call_soon(order.append, "second")
        await asyncio.sleep(0)
        await asyncio.sleep(0)

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert order == ["first", "second"]
    assert wake_ups == []


def test_call_soon_threadsafe_from_another_thread_wakes_the_loop() -> None:
    """The loop waits in `select` with nothing to do; a callback from another thread still runs."""
    loop = ServerEventLoop()
    ran = threading.Event()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        threading.Event().wait(0.2)  # the loop is asleep in select by now
        loop.call_soon_threadsafe(ran.set)
        assert ran.wait(TIMEOUT)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(TIMEOUT)
        loop.close()


# ------------------------------------------------------------------ gathered writes
class _Recorder(asyncio.Transport):
    """A transport that records each write it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def get_write_buffer_size(self) -> int:
        return 0


def test_writes_of_one_pass_reach_the_socket_together_in_order() -> None:
    async def main() -> tuple[list[bytes], list[bytes], int]:
        recorder = _Recorder()
        gathering = GatheringTransport(recorder)
        gathering.write(b"ignore-packet ")
        gathering.write(b"data-packet ")
        gathering.writelines([b"a ", b"b"])
        pending = gathering.get_write_buffer_size()
        before = list(recorder.writes)
        await asyncio.sleep(0)
        gathering.write(b"next pass")
        await asyncio.sleep(0)
        return before, recorder.writes, pending

    before, writes, pending = asyncio.run(main())
    assert before == []
    assert pending == len(b"ignore-packet data-packet a b")
    assert writes == [b"ignore-packet data-packet a b", b"next pass"]


def test_close_sends_what_was_gathered_and_abort_drops_it() -> None:
    async def main() -> tuple[_Recorder, _Recorder]:
        closed, aborted = _Recorder(), _Recorder()
        first, second = GatheringTransport(closed), GatheringTransport(aborted)
        first.write(b"disconnect")
        first.close()
        second.write(b"lost")
        second.abort()
        await asyncio.sleep(0)
        return closed, aborted

    closed, aborted = asyncio.run(main())
    assert closed.writes == [b"disconnect"] and closed.closed
    assert aborted.writes == [] and aborted.aborted


def test_a_session_over_gathered_writes_echoes_and_runs_commands(server: ServerThread) -> None:
    """Every key echoed, in order, and a command's whole output, through the real server."""

    async def main() -> tuple[str, str]:
        shell = await AsyncShell.open(server.port(NY), "admin", "admin")
        try:
            conn = next(iter(server.server.connections))._conn
            assert isinstance(conn._transport, GatheringTransport)
            echoed = ""
            typed = ""
            for key in "show hostname":
                shell.send(key)
                typed += key.strip()
                # An echo may come in more than one read (a redraw, then the character); a space
                # is a cursor move when redrawn, itself when echoed alone.
                while not strip_ansi(echoed).replace(" ", "").endswith(typed):
                    echoed += await asyncio.wait_for(shell.proc.stdout.read(65536), TIMEOUT)
            output = await shell.command("")
            return echoed, output
        finally:
            await shell.close()

    echoed, output = asyncio.run(main())
    assert strip_ansi(echoed).replace(" ", "") == "showhostname"  # each letter echoed in order
    assert "NY_Appliance1" in output


# ------------------------------------------------------------------ ciphers
def test_clients_get_an_offered_cipher(server: ServerThread) -> None:
    async def main() -> tuple[str, str]:
        async with asyncssh.connect("127.0.0.1", server.port(NY), username="admin", password="admin",
                                    known_hosts=None, client_keys=None, agent_path=None) as conn:
            return conn.get_extra_info("send_cipher"), conn.get_extra_info("recv_cipher")

    send, recv = asyncio.run(main())
    assert send in CIPHERS and recv in CIPHERS
    assert "chacha20-poly1305@openssh.com" not in CIPHERS


def test_a_client_with_none_of_the_ciphers_is_refused_cleanly(server: ServerThread) -> None:
    async def main() -> None:
        await asyncssh.connect("127.0.0.1", server.port(NY), username="admin", password="admin",
                               known_hosts=None, client_keys=None, agent_path=None,
                               encryption_algs=["chacha20-poly1305@openssh.com"], login_timeout=TIMEOUT)

    # The server's disconnect (no matching cipher) may reach the client after the socket's close.
    with pytest.raises((asyncssh.KeyExchangeFailed, asyncssh.ConnectionLost)):
        asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    # The server goes on serving.
    with socket.create_connection(("127.0.0.1", server.port(NY)), timeout=TIMEOUT) as sock:
        assert sock.recv(4).startswith(b"SSH-")


# ------------------------------------------------------------------ logins at once
def test_logins_at_once_with_one_password_pay_one_hash(server: ServerThread,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten checks of admin's password at once: one hash, ten answers; wrong passwords are never
    remembered (each later check hashes again), and an unknown user is refused."""
    from solace_shell.ssh import server as ssh_server

    hashes: list[str] = []
    real = ssh_server.verify_password

    def counted(password: str, stored: str | None) -> bool:
        hashes.append(password)
        threading.Event().wait(0.2)  # long enough for every check to start before it ends
        return bool(real(password, stored))

    monkeypatch.setattr(ssh_server, "verify_password", counted)
    lab_server = server.server

    def at_once(user: str, password: str, count: int) -> list[bool]:
        async def everyone() -> list[bool]:
            return list(await asyncio.gather(*(lab_server.check_password(user, password) for _ in range(count))))

        return asyncio.run_coroutine_threadsafe(everyone(), server.loop).result(TIMEOUT)

    assert at_once("admin", "admin", 10) == [True] * 10
    assert hashes == ["admin"]
    assert at_once("admin", "wrong", 3) == [False] * 3
    assert at_once("admin", "wrong", 1) == [False]
    assert hashes == ["admin", "wrong", "wrong"]
    assert at_once("nobody", "admin", 2) == [False, False]
