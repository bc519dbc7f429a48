"""What a lab keeps of its own session so that `lab> grade` can grade it at any moment.

Grading decides each step on the state just before its line ran, and which state that was
depends on the runbook (chosen only when `grade` is typed). Reading it for every line would cost
every session more than its commands do, so the lab keeps the lines typed (target and text, in
order) and how to make its starting state again; `grade` replays them on a new in-memory lab
from that start, watched by the grader, exactly as a transcript is graded. That lab is this
session's alone: what another shell on the same lab file did meanwhile is not in it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lab import Lab

MAX_LINES = 100_000    # a longer session keeps its first lines only (and says so when graded)


@dataclass
class SessionLog:
    """The lines of one `Lab` (one terminal), and `start`, which builds a new Lab in the state
    the session started from (set when the lab is made, or taken at its first line)."""

    start: Callable[[], Lab] | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)
    dropped: int = 0

    def add(self, target: str, line: str) -> None:
        if len(self.lines) < MAX_LINES:
            self.lines.append((target, line))
        else:
            self.dropped += 1

    def clear(self) -> None:
        self.lines.clear()
        self.dropped = 0
