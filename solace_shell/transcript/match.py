"""Matching an expected output block against actual output, line by line, with three matchers.

- a line `...` matches any number of lines (including none);
- `[..]` inside a line matches any run of characters (several per line allowed);
- a line ending in ` (re)` is a Python regular expression that must match the whole line.
Anything else must be equal. Both sides are compared without line endings and trailing blanks, and
(unless strict) without blank lines at the start and end of the block. Keeping matchers this small
keeps transcripts readable as terminal sessions and makes `accept` predictable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from solace_shell.transcript.format import ANY_LINES, ANY_RUN, REGEX_SUFFIX, clean

MatcherKind = Literal["any", "regex", "glob", "literal"]


@dataclass(frozen=True)
class LineMatcher:
    """One expected line, compiled."""

    text: str
    kind: MatcherKind
    pattern: re.Pattern[str] | None = None

    def matches(self, actual: str) -> bool:
        if self.kind == "literal":
            return actual == self.text
        if self.kind == "any":
            return True
        assert self.pattern is not None
        return self.pattern.fullmatch(actual) is not None


@lru_cache(maxsize=4096)
def compile_line(text: str) -> LineMatcher:
    """Compile one expected line; raises re.error for a bad ` (re)` line.

    Precedence: `...` first, then ` (re)` (its pattern is taken verbatim, so `[..]` inside it is a
    regex class), then `[..]`.
    """
    if text == ANY_LINES:
        return LineMatcher(text, "any")
    if text.endswith(REGEX_SUFFIX):
        return LineMatcher(text, "regex", re.compile(text[: -len(REGEX_SUFFIX)]))
    if ANY_RUN in text:
        pattern = ".*".join(re.escape(part) for part in text.split(ANY_RUN))
        return LineMatcher(text, "glob", re.compile(pattern, re.DOTALL))
    return LineMatcher(text, "literal")


def normalise(lines: Sequence[str], strict_blank: bool) -> list[str]:
    """Clean every line and, unless strict, drop blank lines at both ends."""
    out = [clean(line) for line in lines]
    if not strict_blank:
        lo, hi = 0, len(out)
        while lo < hi and out[lo] == "":
            lo += 1
        while hi > lo and out[hi - 1] == "":
            hi -= 1
        out = out[lo:hi]
    return out


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
    re.error when an expected ` (re)` line is not a valid regular expression.
    """
    expected = normalise(expected_lines, strict_blank)
    actual = normalise(actual_lines, strict_blank)
    return match_entries([compile_line(e) for e in expected], actual)
