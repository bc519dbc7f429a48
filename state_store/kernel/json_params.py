"""Parameters a system keeps as plain JSON on the kernel (``Group.params``, ``Group.data``).

Why a base class: every system reads its group, queue or pool parameters back from the lab
file's snapshots and writes them there, the same way: a frozen dataclass whose fields are JSON
values, written field by field, read back ignoring a key it does not know. Only the fields and
their defaults are the system's.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar, cast

P = TypeVar("P", bound="JsonParams")


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """The dataclass's field names, in declaration order (asked on every read of a snapshot)."""
    found = _NAMES.get(cls)
    if found is None:
        found = _NAMES[cls] = tuple(f.name for f in fields(cast(Any, cls)))
    return found


class JsonParams:
    """Base of a ``@dataclass(frozen=True)`` of JSON-valued parameters."""

    @classmethod
    def from_dict(cls: type[P], data: dict[str, Any]) -> P:
        known = _names(cls)
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _names(type(self))}
