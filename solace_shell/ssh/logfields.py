"""Log fields that cannot be faked: `user=... router=... peer=...` with every value quoted when it
could be read as more than one value.

Why: a user name is whatever a client sends; `mallory router=NY peer=10.0.0.1` or a name with a
line feed would otherwise write fields, or whole lines, of its own into the connection log.
"""

from __future__ import annotations

import json
import re

_PLAIN = re.compile(r"[A-Za-z0-9_.@:/+\-\[\]]+")


def quoted(value: object) -> str:
    """`value` as one log field value: as it is when plain, else a JSON string (quotes, backslashes
    and control characters escaped)."""
    text = str(value)
    return text if _PLAIN.fullmatch(text) else json.dumps(text)


def fields(**values: object) -> str:
    """`key=value key=value`, in the order given, each value `quoted`."""
    return " ".join(f"{key}={quoted(value)}" for key, value in values.items())


def one_line(exc: BaseException) -> str:
    """An exception as one log line: its type and the first line of its text, quoted."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {quoted(first)}" if first else type(exc).__name__
