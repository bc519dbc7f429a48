"""What a lab tells its observers after every line it runs (`Lab.observe`).

Why its own module: the class record and the trainer's live view subscribe to labs without
importing the lab, and the event is plain frozen data, safe to hand to another thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from .results import Outcome


@dataclass(frozen=True)
class LineEvent:
    """One executed line: the target it ran on, the line with its secrets masked (never the line
    as typed), what it did, and the lab's simulated clock after it (None when unreadable)."""

    target: str
    line: str
    outcome: Outcome
    clock_ms: int | None
