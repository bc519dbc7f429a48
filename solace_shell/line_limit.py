"""The longest line the REPL's prompt holds.

Why: prompt_toolkit redraws the whole line on every key, so a line of a megabyte (a paste of a
file, a key held down for minutes) makes each key take seconds: the shell looks hung. No command
comes near the limit (a name is at most 200 bytes), so a paste that would pass it is refused whole
(nothing inserted, one line saying so), and typed text beyond it is dropped with the same line,
printed once each time the line fills up.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document

MAX_LINE_CHARS = 16384


TYPED_TOO_LONG = f"% Input too long: a command line holds at most {MAX_LINE_CHARS} characters; the rest was dropped"


def paste_too_long_text(pasted: int) -> str:
    """The one line printed instead of inserting a paste that would make the line too long."""
    return f"% Paste refused: {pasted} characters; a command line holds at most {MAX_LINE_CHARS}"


def fits(buffer: Buffer, text: str) -> bool:
    """Would inserting `text` keep the line within the limit?"""
    return len(buffer.text) + len(text) <= MAX_LINE_CHARS


class LineLimit:
    """Keeps a buffer at most MAX_LINE_CHARS long: what goes beyond is cut off, and `say` gets
    TYPED_TOO_LONG once each time the line fills up (not once per extra key)."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self._say = say
        self._full = False

    def attach(self, buffer: Buffer) -> None:
        buffer.on_text_changed += self._changed

    def _changed(self, buffer: Buffer) -> None:
        length = len(buffer.text)
        if length <= MAX_LINE_CHARS:
            self._full = length == MAX_LINE_CHARS and self._full
            return
        buffer.document = Document(buffer.text[:MAX_LINE_CHARS], min(buffer.cursor_position, MAX_LINE_CHARS))
        if not self._full:
            self._full = True
            self._say(TYPED_TOO_LONG)
