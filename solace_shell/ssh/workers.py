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
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import FrameType
from typing import TextIO

from .hostkey import HostKeyError, host_key_path_for, load_or_create_host_key

FREE_RUN_TRIES = 50


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
                serve_args: list[str] | None = None) -> int:
    """Start `workers` server processes on the lab's ports; wait for them; the exit status (the
    worst of theirs). The host key is made here, beside `lab_path`."""
    if routers == 0:
        sys.stderr.write("solace-shell: the lab has no routers to serve over SSH\n")
        return 2
    try:  # made here, once: workers starting together would race to create it
        load_or_create_host_key(host_key_path_for(lab_path))
    except HostKeyError as exc:
        sys.stderr.write(f"solace-shell: cannot use SSH host key {exc.path}: {exc.problem}\n")
        return 2
    if base_port == 0:
        try:
            base_port = free_run(host, max(routers, 1))
        except OSError as exc:
            sys.stderr.write(f"solace-shell: cannot listen on {host}: {exc}\n")
            return 2
    # what each worker runs (default: `serve` of the lab; a class gives `class serve CLASS.yaml ...`)
    serve_args = serve_args if serve_args is not None else ["--db", str(lab_path), "serve"]
    command = [sys.executable, "-m", "solace_shell.cli", *serve_args, "--listen", host,
               "--port", str(base_port), "--worker"]
    procs: list[subprocess.Popen[str]] = []

    def pass_on(signum: int, frame: FrameType | None) -> None:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)

    previous = {signum: signal.signal(signum, pass_on) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        for index in range(workers):
            procs.append(subprocess.Popen(command, stdin=subprocess.DEVNULL, text=True, env=dict(os.environ),
                                          stdout=subprocess.PIPE if index == 0 else subprocess.DEVNULL))
        first = procs[0]
        assert first.stdout is not None
        for line in first.stdout:  # the routers' lines, again after each change of the lab's routers
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
    return max(statuses) if statuses else 2
