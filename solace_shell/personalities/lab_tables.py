"""The tables every HA system's lab console prints for its `state` verb: one block per group (its
header line, a blank line, its table), the blocks one blank line apart, and a dash in an empty cell.

Why shared: the layout of a group's block is the lab's, the same for every system; the header's
words, the columns and the cells are the system's.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..renderers.lab_console import table


def dash(value: object) -> str:
    """A cell's text: `-` for none or an empty text."""
    return "-" if value is None or value == "" else str(value)


def group_block(header: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    """One group: its header line, a blank line, its table."""
    return [header, "", *table(columns, rows)]


def blocks(groups: Iterable[list[str]]) -> str:
    """The groups' blocks, one blank line apart."""
    return "\n\n".join("\n".join(lines) for lines in groups)
