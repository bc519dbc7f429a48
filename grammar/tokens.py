"""Split a command line into words, keeping each word's column for the caret.

Values may be quoted (`message-vpn "A VPN WITH SPACES"`, `state "standby"`), as the broker accepts
and as `show current-config` prints them. A quoted word is a value first; where no value fits it
may still spell a keyword in full (`access-type "exclusive"`), never an abbreviation.

Only the space and the tab separate words. Any other control or line-separator character (FF,
VT, NEL, LS, PS, ...) is refused where it stands, so nothing can hide a second command inside a
line or a comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Word:
    text: str        # the value, quotes removed
    start: int       # column of the first character (including an opening quote)
    end: int         # column after the last character
    quoted: bool = False


class LexError(Exception):
    """A line that cannot be split into words; `column` is where the caret goes."""

    def __init__(self, column: int) -> None:
        super().__init__(column)
        self.column = column


class UnterminatedQuote(LexError):
    pass


class ControlCharacter(LexError):
    """A character no command line may hold."""

    def __init__(self, column: int, char: str) -> None:
        super().__init__(column)
        self.char = char


# The characters `is_forbidden` refuses, as one class: Cc (U+0000-U+001F, U+007F-U+009F) but tab,
# Zl (U+2028) and Zp (U+2029). Found by one C scan instead of a Python step per character: a line
# the parse cache has not seen (a new XID, a new count) spent most of its parse here.
_FORBIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
# A word: quoted (its value is between the quotes, which may hold spaces), unquoted (up to a
# separator or a quote), or a quote that is never closed.
_WORD = re.compile(r'"(?P<quoted>[^"]*)"|(?P<plain>[^ \t"]+)|(?P<open>")')


def is_forbidden(char: str) -> bool:
    """Control characters (Cc) and line/paragraph separators (Zl, Zp), except space and tab."""
    return _FORBIDDEN.match(char) is not None


def check_characters(line: str) -> None:
    """Raise ControlCharacter at the first character a command line may not hold."""
    found = _FORBIDDEN.search(line)
    if found is not None:
        raise ControlCharacter(found.start(), found.group())


def split_words(line: str) -> list[Word]:
    check_characters(line)
    words: list[Word] = []
    for m in _WORD.finditer(line):
        quoted = m["quoted"]
        if quoted is not None:
            words.append(Word(quoted, m.start(), m.end(), quoted=True))
        elif m["plain"] is not None:
            words.append(Word(m["plain"], m.start(), m.end()))
        else:
            raise UnterminatedQuote(m.start())
    return words
