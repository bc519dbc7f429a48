"""The bottom toolbar: current target, simulated clock, and the F2 hint."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from .durations import elapsed_text

LAB_TARGET = "lab"


def read_clock(lab: Any) -> str | None:
    """The lab's simulated clock as toolbar text, or None when it cannot be read cheaply."""
    store = getattr(lab, "store", None)
    if store is None:
        return None
    try:
        with store.transaction() as engine:
            now = getattr(engine, "now_ms", None)
            return elapsed_text(now()) if callable(now) else None
    except Exception:
        return None


def toolbar_fragments(target: str, clock: str | None, other: str | None) -> StyleAndTextTuples:
    """` NY_Appliance1 | T+5s | F2 lab console / router`; at the console, the router F2 returns to."""
    is_lab = target == LAB_TARGET
    out: StyleAndTextTuples = [
        ("class:bottom-toolbar.lab" if is_lab else "class:bottom-toolbar.target",
         " lab console " if is_lab else f" {target} "),
    ]
    if clock:
        out += [("class:bottom-toolbar.sep", "| "), ("class:bottom-toolbar.clock", f"{clock} ")]
    out += [("class:bottom-toolbar.sep", "| "), ("class:bottom-toolbar.key", "F2"), ("", " ")]
    out.append(("", "lab console / router"))
    if is_lab and other:
        out.append(("class:bottom-toolbar.sep", f" ({other})"))
    return out


def toolbar_text(target: str, clock: str | None, other: str | None) -> str:
    """The toolbar as plain text (for tests)."""
    return "".join(text for _, text in toolbar_fragments(target, clock, other))
