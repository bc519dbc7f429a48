"""A run's partitions brought to the driver in order: one Spark job per partition, a window of them
submitted ahead.

Why a job per partition: a Spark job is a barrier. With one job for a group of partitions (up to
16,384 transcripts), the driver got none of their rows until the slowest had ended, then wrote them
all while the cores waited, and a core that ended early waited for the group's last; on many cores
a group held fewer partitions than there were cores. A job per partition hands each partition over
as soon as it ends, so the driver writes partition k while later ones replay, and a core that ends
a partition finds the next already queued (`bench/bench_job_idle.py` measures the cores' idle time).

Why a window (`window_for`, two partitions per core): enough jobs queued that no core waits when
partitions end out of order, and a bound on what the driver holds: the rows of at most that many
partitions (about 2.5 KB per transcript, compressed).

Why in order: the tables are written in name order, partition after partition, and Spark's FIFO
scheduler starts jobs in the order they reach it. Threads that submit at the same moment reach it in
any order: the window's first jobs were seen to start as partitions 2, 1, 3, 0, and until partition
0 had ended the driver could write none of the others, nor submit more (the window was full). So
fetch k submits its job once fetch k-1's job has been seen submitted (`submitted(k - 1)`: Spark's
status tracker) or has ended, or after SUBMIT_WAIT_SECONDS: an order missed costs time, never rows.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor, wait
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")

CANCEL_POLL_SECONDS = 0.05  # how often an abandoned fetch cancels again until every job has ended
SUBMIT_POLL_SECONDS = 0.002  # how often a fetch looks whether the one before it has submitted its job
SUBMIT_WAIT_SECONDS = 2.0  # then it submits its own anyway


def window_for(cores: int) -> int:
    """How many partitions' jobs run or wait at once on `cores` cores."""
    return max(2, 2 * cores)


class InOrder(Generic[T]):
    """`fetch(k)` for k in 0..count-1, run on threads of its own, at most `window` at a time, the
    results yielded in k's order; `on_done()` is called as each fetch ends, in whatever order. With
    `submitted`, fetch k starts once `submitted(k - 1)` holds or fetch k-1 has ended.

    Leaving the `with` block by an exception abandons the fetches: the ones not started never start,
    and `cancel()` (which cancels the run's Spark jobs) is called until every running one has ended,
    since a thread may submit its job just after a cancellation."""

    def __init__(self, fetch: Callable[[int], T], count: int, window: int, *, cancel: Callable[[], None],
                 on_done: Callable[[], None] | None = None,
                 submitted: Callable[[int], bool] | None = None) -> None:
        self._fetch, self._count, self._window = fetch, count, max(1, window)
        self._cancel, self._on_done, self._submitted = cancel, on_done, submitted
        self._pending: deque[Future[T]] = deque()
        self._abandoned = threading.Event()
        self._pool = ThreadPoolExecutor(self._window, thread_name_prefix="conformance-jobs")

    def __enter__(self) -> InOrder[T]:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None:
            self._abandon()
        self._pool.shutdown(wait=True)

    def __iter__(self) -> Iterator[T]:
        submitted = 0
        for _ in range(self._count):
            while submitted < self._count and len(self._pending) < self._window:
                self._pending.append(self._submit(submitted))
                submitted += 1
            yield self._pending[0].result()
            self._pending.popleft()

    def _submit(self, k: int) -> Future[T]:
        before = self._pending[-1] if self._pending and self._submitted is not None else None
        future = self._pool.submit(self._fetch_after, k, before)
        if self._on_done is not None:
            on_done = self._on_done
            future.add_done_callback(lambda _: on_done())
        return future

    def _fetch_after(self, k: int, before: Future[T] | None) -> T:
        """fetch(k), once fetch k-1 (`before`, when still pending) has submitted its job or ended."""
        if before is not None and self._submitted is not None:
            deadline = time.monotonic() + SUBMIT_WAIT_SECONDS
            while not before.done() and not self._submitted(k - 1) and time.monotonic() < deadline:
                if self._abandoned.wait(SUBMIT_POLL_SECONDS):
                    break
        if self._abandoned.is_set():
            raise CancelledError(f"fetch {k} abandoned before its job was submitted")
        return self._fetch(k)

    def _abandon(self) -> None:
        self._abandoned.set()  # a fetch still waiting for its turn never submits its job
        for future in self._pending:
            future.cancel()  # not started yet: it never will
        running = [f for f in self._pending if not f.cancelled()]
        while running:
            self._cancel()
            _, not_done = wait(running, timeout=CANCEL_POLL_SECONDS)
            running = list(not_done)
