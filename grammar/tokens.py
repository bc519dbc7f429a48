"""Split a command line into words, keeping each word's column for the caret.

Values may be quoted (`message-vpn "A VPN WITH SPACES"`, `state "standby"`), as the broker accepts
and as `show current-config` prints them. A quoted word is a value first; where no value fits it
may still spell a keyword in full (`access-type "exclusive"`), never an abbreviation.

Only the space and the tab separate words. Any other control or line-separator character (FF,
VT, NEL, LS, PS, ...) is refused where it stands, so nothing can hide a second command inside a
line or a comment. So are the invisible format characters (bidi overrides and isolates, zero-width
characters, tag characters: Unicode category Cf) and lone surrogates (Cs, what undecodable terminal
bytes become): they make a line read differently from what runs, or cannot be printed at all.
"""

from __future__ import annotations

import re
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


# Every category refused (tab aside): controls, format characters, surrogates, line and paragraph
# separators.
_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# The refused characters below U+00A0, and Zl, Zp, as one class: found by one C scan instead of a
# Python step per character (a line the parse cache has not seen spends most of its parse here).
# Beyond ASCII the other refused characters are looked up by category, one non-ASCII character at
# a time, so the rule follows the running Python's Unicode database.
_FORBIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_BEYOND_ASCII = re.compile("[^\x00-\x7f]")
# A word: quoted (its value is between the quotes, which may hold spaces), unquoted (up to a
# separator or a quote), or a quote that is never closed.
_WORD = re.compile(r'"(?P<quoted>[^"]*)"|(?P<plain>[^ \t"]+)|(?P<open>")')


def is_forbidden(char: str) -> bool:
    """Control (Cc, but tab), format (Cf) and surrogate (Cs) characters, line and paragraph
    separators (Zl, Zp): what no command line may hold."""
    return char != "\t" and unicodedata.category(char) in _FORBIDDEN_CATEGORIES


def first_forbidden(line: str) -> int | None:
    """The column of the first character `is_forbidden` refuses in `line`, or None."""
    found = _FORBIDDEN.search(line)
    end = len(line) if found is None else found.start()
    if not line.isascii():
        for m in _BEYOND_ASCII.finditer(line, 0, end):
            if unicodedata.category(m.group()) in _FORBIDDEN_CATEGORIES:
                return m.start()
    return None if found is None else end


def check_characters(line: str) -> None:
    """Raise ControlCharacter at the first character a command line may not hold."""
    column = first_forbidden(line)
    if column is not None:
        raise ControlCharacter(column, line[column])


def printable(line: str) -> str:
    """A line as echoed: each character a command line may not hold becomes `?` (one column, so
    the caret under it stays right), never a raw control code or bidi override on the terminal."""
    if first_forbidden(line) is None:
        return line
    return "".join("?" if is_forbidden(ch) else ch for ch in line)


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
