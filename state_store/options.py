"""Typed settings set by CLI-ish name: one coercion rule for every option table.

Replication and queue options arrive as the CLI gives them (strings, or None for the `no` form);
each table entry says how to check and convert a value, so a bad value is refused the same way
whichever object it is for.
"""

from __future__ import annotations

from typing import Any

from .errors import EngineError
from .passwords import HashedSecret, hash_password, is_hashed

# option name -> (model attribute, kind, default, (min, max) for ints)
OptionSpec = tuple[str, str, Any, tuple[int, int] | None]


def coerce_option(option: str, spec: OptionSpec, value: Any) -> Any:
    """The value to store for `option`; None restores the default (the `no ...` form).

    A clear password is hashed with a random salt of its own (state_store.passwords), so equal
    secrets do not show as equal hashes, in one lab or across labs; the `encrypted-password` form
    (a HashedSecret) is stored as it is."""
    _, kind, default, limits = spec
    if value is None:
        return default
    if kind.startswith("enum:"):
        allowed = kind[5:].split(",")
        value = str(value).lower()
        if value not in allowed:
            raise EngineError("invalid_value", name=option, value=value, allowed="|".join(allowed))
        return value
    if kind == "bool":
        return bool(value)
    if kind == "int":
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise EngineError("invalid_value", name=option, value=value, allowed="integer") from None
        if limits and not (limits[0] <= number <= limits[1]):
            raise EngineError("value_out_of_range", name=option, value=number, min=limits[0], max=limits[1])
        return number
    if kind == "password":
        if isinstance(value, HashedSecret):
            if not is_hashed(value):
                raise EngineError("invalid_value", name=option, value="(hidden)",
                                  allowed="a hash printed by show current-config")
            return str(value)
        return hash_password(str(value)) if value else ""
    return str(value)
