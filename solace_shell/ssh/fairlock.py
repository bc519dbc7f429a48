"""A reentrant lock handed to its waiters in the order they came.

Why: every transaction on the SSH server's store runs under one lock, and a session running a
long stream of commands (an exec request of thousands of lines) takes it again as soon as it lets
it go. `threading.RLock` gives it to whichever thread runs first, which is most often the one that
just released it (it holds the interpreter), so the trainer's command, or a login's read of the
lab, could wait behind hundreds of the stream's commands. Handed over in arrival order, a waiter
waits for the commands of the threads ahead of it once each.
"""

from __future__ import annotations

import threading
from collections import deque


class FairRLock:
    """A reentrant lock (as `threading.RLock`: `acquire`, `release`, `with`) whose waiters get it
    first come, first served."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._owner: int | None = None
        self._depth = 0
        self._waiters: deque[tuple[int, threading.Lock]] = deque()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        me = threading.get_ident()
        with self._mutex:
            if self._owner == me:
                self._depth += 1
                return True
            if self._owner is None and not self._waiters:
                self._owner, self._depth = me, 1
                return True
            if not blocking:
                return False
            turn = threading.Lock()
            turn.acquire()
            self._waiters.append((me, turn))
        if turn.acquire(timeout=timeout) if timeout >= 0 else turn.acquire():
            return True  # handed over by `release`
        with self._mutex:
            if self._owner == me:  # handed over just as the wait ran out
                return True
            self._waiters.remove((me, turn))
            return False

    def release(self) -> None:
        with self._mutex:
            if self._owner != threading.get_ident():
                raise RuntimeError("cannot release un-acquired lock")
            self._depth -= 1
            if self._depth:
                return
            if self._waiters:
                self._owner, turn = self._waiters.popleft()
                self._depth = 1
                turn.release()
            else:
                self._owner = None

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
