"""Split a command line into words, keeping each word's column for the caret.

Values may be quoted (`message-vpn "A VPN WITH SPACES"`, `state "standby"`), as the broker accepts
and as `show current-config` prints them. A quoted word is a value first; where no value fits it
may still spell a keyword in full (`access-type "exclusive"`), never an abbreviation.

Only the space and the tab separate words. Any other control or line-separator character (FF,
VT, NEL, LS, PS, ...) is refused where it stands, so nothing can hide a second command inside a
line or a comment.
"""

from __future__ import annotations

import unicodedata
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


_SEPARATORS = frozenset(" \t")


def is_forbidden(char: str) -> bool:
    """Control characters (Cc) and line/paragraph separators (Zl, Zp), except space and tab."""
    if char in _SEPARATORS:
        return False
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def check_characters(line: str) -> None:
    """Raise ControlCharacter at the first character a command line may not hold."""
    for column, char in enumerate(line):
        if is_forbidden(char):
            raise ControlCharacter(column, char)


def split_words(line: str) -> list[Word]:
    check_characters(line)
    words: list[Word] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] in _SEPARATORS:
            i += 1
            continue
        if line[i] == '"':
            close = line.find('"', i + 1)
            if close < 0:
                raise UnterminatedQuote(i)
            words.append(Word(line[i + 1:close], i, close + 1, quoted=True))
            i = close + 1
            continue
        j = i
        while j < n and line[j] not in _SEPARATORS and line[j] != '"':
            j += 1
        words.append(Word(line[i:j], i, j))
        i = j
    return words
