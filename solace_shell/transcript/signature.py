"""Divergence signatures: a short, stable name for *how* a command diverged.

The Spark jobs group thousands of failures by this string, so it must not contain run-specific
or transcript-specific text (values, names, counters): only the kind of divergence and, for output
differences, the position in the expected block and a coarse class of the difference.

Forms:
- `prompt-mismatch`                 the session's prompt differs from the one written
- `exception:<Type>`                the lab raised while running the command (verdict error)
- `error:<kind>`                    the command failed (e.g. `error:invalid`) but output was expected
- `output:line N:<class>`           first differing expected line N (1-based, within the block);
                                    class is `number` (only digits differ), `value` (same label, other
                                    value), `blank` (a blank line on one side), `text`, `missing`
                                    (expected line has no actual counterpart) or `extra` (actual line
                                    with no expected counterpart)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from solace_shell.transcript.align import align
from solace_shell.transcript.match import LineMatcher

PROMPT_MISMATCH = "prompt-mismatch"
_DIGITS = re.compile(r"\d+")
_LABEL = re.compile(r"^\s*(?P<label>[^:]*?)(?::|\s{2,})")
_KIND = re.compile(r"[^a-z0-9]+")


def error_kind_slug(kind: str | None) -> str:
    slug = _KIND.sub("-", (kind or "unknown").lower()).strip("-")
    return slug or "unknown"


def exception_signature(exc: BaseException) -> str:
    return f"exception:{type(exc).__name__}"


def error_signature(kind: str | None) -> str:
    return f"error:{error_kind_slug(kind)}"


def _line_class(expected: LineMatcher, actual: str) -> str:
    if (expected.text == "") != (actual == ""):
        return "blank"
    if expected.kind == "literal" and _DIGITS.sub("0", expected.text) == _DIGITS.sub("0", actual):
        return "number"
    le, la = _LABEL.match(expected.text), _LABEL.match(actual)
    if le and la and le["label"] and le["label"] == la["label"]:
        return "value"
    return "text"


def output_signature(expected: Sequence[LineMatcher], actual: Sequence[str]) -> str:
    """Signature of the first difference between a (non-matching) expected block and the output."""
    seen = 0  # expected entries placed before the current op
    for op in align(expected, actual):
        if op.kind == "keep":
            seen += 1
            continue
        if op.kind == "insert":
            return f"output:line {seen + 1}:extra"
        assert op.entry is not None
        if op.kind == "delete":
            return f"output:line {op.entry + 1}:missing"
        return f"output:line {op.entry + 1}:{_line_class(expected[op.entry], actual[op.lo])}"
    return "output:unknown"
