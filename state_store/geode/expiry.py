"""When a cluster's secondaries look for events older than message-time-to-live: one pending
timer per cluster, not one per put.

Contract: every put that reaches a subscription queue makes one *expiry position*, the
(due_ms, seq) its own timer would have had (due: the put's time plus message-time-to-live; seq:
taken from the kernel's timer queue at the put, ``reserve``, so every other timer keeps its
number and its order against it). The orphan expiry (``queues.on_expire``) runs at exactly those
positions at which it finds something to expire: a run that finds nothing changes nothing, so only
the first position at or after the earliest time a secondary's oldest event can expire is a
pending kernel timer (kind ``expiry``, ``armed``). Whatever gives a secondary an event that could
expire before the armed position calls ``note`` (a put, a new secondary's initial image); a
copy going away only makes the armed run find less. Why: the timer queue and every advance used
to carry one timer per put of the last message-time-to-live, each run of it an expiry pass over
every secondary.

The positions still to come and the armed one live in the cluster's data (``expiry``: ``due``
[[due_ms, seq], ...] in order, ``armed`` [due_ms, seq] or None), saved with the kernel snapshot.
A lab file written before holds one ``expire`` timer per put instead; those still run as they
were (policy.py).
"""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from typing import Any

from ..kernel import Kernel

KIND = "expiry"
LEGACY_KIND = "expire"   # one timer per put, in lab files written before


def _state(core: Kernel, group: str) -> dict[str, Any]:
    state: dict[str, Any] = core.groups[group].data.setdefault("expiry", {"due": [], "armed": None})
    return state


def _forget_passed(core: Kernel, due: list[list[int]]) -> None:
    """Drop the positions already passed: at or before the timer running now; between advances,
    every one due by now (the advance that reached now ran every timer due by it)."""
    running = core.timers.running
    mark = [running[0], running[1]] if running is not None else [core.now_ms, sys.maxsize]
    del due[:bisect_right(due, mark)]


def reserve(core: Kernel, group: str, due_ms: int) -> None:
    """A put reached a subscription queue: its expiry position, due at ``due_ms``."""
    due: list[list[int]] = _state(core, group)["due"]
    _forget_passed(core, due)
    position = [due_ms, core.timers.reserve()]
    if due and due[-1] > position:
        due.insert(bisect_right(due, position), position)
    else:
        due.append(position)


def note(core: Kernel, group: str, earliest_ms: int) -> None:
    """A secondary may hold an event that expires at ``earliest_ms``: arm the first position to
    come due at or after it, unless the armed one comes first."""
    state = _state(core, group)
    due: list[list[int]] = state["due"]
    _forget_passed(core, due)
    i = bisect_left(due, [earliest_ms, 0])
    if i == len(due):
        return
    armed: list[int] | None = state["armed"]
    if armed is not None:
        if armed <= due[i]:
            return
        core.timers.withdraw(armed[1])
    state["armed"] = list(due[i])
    core.timers.schedule(due[i][0], group, "", KIND, seq=due[i][1])


def fired(core: Kernel, group: str) -> None:
    """The armed timer runs (``core.timers.running``): nothing is armed now, and its position and
    those before it pass."""
    state = _state(core, group)
    state["armed"] = None
    _forget_passed(core, state["due"])
