"""Text helpers shared by the show renderers: label/value columns, dashed rules, durations.

Two label styles exist on the broker:
- `Label:` then the value starting at column 36 (1-based), with 2-space indents per level
  (`show replication`, reference 3.5 [FIX]); `field()`.
- a label padded to 37 characters, then `: ` and the value (`show queue <q> detail`,
  reference 5.1, seed 000 step 3); `colon_field()`.
Lines never end in blanks (the broker pads values, never empty tails).
"""

from __future__ import annotations

from collections.abc import Iterable

VALUE_COLUMN = 36          # 1-based column where `field()` values start
QUEUE_LABEL_WIDTH = 37     # `colon_field()` label width before ": "


def field(label: str, value: object = "", indent: int = 0, column: int = VALUE_COLUMN) -> str:
    """`  Label:` padded so the value starts at `column`; a label too long for the column keeps
    one space before its value; an empty value prints the label alone (a heading)."""
    head = " " * indent + label + ":"
    text = "" if value is None else str(value)
    if text == "":
        return head
    width = column - 1
    return (head.ljust(width) if len(head) < width else head + " ") + text


def continuation(value: object, column: int = VALUE_COLUMN) -> str:
    """A further value of the field above, alone in the value column."""
    return " " * (column - 1) + str(value)


def colon_field(label: str, value: object, width: int = QUEUE_LABEL_WIDTH) -> str:
    return (label.ljust(width) + ": " + ("" if value is None else str(value))).rstrip()


def dashes(*widths: int) -> str:
    return " ".join("-" * w for w in widths)


def yes_no(flag: bool) -> str:
    return "Yes" if flag else "No"


def enabled_disabled(flag: bool) -> str:
    return "Enabled" if flag else "Disabled"


def mb2(value: float) -> str:
    return f"{value:.2f}"


def mb4(value: float) -> str:
    return f"{value:.4f}"


def join_blocks(blocks: Iterable[list[str]]) -> list[str]:
    """Several multi-line blocks separated by one blank line."""
    out: list[str] = []
    for block in blocks:
        if out:
            out.append("")
        out.extend(block)
    return out


def text(lines: Iterable[str]) -> str:
    return "\n".join(line.rstrip() for line in lines)
