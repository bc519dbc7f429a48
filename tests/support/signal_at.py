"""`solace-conformance` with a stop signal sent at a chosen point of a drill's recording, for the tests
that must not depend on when a signal happens to arrive.

Usage: python -m tests.support.signal_at <point> <nth> <signal> <flag-file> <solace-conformance args...>

<point> is where the signal is sent, once, by the first process (a recording worker, or the command
itself with `--jobs 1`) to reach it for its <nth> drill:
  staged    the recorder has just made the hidden staging file of a drill's partial transcript
  renaming  the drill is recorded whole, just before it is renamed into place
<signal> is INT (to the whole process group, as a terminal sends Ctrl-C) or TERM (to the command
alone, as a supervisor sends it). <flag-file> is created as the signal is sent and holds the drill's
transcript name, so the test knows which drill was being recorded.

The hooks are installed when this module is imported, so workers that import it again (the spawn and
forkserver start methods re-import the main module) have them too.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from typing import Any

COMMAND_PID = "SIGNAL_AT_COMMAND_PID"
PARTIAL = ".partial"
TRANSCRIPT = ".cli.txt"


def send_once(flag: str, drill: str, signum: int) -> None:
    """Send `signum` unless it was sent already (by any process of the command)."""
    try:
        fd = os.open(flag, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return
    os.write(fd, drill.encode())
    os.close(fd)
    if signum == signal.SIGINT:
        os.killpg(0, signum)
    else:
        os.kill(int(os.environ[COMMAND_PID]), signum)


def install(point: str, nth: int, signum: int, flag: str) -> None:
    reached = 0

    def at_point(drill: str) -> None:
        nonlocal reached
        reached += 1
        if reached == nth:
            send_once(flag, drill, signum)

    if point == "staged":
        real_mkstemp = tempfile.mkstemp

        def mkstemp(*args: Any, **kwargs: Any) -> Any:
            made = real_mkstemp(*args, **kwargs)
            prefix = str(kwargs.get("prefix", ""))
            if prefix.endswith(f"{TRANSCRIPT}{PARTIAL}."):  # the recorder's staging file of `_<drill>.partial`
                at_point(prefix[2:-len(PARTIAL) - 1])
            return made

        tempfile.mkstemp = mkstemp
    elif point == "renaming":
        real_replace = os.replace

        def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            if str(src).endswith(PARTIAL) and str(dst).endswith(TRANSCRIPT):
                at_point(os.path.basename(dst))
            real_replace(src, dst, *args, **kwargs)

        os.replace = replace
    else:
        raise SystemExit(f"unknown point {point!r}")


if len(sys.argv) > 4:
    install(sys.argv[1], int(sys.argv[2]), signal.Signals[f"SIG{sys.argv[3]}"], sys.argv[4])

if __name__ == "__main__":
    os.environ[COMMAND_PID] = str(os.getpid())
    from spark_jobs.cli import main

    main(args=sys.argv[5:], prog_name="solace-conformance")
