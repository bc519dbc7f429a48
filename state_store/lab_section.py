"""What a system with records of its own contributes to the lab's root (its model's ``SECTION``).

Why a record of functions: the lab's root (``state_store.lab_root``) holds one section per system
the lab holds and names none of them; it asks the registry (``state_store.systems``) which systems
keep a section and calls what each one's ``SectionModel`` gives: its record kinds for the lab
file's codec, its empty section and its engine over that section, its settings, how a scenario
builds it. A system whose whole state is its groups on the kernel (``state_store.kernel``) keeps no
section. This module imports nothing of the root or of any system, so both may import it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SectionModel:
    name: str                                    # the system's registry name (and journal prefix)
    kinds: Mapping[type, str]                    # record class -> kind, in persistence order
    # (kind, field) -> the kind the field refers to: checked when a lab file is read
    refs: Mapping[tuple[str, str], str]
    new_section: Callable[[Any], Any]            # the root state -> an empty section on it
    engine: Callable[[Any, Any], Any]            # (section, root engine) -> the section's engine
    holds: Callable[[Any], bool]                 # a checked scenario document holds this section
    build: Callable[[Any, Any], None]            # (section's engine, scenario document): its records
    setting_rules: Mapping[str, Any] = field(default_factory=dict)      # key -> str | int | choices
    setting_defaults: Mapping[str, str] = field(default_factory=dict)
    # (kind, row number, row) -> the problem of a row beyond its field types, or None
    check_row: Callable[[str, int, list[Any]], str | None] | None = None
    unusable: Callable[[Any], str | None] | None = None   # what makes a read section unusable
    # the reader of a whole scenario file, for the system whose keys sit at its top level (the
    # router CLI's: ``systems.ROUTER_CLI``), and the rewriting of lab files of schemas older than
    # the journal, which were that system's
    read_scenario: Callable[[Any], Any] | None = None
    legacy_versions: Callable[[], Sequence[str]] | None = None
    migrate: Callable[[Any, str], None] | None = None
