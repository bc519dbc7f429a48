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

Why in order: the tables are written in name order, partition after partition; the jobs are
submitted in that order too, so Spark's FIFO scheduler starts them so (threads may swap two
neighbours, which only delays the driver's writing of one partition, never the rows' order).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")

CANCEL_POLL_SECONDS = 0.05  # how often an abandoned fetch cancels again until every job has ended


def window_for(cores: int) -> int:
    """How many partitions' jobs run or wait at once on `cores` cores."""
    return max(2, 2 * cores)


class InOrder(Generic[T]):
    """`fetch(k)` for k in 0..count-1, run on threads of its own, at most `window` at a time, the
    results yielded in k's order; `on_done()` is called as each fetch ends, in whatever order.

    Leaving the `with` block by an exception abandons the fetches: the ones not started never start,
    and `cancel()` (which cancels the run's Spark jobs) is called until every running one has ended,
    since a thread may submit its job just after a cancellation."""

    def __init__(self, fetch: Callable[[int], T], count: int, window: int, *, cancel: Callable[[], None],
                 on_done: Callable[[], None] | None = None) -> None:
        self._fetch, self._count, self._window = fetch, count, max(1, window)
        self._cancel, self._on_done = cancel, on_done
        self._pending: deque[Future[T]] = deque()
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
        future = self._pool.submit(self._fetch, k)
        if self._on_done is not None:
            on_done = self._on_done
            future.add_done_callback(lambda _: on_done())
        return future

    def _abandon(self) -> None:
        for future in self._pending:
            future.cancel()  # not started yet: it never will
        running = [f for f in self._pending if not f.cancelled()]
        while running:
            self._cancel()
            _, not_done = wait(running, timeout=CANCEL_POLL_SECONDS)
            running = list(not_done)
