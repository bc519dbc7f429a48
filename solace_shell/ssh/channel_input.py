"""A session's keys, as prompt_toolkit reads them: a bounded queue fed by the SSH channel, read a
little at a time.

Why not prompt_toolkit's pipe input: writing a client's data into an OS pipe blocks the whole event
loop once the pipe is full (64 KiB), and nothing empties it while no prompt waits (a command runs,
an exec). Here the channel's data goes into a queue in memory, never a system call:

- Bounded: past `QUEUE_HIGH_CHARS` waiting, `hold(True)` is called (the session stops reading its
  channel, so SSH flow control makes the client wait); below `QUEUE_LOW_CHARS`, `hold(False)`.
- Fair: each time the prompt reads, it gets at most `KEYS_PER_PASS` characters (a bracketed paste,
  which costs no key lookups, `PASTE_CHARS_PER_PASS`); the rest waits for the event loop's next
  pass, after every other session's ready work. prompt_toolkit handles each key on the event loop,
  so one client sending keys as fast as it can would otherwise hold the loop until all were handled.
- While keys wait beyond what the prompt reads in one pass, the prompt redraws its line at most
  every `REDRAW_SECONDS_WHILE_BEHIND` (drawing a long line costs far more than handling a few keys:
  a client typing a line of thousands of characters at once would have it drawn after every few
  keys); it is drawn at once when the keys are all handled.
- A bracketed paste is handed on in pieces of at most `MAX_PASTE_PIECE` characters (prompt_toolkit's
  parser would keep a paste without its end mark in memory without bound).

A printable key typed at the end of the prompt's line, when nothing else is pending, is handled as
it arrives without a redraw (fast_echo.py); every other key goes through the queue.

An exception raised while the keys are handled (a key binding, the line's accept handler) goes to
`on_failure`, which ends that session alone, instead of to the event loop's handler.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_or_none
from prompt_toolkit.input import Input, typeahead
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from .fast_echo import FastEcho

# Characters waiting before the channel stops being read, and when it is read again.
QUEUE_HIGH_CHARS = 16 * 1024
QUEUE_LOW_CHARS = 4 * 1024
# Characters the prompt handles per pass of the event loop: keys (each looked up in the key
# bindings, and the line redrawn after them) and the body of a bracketed paste.
KEYS_PER_PASS = 8
PASTE_CHARS_PER_PASS = 8 * 1024
# The longest piece of a bracketed paste handed on at once (longer than any line may be, so a line
# too long is refused whole).
MAX_PASTE_PIECE = 64 * 1024
_PASTE_END = "\x1b[201~"
# How often the line is redrawn while keys wait beyond one pass's share.
REDRAW_SECONDS_WHILE_BEHIND = 0.5


class _BoundedPasteParser(Vt100Parser):
    """prompt_toolkit's parser, handing a long bracketed paste on in pieces of `MAX_PASTE_PIECE`."""

    @property
    def in_paste(self) -> bool:
        return bool(getattr(self, "_in_bracketed_paste", False))

    def feed(self, data: str) -> None:
        super().feed(data)
        held = getattr(self, "_paste_buffer", "")
        if self.in_paste and len(held) > MAX_PASTE_PIECE:
            keep = len(_PASTE_END) - 1  # the start of an end mark the next data completes
            self._paste_buffer = held[-keep:]
            self.feed_key_callback(KeyPress(Keys.BracketedPaste, held[:-keep]))


class ChannelInput(Input):
    """prompt_toolkit input fed by `feed` (the channel's data); see the module docstring."""

    _count = 0

    def __init__(self, hold: Callable[[bool], None], on_failure: Callable[[BaseException], None]) -> None:
        ChannelInput._count += 1
        self._id = ChannelInput._count
        self._hold = hold
        self._on_failure = on_failure
        self._queue: deque[str] = deque()
        self._queued = 0
        self._held = False
        self._eof = False
        self._callbacks: list[Callable[[], None] | None] = []  # attached, innermost last (None: detached)
        # the application that attached each callback, and its context (None: detached)
        self._readers: list[tuple[Application[Any], contextvars.Context] | None] = []
        self._fast = FastEcho()
        self._parser_may_hold = False  # the last data parsed may have left a partial key sequence
        self._scheduled: asyncio.Handle | None = None
        self._keys: list[KeyPress] = []
        self._parser = _BoundedPasteParser(self._keys.append)
        self._throttled: Application[Any] | None = None  # the prompt whose redraws are spaced out

    # -- fed by the channel ---------------------------------------------------------------------------
    @property
    def queued(self) -> int:
        """Characters received and not yet read by the prompt."""
        return self._queued

    def feed(self, text: str) -> None:
        """Queue the client's `text`; hold the channel when too much waits."""
        if self._eof or not text:
            return
        if not self._queue and not self._parser_may_hold and self._readers and self._readers[-1] is not None:
            app, context = self._readers[-1]
            try:
                taken = context.copy().run(self._take_fast, app, text)
            except Exception as exc:  # noqa: BLE001  charged to this session alone
                self._on_failure(exc)
                return
            text = text[taken:]
            if not text:
                return
        self._queue.append(text)
        self._queued += len(text)
        if self._queued > QUEUE_HIGH_CHARS and not self._held:
            self._held = True
            self._hold(True)
        self._schedule()

    def _take_fast(self, app: Application[Any], text: str) -> int:
        """How many of `text`'s first characters the fast path handled (in the prompt's context)."""
        taken = 0
        for char in text:
            if not self._fast.take(app, char):
                break
            taken += 1
        return taken

    def close(self, discard: bool = False) -> None:
        """End of input: the prompt reads what is queued (nothing with `discard`), then EOF."""
        self._eof = True
        if discard:
            self._queue.clear()
            self._queued = 0
        self._schedule()

    def forget(self) -> None:
        """The session is over: drop what is queued, and the keys prompt_toolkit kept for this
        input's next prompt (its typeahead, held in a table of its own for the process's life)."""
        self.close(discard=True)
        typeahead.clear_typeahead(self)
        getattr(typeahead, "_buffer", {}).pop(self.typeahead_hash(), None)  # not even the empty entry

    # -- read by prompt_toolkit -----------------------------------------------------------------------
    def read_keys(self) -> list[KeyPress]:
        limit = PASTE_CHARS_PER_PASS if self._parser.in_paste else KEYS_PER_PASS
        taken: list[str] = []
        size = 0
        while self._queue and size < limit:
            text = self._queue.popleft()
            if size + len(text) > limit:
                cut = limit - size
                self._queue.appendleft(text[cut:])
                text = text[:cut]
            taken.append(text)
            size += len(text)
        self._queued -= size
        data = "".join(taken)
        self._parser.feed(data)
        self._parser_may_hold = "\x1b" in data or self._parser.in_paste
        keys = list(self._keys)
        self._keys.clear()
        if self._queue:
            self._schedule()  # the rest at the next pass of the event loop
        app = get_app_or_none()  # the prompt reading: keys are read in its context
        if app is not None:
            # 0, never None: a redraw already waiting on the interval subtracts from it when it wakes
            app.min_redraw_interval = REDRAW_SECONDS_WHILE_BEHIND if self._queue else 0
            self._throttled = app if self._queue else None
        if self._held and self._queued < QUEUE_LOW_CHARS:
            self._held = False
            self._hold(False)
        return keys

    def flush_keys(self) -> list[KeyPress]:
        self._parser.flush()
        self._parser_may_hold = False
        keys = list(self._keys)
        self._keys.clear()
        return keys

    @property
    def closed(self) -> bool:
        return self._eof and not self._queue

    def fileno(self) -> int:
        raise NotImplementedError("a channel's input has no file descriptor")

    def typeahead_hash(self) -> str:
        return f"ssh-channel-input-{self._id}"

    def raw_mode(self) -> AbstractContextManager[None]:
        return _nothing()

    def cooked_mode(self) -> AbstractContextManager[None]:
        return _nothing()

    def attach(self, input_ready_callback: Callable[[], None]) -> AbstractContextManager[None]:
        return self._attached(input_ready_callback)

    def detach(self) -> AbstractContextManager[None]:
        return self._attached(None)

    @contextmanager
    def _attached(self, callback: Callable[[], None] | None) -> Iterator[None]:
        self._callbacks.append(callback)
        app = get_app_or_none() if callback is not None else None
        self._readers.append((app, contextvars.copy_context()) if app is not None else None)
        self._schedule()
        try:
            yield
        finally:
            self._callbacks.pop()
            self._readers.pop()
            if callback is not None and self._throttled is not None:
                # the prompt is done reading: its next run draws at once until it falls behind
                self._throttled.min_redraw_interval = 0
                self._throttled = None
            self._schedule()

    # -- the event loop -------------------------------------------------------------------------------
    def _schedule(self) -> None:
        """Have the attached prompt read at the next pass, when there is something to read."""
        if self._scheduled is not None or not (self._queue or self._eof):
            return
        if not self._callbacks or self._callbacks[-1] is None:
            return
        self._scheduled = asyncio.get_running_loop().call_soon(self._ready)

    def _ready(self) -> None:
        self._scheduled = None
        callback = self._callbacks[-1] if self._callbacks else None
        if callback is None:
            return
        try:
            callback()
        except Exception as exc:  # noqa: BLE001  charged to this session alone
            self._on_failure(exc)


@contextmanager
def _nothing() -> Iterator[None]:
    yield
