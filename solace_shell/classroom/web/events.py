"""The class's changes, fanned out to every open class page.

The room calls `changed(lab)` from whichever thread recorded a line; the feed hands the name to the
event loop and returns. One task per feed gathers the labs changed in the last `batch_seconds`,
builds their tiles once (in a thread: grading reads the record), and gives the same rendered tiles
to every subscriber, so 100 trainees typing cost one tile build per changed lab per batch, however
many trainers watch, and no page polls the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

BATCH_SECONDS = 0.2
QUEUE_SIZE = 64  # a subscriber this far behind misses tiles; its next ones still come


class ClassFeed:
    def __init__(self, render: Callable[[list[str]], list[tuple[str, str]]],
                 batch_seconds: float = BATCH_SECONDS) -> None:
        """`render(labs)` -> [(lab, tile html)], called in a worker thread."""
        self.render = render
        self.batch_seconds = batch_seconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[str] = set()
        self._wake = asyncio.Event()
        self._subscribers: set[asyncio.Queue[list[tuple[str, str]]]] = set()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def changed(self, lab: str) -> None:
        """Thread-safe: a line or note of `lab` was recorded."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._mark, lab)
        except RuntimeError:  # the loop is closing
            pass

    def _mark(self, lab: str) -> None:
        self._pending.add(lab)
        self._wake.set()

    def subscribe(self) -> asyncio.Queue[list[tuple[str, str]]]:
        queue: asyncio.Queue[list[tuple[str, str]]] = asyncio.Queue(QUEUE_SIZE)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[list[tuple[str, str]]]) -> None:
        self._subscribers.discard(queue)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(self.batch_seconds)
            self._wake.clear()
            labs, self._pending = sorted(self._pending), set()
            if not labs or not self._subscribers:
                continue
            tiles = await asyncio.to_thread(self.render, labs)
            for queue in list(self._subscribers):
                if not queue.full():
                    queue.put_nowait(tiles)
