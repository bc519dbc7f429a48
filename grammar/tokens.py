"""Split a command line into words, keeping each word's column for the caret.

Values may be quoted (`message-vpn "A VPN WITH SPACES"`), as the broker accepts and as
`show current-config` prints them; a quoted word is always a value, never a keyword.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Word:
    text: str        # the value, quotes removed
    start: int       # column of the first character (including an opening quote)
    end: int         # column after the last character
    quoted: bool = False


class UnterminatedQuote(Exception):
    def __init__(self, column: int) -> None:
        super().__init__(column)
        self.column = column


def split_words(line: str) -> list[Word]:
    words: list[Word] = []
    i, n = 0, len(line)
    while i < n:
        if line[i].isspace():
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
        while j < n and not line[j].isspace() and line[j] != '"':
            j += 1
        words.append(Word(line[i:j], i, j))
        i = j
    return words
