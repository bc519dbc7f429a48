"""The engine's side of the configuration leaves (declared once in grammar/data/leaves.yaml).

One coercion rule for every leaf of every object: a value arrives as the CLI or a scenario gives
it (a string, int or bool; None for the `no` form, which restores the default) and is checked
against the leaf's type and range, so a bad value is refused the same way whichever object it is
for. Secrets: a clear password is hashed with a random salt of its own (state_store.passwords),
so equal secrets never show as equal hashes; the `encrypted-password` form current-config prints
(a HashedSecret) is stored as it is, once checked to be such a hash.
"""

from __future__ import annotations

from typing import Any

from grammar.leaves import Leaf, of

from .errors import EngineError
from .passwords import HashedSecret, hash_password, is_hashed

__all__ = ["Leaf", "coerce", "leaf", "of"]


def leaf(obj: str, name: str) -> Leaf:
    """The declared leaf ``name`` of ``obj`` (``unknown_option`` when there is none)."""
    found = of(obj).get(name)
    if found is None:
        raise EngineError("unknown_option", option=name)
    return found


def coerce(spec: Leaf, value: Any) -> Any:
    """The value to store for ``spec``; None restores the default (the `no ...` form)."""
    if value is None:
        return spec.default
    if spec.type == "bool":
        return bool(value)
    if spec.type == "int":
        try:
            number = int(str(value))
        except ValueError:
            raise EngineError("invalid_value", name=spec.name, value=value, allowed="integer") from None
        lo, hi = spec.min, spec.max
        if lo is not None and hi is not None and not lo <= number <= hi:
            raise EngineError("value_out_of_range", name=spec.name, value=number, min=lo, max=hi)
        return number
    if spec.type == "enum":
        text = str(value).lower()
        if text not in spec.values:
            raise EngineError("invalid_value", name=spec.name, value=value, allowed="|".join(spec.values))
        return text
    if spec.type == "secret":
        if isinstance(value, HashedSecret):
            if not is_hashed(value):
                raise EngineError("invalid_value", name=spec.name, value="(hidden)",
                                  allowed="a hash printed by show current-config")
            return str(value)
        text = str(value)
        return hash_password(text) if text else ""
    return str(value)
