"""Helpers for the SSH tests: a lab server on its own event-loop thread, and a paramiko shell that
reads a prompt_toolkit screen one command at a time.

How a command's output is found without sleeping: prompt_toolkit turns bracketed paste on
(ESC[?2004h) when it starts reading a line and off (ESC[?2004l) when the line is accepted, so the
output of a command is what arrives between the first ESC[?2004l after sending it and the next
ESC[?2004h.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncssh
import paramiko  # type: ignore[import-untyped]

from solace_shell.ssh.eventloop import ServerEventLoop
from solace_shell.ssh.hostkey import host_key_path_for, load_or_create_host_key
from solace_shell.ssh.server import FOLLOW_SECONDS, LabServer, Listener
from solace_shell.ssh.session import CPR_PROBE_SECONDS
from solace_shell.ssh.store import SerializedStore

TIMEOUT = 60.0  # generous: a 2-core machine shared with other test runs
PROMPT_ON = "\x1b[?2004h"
PROMPT_OFF = "\x1b[?2004l"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text).replace("\r", "")


class ServerThread:
    """A `LabServer` on 127.0.0.1, any free ports, served by an event loop on its own thread."""

    def __init__(self, lab_path: Path, cpr_probe_seconds: float = CPR_PROBE_SECONDS,
                 follow_seconds: float = FOLLOW_SECONDS) -> None:
        self.lab_path = lab_path
        self.store = SerializedStore.open(lab_path)
        assert isinstance(self.store, SerializedStore)
        self.server = LabServer(self.store, load_or_create_host_key(host_key_path_for(lab_path)),
                                cpr_probe_seconds, follow_seconds)
        self.loop = ServerEventLoop()  # the event loop `solace-shell serve` runs on
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start("127.0.0.1", 0), self.loop).result(TIMEOUT)

    @property
    def listeners(self) -> list[Listener]:
        """The server's listeners now (it follows the lab's routers)."""
        return self.server.listeners

    def port(self, router: str) -> int:
        return next(listener.port for listener in self.listeners if listener.router == router)

    def close(self) -> None:
        """Stop the server, then wait for the commands its sessions still run in worker threads
        (as `solace-shell serve` does, `eventloop.run`) before the store is closed under them."""
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(TIMEOUT)
        asyncio.run_coroutine_threadsafe(self.loop.shutdown_default_executor(), self.loop).result(TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(TIMEOUT)
        self.loop.close()
        self.store.close()


@contextmanager
def serving(lab_path: Path, cpr_probe_seconds: float = CPR_PROBE_SECONDS,
            follow_seconds: float = FOLLOW_SECONDS) -> Iterator[ServerThread]:
    server = ServerThread(lab_path, cpr_probe_seconds, follow_seconds)
    try:
        yield server
    finally:
        server.close()


def openssh_args(port: int, user: str) -> list[str]:
    """The OpenSSH client's arguments for a password login to a loopback test server: no user
    configuration, no host key checks, no key or GSSAPI attempts, one password prompt."""
    return ["-F", "/dev/null", "-p", str(port), "-o", "StrictHostKeyChecking=no",
            "-o", "UserKnownHostsFile=/dev/null", "-o", "PubkeyAuthentication=no",
            "-o", "GSSAPIAuthentication=no", "-o", "NumberOfPasswordPrompts=1", f"{user}@127.0.0.1"]


def connect(port: int, user: str, password: str) -> paramiko.SSHClient:
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect("127.0.0.1", port=port, username=user, password=password, look_for_keys=False,
                   allow_agent=False, timeout=TIMEOUT, banner_timeout=TIMEOUT, auth_timeout=TIMEOUT)
    return client


def run_exec(port: int, user: str, password: str, command: str) -> tuple[int, str]:
    """(exit status, stdout) of one exec request."""
    client = connect(port, user, password)
    try:
        _, stdout, _ = client.exec_command(command, timeout=TIMEOUT)
        text = stdout.read().decode()
        return stdout.channel.recv_exit_status(), text
    finally:
        client.close()


class Shell:
    """An interactive paramiko shell (with a pty) on one router."""

    def __init__(self, client: paramiko.SSHClient, width: int = 80, height: int = 24,
                 answer_cpr: bool = False) -> None:
        self.client = client
        self.answer_cpr = answer_cpr  # answer cursor position requests, as a terminal emulator does
        self.chan = client.invoke_shell(term="xterm", width=width, height=height)
        self.chan.settimeout(TIMEOUT)
        self.raw = ""
        self.pos = 0  # what `until` has looked at

    def _read_until(self, marker: str, start: int) -> int:
        """Read until `marker` appears at or after `start`; its index in `self.raw`."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = self.raw.find(marker, start)
            if found >= 0:
                return found
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {marker!r} in {strip_ansi(self.raw[start:])!r}")
            self._recv(start)

    def _recv(self, start: int) -> None:
        data = self.chan.recv(65536)
        if not data:
            raise EOFError(f"connection closed; got {strip_ansi(self.raw[start:])!r}")
        text = data.decode("utf-8", "replace")
        self.raw += text
        if self.answer_cpr:
            self.chan.sendall(b"\x1b[1;1R" * text.count("\x1b[6n"))

    def login_text(self) -> str:
        """Everything up to the first prompt: the start banner and the prompt."""
        end = self._read_until(PROMPT_ON, 0)
        self.pos = end
        return strip_ansi(self.raw[:end])

    def send(self, text: str) -> None:
        self.chan.sendall(text.encode())

    def command(self, line: str) -> str:
        """Send `line` and Enter; the command's output (no prompt, no echo)."""
        start = len(self.raw)
        self.send(line + "\r")
        off = self._read_until(PROMPT_OFF, start)
        on = self._read_until(PROMPT_ON, off)
        self.pos = on
        return strip_ansi(self.raw[off + len(PROMPT_OFF):on]).strip("\n")

    def until(self, text: str) -> str:
        """Read until `text` shows on the (ANSI-stripped) screen; what arrived since the last look."""
        start = self.pos
        deadline = time.monotonic() + TIMEOUT
        while text not in strip_ansi(self.raw[start:]):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {text!r} in {strip_ansi(self.raw[start:])!r}")
            self._recv(start)
        self.pos = len(self.raw)
        return strip_ansi(self.raw[start:])

    def exit_status(self) -> int:
        return int(self.chan.recv_exit_status())

    def close(self) -> None:
        self.client.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AsyncShell:
    """An interactive asyncssh client shell (with a pty): many of them run in one event loop."""

    def __init__(self, conn: asyncssh.SSHClientConnection, proc: asyncssh.SSHClientProcess[str]) -> None:
        self.conn = conn
        self.proc = proc
        self.raw = ""
        self.pos = 0

    @classmethod
    async def open(cls, port: int, user: str, password: str, width: int = 80, height: int = 24) -> AsyncShell:
        conn = await asyncssh.connect("127.0.0.1", port, username=user, password=password, known_hosts=None,
                                      client_keys=None, agent_path=None, login_timeout=TIMEOUT)
        proc = await conn.create_process(term_type="xterm", term_size=(width, height))
        shell = cls(conn, proc)
        shell.pos = await shell._read_until(PROMPT_ON, 0)
        return shell

    async def _read_until(self, marker: str, start: int) -> int:
        while (found := self.raw.find(marker, start)) < 0:
            data = await asyncio.wait_for(self.proc.stdout.read(65536), TIMEOUT)
            if not data:
                raise EOFError(f"connection closed; got {strip_ansi(self.raw[start:])!r}")
            self.raw += data
        return found

    async def until(self, text: str) -> None:
        """Wait for `text` to be drawn (e.g. the `lab>` prompt after F2)."""
        self.pos = await self._read_until(text, self.pos) + len(text)

    async def command(self, line: str, *, prints: bool = False) -> str:
        """Send `line` and Enter; the command's output (see the module docstring). With `prints`,
        a prompt cycle with no output (a redraw of the prompt, e.g. just after F2 switched
        prompts) is skipped: the command is known to print something."""
        start = len(self.raw)
        self.proc.stdin.write(line + "\r")
        while True:
            off = await self._read_until(PROMPT_OFF, start)
            on = await self._read_until(PROMPT_ON, off)
            self.pos = on
            out = strip_ansi(self.raw[off + len(PROMPT_OFF):on]).strip("\n")
            if out or not prints:
                return out
            start = on

    def send(self, text: str) -> None:
        self.proc.stdin.write(text)

    async def close(self) -> None:
        self.conn.close()
        await self.conn.wait_closed()


def server_errors(err: str, lines: int = 40) -> str:
    """What a served process said on standard error other than its INFO log lines (its last
    `lines`): the message of a test that finds it ended otherwise than it should."""
    return "\n".join([line for line in err.splitlines() if " INFO " not in line][-lines:])
