"""What a lab keeps of its own session so that `lab> grade` can grade it at any moment, and the
sessions that share a store (a served class, for the trainer's `lab> progress`).

Grading decides each step on the state just before its line ran, and which state that was
depends on the runbook (chosen only when `grade` is typed). Reading it for every line would cost
every session more than its commands do, so the lab keeps the lines typed (target and text, in
order) and how to make its starting state again; `grade` replays them on a new in-memory lab
from that start, watched by the grader, exactly as a transcript is graded. That lab is this
session's alone: what another shell on the same lab file did meanwhile is not in it.

Kept apart from solace_shell.grading (which needs the replay machinery) so that opening a lab
imports nothing of grading.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .lab import Lab

MAX_LINES = 100_000    # a longer session keeps its first lines only (and says so when graded)


@dataclass
class SessionLog:
    """The lines of one `Lab` (one terminal), and `start`, which builds a new Lab in the state
    the session started from (set when the lab is made, or taken at its first line)."""

    start: Callable[[], Lab] | None = None
    lines: list[tuple[str, str]] = field(default_factory=list)
    dropped: int = 0

    def keep_start(self, lab: Lab) -> None:
        """Called before the session's first line: keep a copy of the lab's state as it is now
        (a session on a lab file starts wherever that lab is). A lab whose state cannot be copied
        is still usable; only `grade` then says it cannot grade."""
        from .lab import Lab as LabType

        try:
            kept = lab.store.copy()
        except Exception as exc:  # noqa: BLE001 - grading must never cost the user their line
            reason = f"the state the session started from could not be kept ({type(exc).__name__})"

            def unavailable() -> Lab:
                raise RuntimeError(reason)
            self.start = unavailable
            return
        user = lab.user.name
        self.start = lambda: LabType(kept.copy(), user=user)

    def add(self, target: str, line: str) -> None:
        if len(self.lines) < MAX_LINES:
            self.lines.append((target, line))
        else:
            self.dropped += 1

    def clear(self) -> None:
        self.lines.clear()
        self.dropped = 0


# The labs that share one store in this process (the sessions of a served class), held weakly:
# a closed or forgotten session leaves the class by itself. With `solace-shell serve --workers N`,
# each server process holds the sessions it serves.
_lock = threading.Lock()
_classes: dict[int, weakref.WeakSet[Lab]] = {}     # id(store) -> the labs on it


def join_class(lab: Lab) -> None:
    """Count `lab` among the sessions of its store."""
    key = id(lab.store)
    with _lock:
        for stale in [k for k, labs in _classes.items() if not labs]:
            del _classes[stale]
        _classes.setdefault(key, weakref.WeakSet()).add(lab)


def classmates(lab: Lab) -> list[Lab]:
    """Every session on `lab`'s store (itself included), in no particular order."""
    with _lock:
        return list(_classes.get(id(lab.store), ()))
