"""The word splitter: columns, quotes and refused characters, against a character-by-character model."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.tokens import ControlCharacter, UnterminatedQuote, Word, is_forbidden, printable, split_words


def _model_forbidden(char: str) -> bool:
    return char not in " \t" and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def _model_split(line: str) -> list[Word]:
    """The rules spelled out one character at a time: spaces and tabs separate, a quote opens a
    value that runs to the next quote, an unquoted word stops at a separator or a quote."""
    for column, char in enumerate(line):
        if _model_forbidden(char):
            raise ControlCharacter(column, char)
    words: list[Word] = []
    i = 0
    while i < len(line):
        if line[i] in " \t":
            i += 1
        elif line[i] == '"':
            close = line.find('"', i + 1)
            if close < 0:
                raise UnterminatedQuote(i)
            words.append(Word(line[i + 1:close], i, close + 1, quoted=True))
            i = close + 1
        else:
            j = i
            while j < len(line) and line[j] not in ' \t"':
                j += 1
            words.append(Word(line[i:j], i, j))
            i = j
    return words


def _outcome(fn: object, line: str) -> object:
    try:
        return fn(line)  # type: ignore[operator]
    except (ControlCharacter, UnterminatedQuote) as exc:
        return type(exc).__name__, exc.column, getattr(exc, "char", None)


@pytest.mark.parametrize("line, expected", [
    ('create queue "Q 1"  x', [Word("create", 0, 6), Word("queue", 7, 12), Word("Q 1", 13, 18, True),
                               Word("x", 20, 21)]),
    ('a"b"c', [Word("a", 0, 1), Word("b", 1, 4, True), Word("c", 4, 5)]),
    ('""', [Word("", 0, 2, True)]),
    ("\tshow\t hostname ", [Word("show", 1, 5), Word("hostname", 7, 15)]),
    ("", []),
])
def test_known_lines(line: str, expected: list[Word]) -> None:
    assert split_words(line) == expected


def test_refusals_say_where() -> None:
    with pytest.raises(UnterminatedQuote) as open_quote:
        split_words('show queue "abc')
    assert open_quote.value.column == 11
    with pytest.raises(ControlCharacter) as control:
        split_words("show\x0bqueue \x85")
    assert (control.value.column, control.value.char) == (4, "\x0b")


def test_forbidden_characters_match_their_unicode_categories() -> None:
    for code in [*range(0x00, 0x100), 0x2028, 0x2029, 0x200B, 0xFEFF, 0x1F600, *range(0x2000, 0x2070),
                 0x061C, 0xDC80, 0xE0041, 0x4E2D]:
        assert is_forbidden(chr(code)) == _model_forbidden(chr(code)), hex(code)


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b",
                                  "\ufeff", "\U000e0041", "\udcff"])
def test_bidi_invisible_and_undecodable_characters_are_refused_where_they_stand(char: str) -> None:
    line = f'create queue "ab{char}c"'
    with pytest.raises(ControlCharacter) as refused:
        split_words(line)
    assert (refused.value.column, refused.value.char) == (line.index(char), char)
    assert printable(line) == 'create queue "ab?c"'


def test_printable_keeps_ordinary_text_as_it_is() -> None:
    for line in ("show queue *", "create queue \"Zürich 中文 😀\"", "\tx"):
        assert printable(line) is line


_SAMPLES = ' \t"ab-*>\x00\x0b\x1f\x7f\x85\x9f\u2028\u2029é\u202e\u2067\u200b'
_LINE = st.text(alphabet=st.sampled_from(list(_SAMPLES)) | st.characters(), max_size=40)


@settings(max_examples=500)
@given(_LINE)
def test_split_matches_the_model(line: str) -> None:
    assert _outcome(split_words, line) == _outcome(_model_split, line)
