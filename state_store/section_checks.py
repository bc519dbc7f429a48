"""The cross-reference checks every HA system's scenario section makes alike: which entries of a
list to check, and that a name is not used twice in the lab.

Why shared: a system's section lists its groups, and under each its queues and clients, as
mappings with a name; the schema has reported every malformed entry already, so each check walks
only the named ones, and every group, node or client name must be new to the whole lab (the
names the other sections use come in as ``other_names``). The wording of a problem stays the
system's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .kernel.plugin import Err


def named(section: Any, key: str) -> Iterator[dict[str, Any]]:
    """The entries of the list ``key`` of ``section`` that are mappings with a name."""
    for entry in (section or {}).get(key) or []:
        if isinstance(entry, dict) and entry.get("name") is not None:
            yield entry


def claim(err: Err, line: int, label: str, name: str, seen: set[str], other_names: set[str]) -> None:
    """Report ``<label>: name already used`` when another entry of this section (``seen``) or of
    another (``other_names``) has ``name``; then it is taken."""
    if name in seen or name in other_names:
        err(line, f"{label}: name already used")
    seen.add(name)
