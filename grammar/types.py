"""Validation of parameter values by type kind.

The rules mirror the broker's own name syntax where it is known (reference 5.3: names up to a
limit, `'<>*?&;` forbidden, only reserved names start with `#`), so a name that looks like SQL or
shell is refused by the same rule the real CLI applies, never by accident.
"""

from __future__ import annotations

import re

from .model import ParamType

_DURATION = re.compile(r"^(\d+)(ms|s|m|h)$")
_DURATION_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
_SIZE = re.compile(r"^\d+$")
_INTEGER = re.compile(r"-?\d+")
_CONTROL = re.compile("[\x00-\x1f\x7f]")  # (one C scan: a parse the cache has not seen checks every value)

KINDS: tuple[str, ...] = ("string", "pattern", "integer", "enum", "duration", "text")


def duration_ms(text: str) -> int:
    """`250ms`, `5s`, `2m`, `1h` -> milliseconds. Raises ValueError."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError("expected a duration such as 250ms, 5s, 2m or 1h")
    return int(m.group(1)) * _DURATION_MS[m.group(2)]


def check_value(ptype: ParamType, value: str) -> str | None:
    """Return None when `value` is acceptable for `ptype`, else the reason it is not."""
    kind = ptype.kind
    if kind in ("string", "pattern", "text"):
        if value == "":
            return None if ptype.empty else "the value is empty"
        if _CONTROL.search(value) is not None:
            return "control characters are not allowed"
        if ptype.max_length is not None and len(value) > ptype.max_length:
            return f"longer than {ptype.max_length} characters"
        bad = sorted(set(value).intersection(ptype.forbidden)) if ptype.forbidden else []
        if kind == "pattern":
            bad = [ch for ch in bad if ch not in "*?"]
        if bad:
            return "invalid character(s) " + " ".join(repr(ch) for ch in bad)
        return None
    if kind == "integer":
        if _INTEGER.fullmatch(value) is None:
            return "expected a whole number"
        number = int(value)
        if ptype.min is not None and number < ptype.min or ptype.max is not None and number > ptype.max:
            return f"out of range {ptype.min}-{ptype.max}"
        return None
    if kind == "enum":
        # Docs write enum values in either case (`state PREPARED`), so match without case.
        known = {v.lower() for v in ptype.values}
        return None if value.lower() in known else "expected one of " + ", ".join(ptype.values)
    if kind == "duration":
        try:
            duration_ms(value)
        except ValueError as exc:
            return str(exc)
        return None
    return f"unknown type kind {kind!r}"  # pragma: no cover - the loader rejects unknown kinds
