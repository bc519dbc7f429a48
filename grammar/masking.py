"""Masking the parameters the grammar marks `secret: true` (passwords) in a typed line.

Why here: only the grammar knows which word of a line is a password, and every place a line is
kept (history file, transcript recording, logs) must hide the same words. A line that parses is
masked exactly (the word bound to a secret parameter, abbreviations and quotes included). A line
that does not parse is masked conservatively: the word after a keyword that introduces a secret
parameter (or an abbreviation of it) is hidden even when the rest of the line is wrong. A line that
cannot even be split into words (an open quote, a control character) has everything after the first
such keyword hidden, a control character counting as a separator there. Masking never raises: it
runs inside the terminal's Enter key, where an exception would end the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from .model import Alt, Command, Element, Grammar, Keyword, Opt, ParamRef, Seq
from .parser import Parsed, ParseOutcome, Parser
from .tokens import LexError, Word, is_forbidden, split_words

MASK = "********"
_MIN_PREFIX = 3  # `pas` abbreviates `password`; shorter prefixes are too common to hide after


def _elements(element: Element) -> Iterator[Element]:
    yield element
    if isinstance(element, Seq):
        for item in element.items:
            yield from _elements(item)
    elif isinstance(element, Opt):
        yield from _elements(element.body)
    elif isinstance(element, Alt):
        for choice in element.choices:
            yield from _elements(choice)


def _secret_keywords_in(element: Element) -> Iterator[str]:
    """Keywords directly followed by a secret parameter in a syntax."""
    for el in _elements(element):
        if isinstance(el, Seq):
            for before, after in pairwise(el.items):
                if isinstance(before, Keyword) and isinstance(after, ParamRef) and after.param.secret:
                    yield before.word


_KEYWORDS: dict[int, frozenset[str]] = {}


def secret_keywords(grammar: Grammar) -> frozenset[str]:
    """Every keyword that introduces a secret parameter somewhere in the grammar."""
    found = _KEYWORDS.get(id(grammar))
    if found is None:
        found = _KEYWORDS[id(grammar)] = frozenset(
            word for commands in grammar.by_mode.values() for command in commands
            for word in _secret_keywords_in(command.element))
    return found


def _secret_params(element: Element) -> set[str]:
    return {el.param.name for el in _elements(element) if isinstance(el, ParamRef) and el.param.secret}


_SECRET: dict[int, tuple[Command, bool]] = {}


def takes_secret(command: Command) -> bool:
    """Whether a command takes a secret parameter; asked for every line run, so kept per command
    object (with the command: its id stays its own)."""
    kept = _SECRET.get(id(command))
    if kept is None or kept[0] is not command:
        kept = _SECRET[id(command)] = (command, bool(_secret_params(command.element)))
    return kept[1]


def _exact(parsed: Parsed) -> list[Word]:
    hidden: list[Word] = []
    for step in parsed.steps:
        for name in _secret_params(step.command.element):
            value = step.args.get(name)
            if not isinstance(value, str):
                continue
            # bindings and words run in parallel; the parameter's word is the last with its value
            matches = [w for w in step.words if w.text == value]
            if matches:
                hidden.append(matches[-1])
    return hidden


def _conservative(grammar: Grammar, words: list[Word]) -> list[Word]:
    keywords = secret_keywords(grammar)
    hidden: list[Word] = []
    for before, word in pairwise(words):
        text = before.text.lower()
        if not before.quoted and len(text) >= _MIN_PREFIX and any(k.startswith(text) for k in keywords):
            hidden.append(word)
    return hidden


def mask_parsed(parser: Parser, mode: str, line: str, parsed: Parsed) -> str:
    """`mask_secrets` of a line already parsed at `mode` into `parsed`: the line itself when none
    of its commands has a secret parameter (the usual line: nothing to split or parse again)."""
    return mask_secrets(parser, mode, line, parsed) if parsed.secret else line


def mask_secrets(parser: Parser, mode: str, line: str, parsed: ParseOutcome | None = None) -> str:
    """`line` with every secret word replaced by ********. `parsed`: the line's parse at `mode`
    (or its parse error), when the caller has it (not parsed again)."""
    grammar = parser.grammar
    if not secret_keywords(grammar):
        return line
    try:
        words = split_words(line)
    except LexError:
        return _mask_unsplittable(grammar, line)
    if not any(len(w.text) >= _MIN_PREFIX and any(k.startswith(w.text.lower()) for k in secret_keywords(grammar))
               for w in words):
        return line
    reading = parsed if parsed is not None else parser.parse(mode, line)
    hidden = _exact(reading) if isinstance(reading, Parsed) else _conservative(grammar, words)
    for word in sorted(hidden, key=lambda w: w.start, reverse=True):
        line = line[:word.start] + MASK + line[word.end:]
    return line


def _mask_unsplittable(grammar: Grammar, line: str) -> str:
    """An open quote or a control character: hide everything after the first secret keyword (or
    prefix of one)."""
    keywords = secret_keywords(grammar)
    separated = "".join(" " if is_forbidden(ch) else ch for ch in line)  # same columns as `line`
    for m in re.finditer(r"\S+", separated):
        text = m.group().lower()
        if len(text) >= _MIN_PREFIX and any(k.startswith(text) for k in keywords):
            return line[:m.end()] + " " + MASK
    return line
