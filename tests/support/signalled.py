"""A command of this checkout stopped by a signal while it works, as a user or a supervisor stops it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def stop_when_ready(module_args: Sequence[str], ready: Callable[[], bool], signum: int, *,
                    env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, str, str]:
    """Run `python -m <module_args>` in a process group of its own; once `ready()`, send `signum` as a
    terminal sends Ctrl-C (SIGINT to the whole group, child processes included), as a supervisor
    sends SIGTERM (to the command alone), or as a machine that goes away ends everything (SIGKILL to
    the whole group: no child process goes on writing). Returns (exit status, stdout, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", *module_args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline and not ready():
            time.sleep(0.02)
        assert proc.poll() is None, "the command finished before it could be stopped"
        if signum in (signal.SIGINT, signal.SIGKILL):
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, stdout, stderr
