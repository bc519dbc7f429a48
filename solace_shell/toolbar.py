"""The bottom toolbar: current target, simulated clock, and the F2 hint."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import StyleAndTextTuples

from .durations import elapsed_text

if TYPE_CHECKING:
    from .lab import Lab

LAB_TARGET = "lab"


def read_clock(lab: Lab) -> str | None:
    """The lab's simulated clock as toolbar text, read in a store command of its own, or None when
    it cannot be read (the toolbar must never end the session). After a line, the clock its
    Outcome carries is the one to show (`clock_text`): no second store command."""
    return clock_text(lab.read_clock())


def clock_text(clock_ms: int | None) -> str | None:
    """A clock in ms as toolbar text (None: no clock to show)."""
    return None if clock_ms is None else elapsed_text(clock_ms)


def toolbar_fragments(target: str, clock: str | None, other: str | None, console: bool = True) -> StyleAndTextTuples:
    """` NY_Appliance1 | T+5s | F2 lab console / router`; at the console, the router F2 returns to.
    Without `console` (a user who may not open the lab console) the F2 hint is left out: the
    toolbar offers only what the user may do."""
    is_lab = target == LAB_TARGET
    out: StyleAndTextTuples = [
        ("class:bottom-toolbar.lab" if is_lab else "class:bottom-toolbar.target",
         " lab console " if is_lab else f" {target} "),
    ]
    if clock:
        out += [("class:bottom-toolbar.sep", "| "), ("class:bottom-toolbar.clock", f"{clock} ")]
    if not console:
        return out
    out += [("class:bottom-toolbar.sep", "| "), ("class:bottom-toolbar.key", "F2"), ("", " ")]
    out.append(("", "lab console / router"))
    if is_lab and other:
        out.append(("class:bottom-toolbar.sep", f" ({other})"))
    return out


def toolbar_text(target: str, clock: str | None, other: str | None, console: bool = True) -> str:
    """The toolbar as plain text (for tests)."""
    return "".join(fragment[1] for fragment in toolbar_fragments(target, clock, other, console))
