"""Recording what a command changed: the top-level mutating Engine calls, in order.

Why calls and not changed records: a command's effect on the state is exactly the mutating Engine
calls it made, replayed in order on the state it started from (every call is deterministic: no wall
clock, no randomness; secrets arrive already hashed). A call record is tiny even when the call
publishes a million messages, so persisting a command (``state_store.store``) and catching up with
another shell's commands cost the same whatever their size, and a rejected command is undone by
going back to the last image and replaying the calls kept since.

Calls made inside another journaled call are part of it and are not recorded again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from .state import BrokerState, CallRecord

P = ParamSpec("P")
R = TypeVar("R")


class HasState(Protocol):
    state: BrokerState


S = TypeVar("S", bound=HasState)


def journaled(fn: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Mark an Engine method as changing the state: a top-level call is recorded in
    ``state.work.calls`` (before it runs: if it raises, the whole command is rolled back anyway)."""

    @functools.wraps(fn)
    def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        work = self.state.work
        if work.depth == 0:
            work.calls.append(CallRecord(fn.__name__, tuple(args), dict(kwargs)))
        work.depth += 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            work.depth -= 1

    wrapper.__journaled__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]

