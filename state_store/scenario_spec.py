"""The building blocks of scenario schemas: what a value may be, and where it stood.

Why its own module: the scenario loader (scenario_schema) and each HA system's own section
(e.g. swiftmq/scenario) describe their parts with the same specs and report lines the same way,
without importing each other's modules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grammar.yaml_source import LocatedDict, LocatedList


@dataclass(frozen=True)
class Str:
    """A name or text: 1..max_len UTF-8 bytes, no control characters. ``topic`` adds the broker's
    topic rules: ``publish`` (no wildcards) or ``subscription``. A ``secret`` (a password, or what
    may be a pasted private key) is never shown in an error: errors are printed and pasted anywhere."""

    max_len: int = 64
    topic: str = ""
    forbidden: str = ""
    secret: bool = False


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int


@dataclass(frozen=True)
class Bool:
    pass


@dataclass(frozen=True)
class Enum:
    values: tuple[str, ...]


@dataclass(frozen=True)
class ListOf:
    item: Spec
    max_items: int = 1000


@dataclass(frozen=True)
class Map:
    fields: dict[str, tuple[Spec, bool]]


@dataclass(frozen=True)
class DictOf:
    """Free keys (names), typed values."""

    value: Spec


@dataclass(frozen=True)
class Deferred:
    """A spec read only when a value is checked against it: an HA system's section, whose schema
    lives in that system's model (imported then, so a lab without the section never imports it)."""

    load: Callable[[], Spec]


Spec = Str | Int | Bool | Enum | ListOf | Map | DictOf | Deferred
REQ, OPT = True, False


def spec_map(**fields: tuple[Spec, bool]) -> Map:
    return Map(fields)


def line_of(obj: Any, key: Any) -> int:
    """The line of ``obj[key]`` as the file had it (the object's own line when unknown)."""
    if isinstance(obj, LocatedDict):
        return obj.key_lines.get(str(key), obj.line)
    if isinstance(obj, LocatedList) and isinstance(key, int) and key < len(obj.item_lines):
        return obj.item_lines[key]
    return int(getattr(obj, "line", 0))
