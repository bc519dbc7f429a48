"""Showing the typed line with every invisible or bidi character escaped (`\\u202e`).

Why: prompt_toolkit draws C0 and C1 control characters visibly (`^G`, `<85>`) but writes format
characters (bidi overrides and isolates, zero-width characters, tag characters), line separators and
lone surrogates to the terminal as they are, where a bidi override reorders what follows it and a
zero-width character hides. The line would read differently from what Enter refuses. This
processor draws each of them as its escape, in the control-character style, so the line on the
screen is the line typed; the buffer itself is unchanged (Enter refuses the line with the caret
under the first such character, grammar.tokens).
"""

from __future__ import annotations

import bisect
import re

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.processors import Processor, Transformation, TransformationInput
from prompt_toolkit.layout.screen import Char

from grammar.tokens import is_forbidden

_STYLE = "class:control-character"
_BEYOND_ASCII = re.compile("[^\x00-\x7f]")


def escape(char: str) -> str:
    """`\\u202e` (four hex digits) or `\\U000e0041` (eight)."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _needs_escape(char: str) -> bool:
    """Refused in a command line and drawn raw by prompt_toolkit (which draws C0 and C1 itself)."""
    return char not in Char.display_mappings and is_forbidden(char)


class EscapeInvisibleProcessor(Processor):
    """Draws the characters `_needs_escape` picks as their escapes; an ordinary line (every ASCII
    line, every line without such a character) is passed through without being walked."""

    def apply_transformation(self, ti: TransformationInput) -> Transformation:
        fragments = ti.fragments
        text = "".join(fragment[1] for fragment in fragments)
        if text.isascii():
            return Transformation(fragments)
        hits = [m.start() for m in _BEYOND_ASCII.finditer(text) if _needs_escape(m.group())]
        if not hits:
            return Transformation(fragments)
        out: StyleAndTextTuples = []
        column = 0
        for fragment in fragments:
            piece, end = fragment[1], column + len(fragment[1])
            start = 0
            for hit in hits[bisect.bisect_left(hits, column):bisect.bisect_left(hits, end)]:
                i = hit - column
                if i > start:
                    out.append((fragment[0], piece[start:i], *fragment[2:]))
                out.append((f"{fragment[0]} {_STYLE}", escape(piece[i]), *fragment[2:]))
                start = i + 1
            if start < len(piece):
                out.append((fragment[0], piece[start:], *fragment[2:]))
            column = end
        # display column = source column + the extra width of the escapes before it
        extra = [0]
        for hit in hits:
            extra.append(extra[-1] + len(escape(text[hit])) - 1)
        shown = [hit + extra[n] for n, hit in enumerate(hits)]

        def source_to_display(position: int) -> int:
            return position + extra[bisect.bisect_left(hits, position)]

        def display_to_source(position: int) -> int:
            n = bisect.bisect_right(shown, position)   # escapes starting at or before `position`
            if n and position < shown[n - 1] + len(escape(text[hits[n - 1]])):
                return hits[n - 1]                       # inside an escape: its character
            return position - extra[n]

        return Transformation(out, source_to_display=source_to_display, display_to_source=display_to_source)
