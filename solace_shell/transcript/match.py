"""Matching an expected output block against actual output, line by line, with three matchers.

- a line `...` matches any number of lines (including none);
- `[..]` inside a line matches any run of characters (several per line allowed);
- a line ending in ` (re)` is a regular expression (RE2 syntax, which is Python's minus
  backreferences and lookaround) that must match the whole line.
Anything else must be equal. Both sides are compared without line endings and trailing blanks, and
(unless strict) without blank lines at the start and end of the block. Keeping matchers this small
keeps transcripts readable as terminal sessions and makes `accept` predictable.

Patterns are compiled with RE2 (google-re2), a linear-time engine: a transcript is untrusted input
(the Spark job replays whatever it is given), and a backtracking engine lets one `(a+)+b (re)`
line hang a replay. A pattern RE2 cannot compile raises `BadPattern`, reported at load time with
the transcript's FILE:LINE.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

from solace_shell.transcript.format import ANY_LINES, ANY_RUN, REGEX_SUFFIX, clean

MatcherKind = Literal["any", "regex", "glob", "literal"]


class Pattern(Protocol):
    """What matching needs of a compiled RE2 pattern (the bindings ship no type information)."""

    def fullmatch(self, text: str) -> object | None: ...


class BadPattern(ValueError):
    """An expected ` (re)` line RE2 cannot compile; the message says why."""


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error is reported with its FILE:LINE, not logged to stderr
    options.dot_nl = True       # `[..]` spans any character, as it always has
    return options


_GLOB_OPTIONS = _options()
_REGEX_OPTIONS = _options()
_REGEX_OPTIONS.dot_nl = False


def _compile(pattern: str, options: re2.Options) -> Pattern:
    try:
        compiled: Pattern = re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise BadPattern(str(detail)) from None
    return compiled


@dataclass(frozen=True)
class LineMatcher:
    """One expected line, compiled."""

    text: str
    kind: MatcherKind
    pattern: Pattern | None = None

    def matches(self, actual: str) -> bool:
        if self.kind == "literal":
            return actual == self.text
        if self.kind == "any":
            return True
        assert self.pattern is not None
        return self.pattern.fullmatch(actual) is not None


@lru_cache(maxsize=4096)
def compile_line(text: str) -> LineMatcher:
    """Compile one expected line; raises BadPattern for a ` (re)` line RE2 cannot compile.

    Precedence: `...` first, then ` (re)` (its pattern is taken verbatim, so `[..]` inside it is a
    regex class), then `[..]`.
    """
    if text == ANY_LINES:
        return LineMatcher(text, "any")
    if is_regex_line(text):
        return LineMatcher(text, "regex", _compile(text[: -len(REGEX_SUFFIX)], _REGEX_OPTIONS))
    if ANY_RUN in text:
        pattern = ".*".join(re.escape(part) for part in text.split(ANY_RUN))
        return LineMatcher(text, "glob", _compile(pattern, _GLOB_OPTIONS))
    return LineMatcher(text, "literal")


def is_regex_line(text: str) -> bool:
    """Whether `compile_line(text)` is a regular expression, without compiling it."""
    return text.endswith(REGEX_SUFFIX) and text != ANY_LINES


def normalise(lines: Sequence[str], strict_blank: bool) -> list[str]:
    """Clean every line and, unless strict, drop blank lines at both ends."""
    out = [clean(line) for line in lines]
    return out if strict_blank else strip_blank_edges(out)


def strip_blank_edges(lines: Sequence[str]) -> list[str]:
    """`lines` without the blank lines at both ends."""
    lo, hi = 0, len(lines)
    while lo < hi and lines[lo] == "":
        lo += 1
    while hi > lo and lines[hi - 1] == "":
        hi -= 1
    return list(lines[lo:hi])


def output_lines(text: str) -> list[str]:
    """Split a command's output text into lines ("" is no lines at all)."""
    return text.split("\n") if text else []


def match_entries(matchers: Sequence[LineMatcher], actual: Sequence[str]) -> bool:
    """Whether compiled expected lines match already-normalised actual lines.

    Tracks the set of actual positions reachable after each expected line, so `...` never
    backtracks exponentially: O(len(expected) * len(actual)) in the worst case.
    """
    reachable = {0}
    n = len(actual)
    for m in matchers:
        if m.kind == "any":
            reachable = set(range(min(reachable), n + 1))
        else:
            reachable = {j + 1 for j in reachable if j < n and m.matches(actual[j])}
        if not reachable:
            return False
    return n in reachable


def match_block(expected_lines: Sequence[str], actual_lines: Sequence[str], strict_blank: bool = False) -> bool:
    """Whether an expected block (matchers allowed) matches the actual output lines.

    Lines may still carry "\\r" or trailing spaces; both sides are normalised here. Raises
    BadPattern when an expected ` (re)` line is not a valid regular expression.
    """
    expected = normalise(expected_lines, strict_blank)
    actual = normalise(actual_lines, strict_blank)
    return match_entries([compile_line(e) for e in expected], actual)
