"""`solace-shell serve --workers N`: N server processes on the same ports, so that a classroom's
typing uses every core.

Why processes: what a session costs is prompt_toolkit's work per key and per redraw and the SSH
transport's, all Python under one interpreter lock; one process uses one core however many threads
it has. Each worker is a whole `solace-shell serve` (its own event loop, password threads, command
threads and lab store) listening with SO_REUSEPORT on the same ports: the kernel spreads new
connections over the workers, and a connection stays with its worker. The lab file is shared as
two local shells share it (the store serializes writers across processes), so every session sees
every other's changes at its next command, whichever worker serves it.

What is per worker: the limits of `guard` (tries, delays and lock-outs count within one worker, so a
guesser spread over N workers gets up to N times the tries before a lock-out) and `max_startups`.

The parent starts the workers, prints the first worker's lines (one per router), and passes
SIGINT/SIGTERM on to all of them. With `--port 0` it first finds a free run of ports, so that every
worker (and every later `lab> reset`) plans the same ports.

A worker ends with its parent, however the parent ends (killed with SIGKILL, too), so no worker
is left holding the ports: each worker's standard input is a pipe the parent never writes to, and
the worker stops when it reads the end of it, which the kernel gives as soon as the parent is gone
(`watch_parent`). A worker whose standard input is no pipe looks whether its parent changed, once
a second.

A database URL (`class serve --db URL`) can carry a password, so it is never on a worker's command
line (which `ps` shows every user) nor in its environment (which a worker's children inherit):
each worker reads it from a pipe of its own that the parent fills and closes before starting it,
named on the command line only by its descriptor number (`--db-fd N`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

from .hostkey import HostKeyError, host_key_path_for, load_or_create_host_key

FREE_RUN_TRIES = 50
# How often a worker without a pipe from its parent looks whether the parent is still there.
PARENT_POLL_SECONDS = 1.0
# A secret handed to a worker through a pipe is written whole before the worker starts; Linux's
# pipes hold 64 KiB, and a database URL is far shorter.
MAX_SECRET_BYTES = 16_384
# Starts on another run of free ports when a port chosen for `--port 0` was taken meanwhile.
PORT_RACE_TRIES = 3


def free_run(host: str, count: int) -> int:
    """The first of `count` consecutive ports free on `host` now (checked by binding each)."""
    for _ in range(FREE_RUN_TRIES):
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.bind((host, 0))
            first = int(probe.getsockname()[1])
        if first + count - 1 > 65535:
            continue
        held: list[socket.socket] = []
        try:
            for port in range(first, first + count):
                sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
                held.append(sock)
                sock.bind((host, port))
            return first
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
    raise OSError("no run of free ports found")


def run_workers(lab_path: Path, host: str, base_port: int, workers: int, routers: int, out: TextIO,
                serve_args: list[str] | None = None, db_url: str | None = None,
                env_drop: tuple[str, ...] = ()) -> int:
    """Start `workers` server processes on the lab's ports; wait for them; the exit status (the
    worst of theirs). The host key is made here, beside `lab_path`. `db_url` (a secret) reaches
    each worker through a pipe (`secret_pipe`, `--db-fd N` appended to its command line);
    `env_drop` names variables of this process's environment the workers must not inherit."""
    if routers == 0:
        sys.stderr.write("solace-shell: the lab has no routers to serve over SSH\n")
        return 2
    try:  # made here, once: workers starting together would race to create it
        load_or_create_host_key(host_key_path_for(lab_path))
    except HostKeyError as exc:
        sys.stderr.write(f"solace-shell: cannot use SSH host key {exc.path}: {exc.problem}\n")
        return 2
    # what each worker runs (default: `serve` of the lab; a class gives `class serve CLASS.yaml ...`)
    serve_args = serve_args if serve_args is not None else ["--db", str(lab_path), "serve"]
    env = {name: value for name, value in os.environ.items() if name not in env_drop}
    # Ports this process chose (`--port 0`) were free when it looked, but another program may bind
    # one of them before the workers do (a client's ephemeral port): then the workers start again
    # on another free run, a few times, before the failure is the command's.
    for _ in range(PORT_RACE_TRIES if base_port == 0 else 1):
        port = base_port
        if base_port == 0:
            try:
                port = free_run(host, max(routers, 1))
            except OSError as exc:
                sys.stderr.write(f"solace-shell: cannot listen on {host}: {exc}\n")
                return 2
        command = [sys.executable, "-m", "solace_shell.cli", *serve_args, "--listen", host,
                   "--port", str(port), "--worker"]
        status, served = _serve_workers(command, workers, db_url, env, out)
        if served or status == 0:
            return status
    return status


def _serve_workers(command: list[str], workers: int, db_url: str | None, env: dict[str, str],
                   out: TextIO) -> tuple[int, bool]:
    """Run `workers` processes of `command` until the first one ends; (the worst exit status,
    whether the first printed its routers' lines, i.e. had its ports)."""
    procs: list[subprocess.Popen[str]] = []

    def pass_on(signum: int, frame: FrameType | None) -> None:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)

    previous = {signum: signal.signal(signum, pass_on) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        for index in range(workers):
            # stdin: the worker's lifeline (`watch_parent`); nothing is ever written to it.
            fds: tuple[int, ...] = ()
            extra: list[str] = []
            if db_url is not None:
                fds = (secret_pipe(db_url),)
                extra = ["--db-fd", str(fds[0])]
            try:
                procs.append(subprocess.Popen([*command, *extra], stdin=subprocess.PIPE, text=True, env=env,
                                              pass_fds=fds,
                                              stdout=subprocess.PIPE if index == 0 else subprocess.DEVNULL))
            finally:
                for fd in fds:
                    os.close(fd)
        first = procs[0]
        assert first.stdout is not None
        served = False
        for line in first.stdout:  # the routers' lines, again after each change of the lab's routers
            served = True
            out.write(line)
            out.flush()
        first.wait()
        pass_on(signal.SIGTERM, None)  # the first worker stopped (a signal, or a port it could not have)
        statuses = [proc.wait() for proc in procs]
    finally:
        pass_on(signal.SIGTERM, None)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=60)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return (max(statuses) if statuses else 2), served


def secret_pipe(secret: str) -> int:
    """The read end of a new pipe holding `secret` (UTF-8), its write end already closed: a
    child given it (`pass_fds`) reads the secret to the end of the pipe (`read_secret`)."""
    data = secret.encode()
    if len(data) > MAX_SECRET_BYTES:  # written before any reader runs: it must fit in the pipe
        raise ValueError("secret too long for a pipe")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    return read_end


def read_secret(fd: int) -> str:
    """What the parent wrote into the pipe `fd` (`secret_pipe`); the descriptor is closed.
    `OSError` when it is no such pipe; `UnicodeDecodeError` when it is not text."""
    chunks: list[bytes] = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode()


def watch_parent(parent_gone: Callable[[], None]) -> Callable[[], None]:
    """Call `parent_gone` (once) on the running event loop when this worker's parent has ended;
    returns the function that stops watching. Standard input a pipe: its end (or an error) means
    the parent closed it or is gone. Otherwise: the parent process id changing (the worker was
    handed to another parent), looked at every `PARENT_POLL_SECONDS`."""
    loop = asyncio.get_running_loop()
    try:
        fd = sys.stdin.fileno()
        piped = stat.S_ISFIFO(os.fstat(fd).st_mode)
    except (AttributeError, ValueError, OSError):  # no standard input (or not a real one)
        fd, piped = -1, False
    called = False

    def gone() -> None:
        nonlocal called
        if not called:
            called = True
            parent_gone()

    if piped:
        def readable() -> None:
            try:
                ended = not os.read(fd, 4096)
            except OSError:
                ended = True
            if ended:
                loop.remove_reader(fd)
                gone()

        def unwatch_pipe() -> None:
            loop.remove_reader(fd)

        loop.add_reader(fd, readable)
        return unwatch_pipe

    parent = os.getppid()
    handles: list[asyncio.TimerHandle] = []

    def look() -> None:
        if os.getppid() != parent:
            gone()
        else:
            handles[:] = [loop.call_later(PARENT_POLL_SECONDS, look)]

    def unwatch_parent() -> None:
        for handle in handles:
            handle.cancel()

    handles.append(loop.call_later(PARENT_POLL_SECONDS, look))
    return unwatch_parent
