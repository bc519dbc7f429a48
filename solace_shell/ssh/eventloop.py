"""The server's event loop: asyncio's, with `call_soon_threadsafe` made cheap on the loop's own thread.

Why: prompt_toolkit schedules every redraw, and every retry of a redraw it postpones while the
loop is busy, with `call_soon_threadsafe`, from the loop's own thread as often as not. asyncio's
writes a byte to the loop's wake-up socket each time (a system call, and another to read it back),
which is needed only to wake a loop waiting in `select` from another thread: on the loop's own
thread the loop is not waiting, and `call_soon` does the same without them. From any other thread
the call is asyncio's own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from contextvars import Context
from typing import Any, TypeVar

T = TypeVar("T")


class ServerEventLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose `call_soon_threadsafe` on its own thread is `call_soon`."""

    def __init__(self) -> None:
        super().__init__()
        self._running_on: int | None = None  # the thread running the loop now

    def run_forever(self) -> None:
        self._running_on = threading.get_ident()
        try:
            super().run_forever()
        finally:
            self._running_on = None

    def call_soon_threadsafe(self, callback: Callable[..., object], *args: Any,  # type: ignore[override]
                             context: Context | None = None) -> asyncio.Handle:
        # (typeshed types the arguments against the callback with a TypeVarTuple, which the
        # Python this project supports at the oldest cannot spell; the behaviour is asyncio's.)
        if self._running_on == threading.get_ident():
            return self.call_soon(callback, *args, context=context)
        return super().call_soon_threadsafe(callback, *args, context=context)


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on a `ServerEventLoop`: the same set-up and the same clean-up (tasks
    left are cancelled, asynchronous generators and the default executor shut down)."""
    loop = ServerEventLoop()
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main)
    finally:
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
