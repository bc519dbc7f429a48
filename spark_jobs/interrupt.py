"""Stopping a run with Ctrl-C or SIGTERM: its Spark jobs cancelled, its output left as it was, one line.

Why the signal only sets a flag here, instead of raising KeyboardInterrupt (Python's default) or keeping
PySpark's own SIGINT handler: the driver spends a run inside Py4J calls (a Spark job is one blocking
call). An exception raised in the middle of one leaves that thread's Py4J connection with its answer
unread, and PySpark's handler cancels the jobs with a second Py4J call made from inside the first: a
reentrant read, three tracebacks, then a crash that took the Python workers down with it. Here a helper
thread cancels the run's job group through its own connection; the blocking call then returns Spark's
cancellation error, which the run turns into `Interrupted` at its next step.

Signals reach only the main thread, so a run started from another thread keeps the handlers it found.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from types import FrameType, TracebackType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
RECANCEL_SECONDS = 0.5


class Interrupted(Exception):
    """A run stopped by a signal: its Spark jobs were cancelled and nothing it wrote was kept."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"interrupted ({signal.Signals(signum).name})")

    @property
    def exit_status(self) -> int:
        """As a shell reports a process that a signal ended: 128 + the signal's number."""
        return 128 + self.signum


class StopOnSignals:
    """While open: SIGINT and SIGTERM are recorded, `cancel()` runs at once in a helper thread, and
    `check()` raises `Interrupted` at the run's safe points. On leaving with an error after a signal,
    the error (Spark's "job cancelled") becomes `Interrupted`."""

    def __init__(self, cancel: Callable[[], None], signums: Sequence[int] = STOP_SIGNALS) -> None:
        self._cancel = cancel
        self._signums = signums
        self._previous: dict[int, object] = {}
        self._requested = threading.Event()
        self._wake = threading.Event()  # the run is over: the helper stops cancelling
        self._closing = False
        self._helper: threading.Thread | None = None
        self.signum: int | None = None

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self._signums:
                self._previous[signum] = signal.signal(signum, self._record)
            self._helper = threading.Thread(target=self._cancel_when_asked, name="conformance-stop", daemon=True)
            self._helper.start()
        return self

    def check(self) -> None:
        """Raise `Interrupted` when a signal came."""
        if self.signum is not None:
            raise Interrupted(self.signum)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]  # what signal.signal returned
        self._closing = True
        self._requested.set()
        self._wake.set()
        if self._helper is not None:
            self._helper.join(timeout=10)
        if self.signum is not None and isinstance(error, Exception) and not isinstance(error, Interrupted):
            raise Interrupted(self.signum) from None  # the signal's consequence, not a failure of its own

    def _record(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        self._requested.set()

    def _cancel_when_asked(self) -> None:
        """Cancel at once, then again every RECANCEL_SECONDS until the run ends: a job the run submitted
        just as the signal came, after its last `check()`, is cancelled too."""
        self._requested.wait()
        while not self._closing:
            try:
                self._cancel()
            except Exception:  # the session may be stopping on its own; the run still ends as interrupted
                pass
            self._wake.wait(RECANCEL_SECONDS)
