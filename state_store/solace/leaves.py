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

from grammar.leaves import THRESHOLD_FORMS, Leaf, of

from ..errors import EngineError
from ..passwords import HashedSecret, hash_password, is_hashed
from ..scenario_spec import OPT, Bool, Enum, Int, Spec, Str

__all__ = ["Leaf", "coerce", "leaf", "of", "scenario_check", "scenario_entry", "scenario_fields", "scenario_values"]
# a scenario's text value without a declared length
SCENARIO_TEXT = 1024


def scenario_fields(obj: str) -> dict[str, tuple[Spec, bool]]:
    """The scenario schema's optional entries for the leaves of ``obj`` that name a scenario key."""
    return {spec.scenario: (scenario_check(spec), OPT) for spec in of(obj).values() if spec.scenario}


def scenario_check(spec: Leaf) -> Spec:
    """The scenario schema's check of a value for ``spec``: its type and range, as the CLI's."""
    if spec.type == "bool":
        return Bool()
    if spec.type == "int":
        assert spec.min is not None and spec.max is not None
        return Int(spec.min, spec.max)
    if spec.type == "enum":
        return Enum(spec.values)
    return Str(spec.max_length or SCENARIO_TEXT, secret=spec.type == "secret")


def scenario_entry(obj: str, name: str) -> tuple[Spec, bool]:
    """An optional scenario entry checked as the leaf ``name`` of ``obj`` (a nested entry of the
    scenario file, where the flat `scenario:` keys of scenario_fields do not fit)."""
    return scenario_check(leaf(obj, name)), OPT


def scenario_values(obj: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The record fields a scenario entry of ``obj`` sets: every leaf with a scenario key, its
    value or its default."""
    return {spec.attr: entry.get(spec.scenario, spec.default) for spec in of(obj).values() if spec.scenario}


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
    if spec.type == "threshold":
        form, clear, set_ = (str(value).split() + ["", "", ""])[:3]
        if form not in THRESHOLD_FORMS or not clear.isdigit() or not set_.isdigit():
            raise EngineError("invalid_value", name=spec.name, value=value,
                              allowed="percent|value <clear> <set>")
        if int(clear) > int(set_):
            raise EngineError("value_out_of_range", name=spec.name, value=int(clear), min=0, max=int(set_))
        return spec.threshold(form, int(clear), int(set_))
    if spec.type == "secret":
        if isinstance(value, HashedSecret):
            if not is_hashed(value):
                raise EngineError("invalid_value", name=spec.name, value="(hidden)",
                                  allowed="a hash printed by show current-config")
            return str(value)
        text = str(value)
        return hash_password(text) if text else ""
    return str(value)
