"""Hostile input against `solace-shell serve`, and a trainer's command latency meanwhile, for
tests/ssh/test_ssh_input.py and bench/bench_ssh_attacks.py.

The server runs as the trainer runs it, `solace-shell --db LAB serve --port 0` in a child process
(its own interpreter: the clients here never take its interpreter lock). Each attack is a logged-in
user's client doing what the server must take without a stall, until it is told to stop:

- `paste`: a read-only user pastes about 70 KB of lines without bracketed-paste markers (one
  `show current-config`, then `show hostname`s), again and again (reading its output);
- `exec_stdin`: exec requests of 200 commands, each sent 100 KB on its standard input;
- `long_line`: one line of 30 KB typed without bracketed-paste markers, then Enter, again and again;
- `execs_closed`: 24 exec requests of 3,000 long commands each, their connections closed after a
  moment, in waves.

The trainer is another session (`admin` at a prompt): `trainer_latencies` times its `show hostname`
from Enter to the next prompt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import paramiko  # type: ignore[import-untyped]

from tests.support.ssh_clients import TIMEOUT, Shell, connect

ROOT = Path(__file__).resolve().parents[2]
NY = "NY_Appliance1"
PASTE_BYTES = 70 * 1024
EXEC_STDIN_BYTES = 100 * 1024
LONG_LINE_CHARS = 30 * 1024
EXECS_AT_ONCE = 24
EXEC_COMMANDS = 3000
ATTACKS = ("paste", "exec_stdin", "long_line", "execs_closed")


class Served:
    """`solace-shell --db LAB serve --port 0 [ARGS]` in a child process; its log in a file (a pipe
    nobody reads would fill and stop it)."""

    def __init__(self, lab: Path, *args: str, tree: Path = ROOT) -> None:
        self.log_file = tempfile.NamedTemporaryFile("w+", prefix="serve-", suffix=".log", delete=False)  # noqa: SIM115
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([sys.executable, "-m", "solace_shell.cli", "--db", str(lab), "serve",
                                      "--port", "0", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.log_file, text=True, env=env)
        assert self.proc.stdout is not None
        self.lines = [self.proc.stdout.readline() for _ in range(2)]
        self.ports = {line.split()[0]: int(line.split()[3]) for line in self.lines if line.strip()}

    def cpu_seconds(self) -> float:
        """CPU time the server process has used so far (user + system; Linux)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @property
    def log(self) -> str:
        return Path(self.log_file.name).read_text()

    def stop(self, signum: int = signal.SIGTERM, timeout: float = TIMEOUT) -> int:
        """Send `signum`; the exit status (TimeoutExpired when it does not end in `timeout` s)."""
        self.proc.send_signal(signum)
        return self.proc.wait(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)
        self.log_file.close()
        os.unlink(self.log_file.name)


@contextlib.contextmanager
def served(lab: Path, *args: str, tree: Path = ROOT) -> Iterator[Served]:
    server = Served(lab, *args, tree=tree)
    try:
        yield server
    finally:
        server.close()


def p99(samples: list[float]) -> float:
    """The 99th percentile (the largest of fewer than a hundred samples)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def trainer_latencies(shell: Shell, count: int, pause: float = 0.05) -> list[float]:
    """Seconds from Enter to the next prompt for `count` `show hostname`s, `pause` apart."""
    seconds = []
    for _ in range(count):
        started = time.monotonic()
        assert shell.command("show hostname") == f"Hostname: {NY}"
        seconds.append(time.monotonic() - started)
        time.sleep(pause)
    return seconds


class _Attack:
    """One attack's clients: closed by `end` (a client blocked writing to a server that stopped
    reading it is freed only so)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.stop = threading.Event()
        self.clients: list[paramiko.SSHClient] = []
        self.lock = threading.Lock()

    def connect(self, user: str = "monitor") -> paramiko.SSHClient:
        client = connect(self.port, user, user)
        with self.lock:
            if self.stop.is_set():
                client.close()
                raise EOFError("the attack is over")
            self.clients.append(client)
        return client

    def shell(self) -> paramiko.Channel:
        """A logged-in shell at its first prompt (a person pastes once the prompt shows), its
        output read and forgotten by a thread of its own."""
        shell = Shell(self.connect())
        shell.login_text()
        shell.chan.settimeout(None)
        threading.Thread(target=_drain, args=(shell.chan,), daemon=True).start()
        return shell.chan

    def close(self, client: paramiko.SSHClient) -> None:
        with self.lock:
            if client in self.clients:
                self.clients.remove(client)
        client.close()

    def end(self) -> None:
        with self.lock:
            self.stop.set()
            clients, self.clients = self.clients, []
        for client in clients:
            client.close()


def _drain(chan: paramiko.Channel) -> None:
    """Read and forget what the server sends on `chan` until it is closed."""
    try:
        while chan.recv(65536):
            pass
    except (OSError, EOFError, paramiko.SSHException):
        pass


def _paste(attack: _Attack) -> None:
    chan = attack.shell()
    # The first line's command runs while the rest arrives: the rest waits for the next prompt.
    block = b"show current-config\r" + b"show hostname\r" * (PASTE_BYTES // len(b"show hostname\r"))
    while not attack.stop.is_set():
        chan.sendall(block)


def _long_line(attack: _Attack) -> None:
    chan = attack.shell()
    line = b"show " + b"x" * LONG_LINE_CHARS + b"\r"
    while not attack.stop.is_set():
        chan.sendall(line)


def _exec_stdin(attack: _Attack) -> None:
    client = attack.connect()
    while not attack.stop.is_set():
        chan = client.get_transport().open_session()
        chan.exec_command("\n".join(["show current-config"] * 200))  # still running when the input comes
        chan.sendall(b"y" * EXEC_STDIN_BYTES)
        chan.shutdown_write()
        _drain(chan)
        chan.close()


def _execs_closed(attack: _Attack) -> None:
    command = "\n".join(["show current-config"] * EXEC_COMMANDS)
    while not attack.stop.is_set():
        clients = []
        try:
            for _ in range(EXECS_AT_ONCE):
                clients.append(attack.connect())
                clients[-1].get_transport().open_session().exec_command(command)
            attack.stop.wait(0.5)
        finally:
            for client in clients:
                attack.close(client)


_RUNS: dict[str, Callable[[_Attack], None]] = {
    "paste": _paste, "exec_stdin": _exec_stdin, "long_line": _long_line, "execs_closed": _execs_closed}


def _run(kind: str, attack: _Attack) -> None:
    with contextlib.suppress(OSError, EOFError, paramiko.SSHException):  # the attack ended under it
        _RUNS[kind](attack)


@contextlib.contextmanager
def attacking(kind: str, port: int, settle: float = 1.0) -> Iterator[_Attack]:
    """Run attack `kind` against `port` in a thread until the block ends (`settle` s to start)."""
    attack = _Attack(port)
    thread = threading.Thread(target=_run, args=(kind, attack), daemon=True)
    thread.start()
    time.sleep(settle)
    try:
        yield attack
    finally:
        attack.end()
        thread.join(TIMEOUT)


@dataclass(frozen=True)
class Measured:
    """A trainer's command latencies (seconds) on a quiet server and under one attack, same run."""

    attack: str
    quiet: list[float]
    loud: list[float]

    @property
    def ratio(self) -> float:
        """p99 under attack / p99 quiet."""
        return p99(self.loud) / p99(self.quiet)

    def bounded(self, times: float = 10.0, plus: float = 3.0) -> bool:
        """The trainer's p99 under attack within `times` x its quiet p99 + `plus` seconds."""
        return p99(self.loud) < times * p99(self.quiet) + plus

    def line(self) -> str:
        return (f"{self.attack:<13} quiet p50 {statistics.median(self.quiet) * 1000:6.0f} ms p99 "
                f"{p99(self.quiet) * 1000:6.0f} ms | attack p50 {statistics.median(self.loud) * 1000:6.0f} ms p99 "
                f"{p99(self.loud) * 1000:6.0f} ms | p99 ratio {self.ratio:5.1f}")


def measure(kind: str, port: int, count: int = 20) -> Measured:
    """The trainer's latencies quiet, then under attack `kind`, in the same run."""
    trainer = Shell(connect(port, "admin", "admin"))
    try:
        trainer.login_text()
        trainer_latencies(trainer, 10, pause=0.15)  # warm: the first seconds of a server build caches
        quiet = trainer_latencies(trainer, count)
        with attacking(kind, port):
            loud = trainer_latencies(trainer, count)
    finally:
        trainer.close()
    return Measured(kind, quiet, loud)
