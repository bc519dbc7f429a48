"""SIGTERM handled like Ctrl-C by the batch commands (`replay`, `solace-conformance generate`).

Why: a process supervisor or a CI time-out sends SIGTERM, and Python's default for it ends the process
at once: no summary of what was done, and whatever was half-written stays so. Raised as a
`KeyboardInterrupt` subclass, it takes the path Ctrl-C already takes (report, clean up, exit 128 + the
signal) without a second one.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Stopped(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would raise KeyboardInterrupt."""

    signum = signal.SIGTERM


def stop_signal(interrupt: KeyboardInterrupt) -> signal.Signals:
    """Which signal an interrupt came from: SIGTERM for `Stopped`, else SIGINT (Ctrl-C)."""
    return signal.SIGTERM if isinstance(interrupt, Stopped) else signal.SIGINT


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM raises `Stopped`; the handler found is put back after it. Signals reach
    only the main thread, so elsewhere the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Stopped()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
