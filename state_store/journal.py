"""Recording what a command changed: the top-level mutating Engine calls, in order.

Why calls and not changed records: a command's effect on the state is exactly the mutating Engine
calls it made, replayed in order on the state it started from (every call is deterministic: no wall
clock, no randomness; secrets arrive already hashed). A call record is tiny even when the call
publishes a million messages, so persisting a command (``state_store.lab_store``) and catching up with
another shell's commands cost the same whatever their size, and a rejected command is undone by
going back to the last image and replaying the calls kept since.

Calls made inside another journaled call are part of it and are not recorded again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from .errors import EngineError, PartialRefusal

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class CallRecord:
    """One top-level mutating engine call made by the current command."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@dataclass
class WorkLog:
    """What the current command did to the state, kept for persistence and rollback; never stored.

    ``calls`` are the top-level mutating engine calls in order (replaying them on the state the
    command started from gives the state it left); the HA kernel's changes are such calls too."""

    calls: list[CallRecord] = field(default_factory=list)
    depth: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.calls)

    def clear(self) -> None:
        self.calls.clear()
        self.depth = 0


class HasWork(Protocol):
    @property
    def work(self) -> WorkLog: ...


class HasState(Protocol):
    """What ``journaled`` needs of an engine: the state whose work log records its calls."""

    @property
    def state(self) -> HasWork: ...


S = TypeVar("S", bound=HasState)


def journaled(fn: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Mark an Engine method as changing the state: a top-level call is recorded in
    ``state.work.calls`` (before it runs, so calls it makes itself are not recorded again), under
    the engine's ``journal_prefix`` and the method's name (``solace.create_queue``; the lab root's
    calls have no prefix: ``state_store.lab_root.engine``).

    A top-level call that raises EngineError is dropped again: a refusal changes nothing (the
    contract tests/cli/test_refusals_change_nothing.py checks), so a command whose only call was
    refused has nothing to roll back, and no journal needs a refused call to reproduce a state. A
    PartialRefusal (found only after the call changed the state) keeps its record, as any other
    exception does.
    Any other exception keeps the record: the store rolls the whole command back."""

    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        work = self.state.work
        if work.depth:
            work.depth += 1
            try:
                return fn(self, *args, **kwargs)
            finally:
                work.depth -= 1
        calls = work.calls
        calls.append(CallRecord(getattr(self, "journal_prefix", "") + name, tuple(args), dict(kwargs)))
        work.depth = 1
        try:
            return fn(self, *args, **kwargs)
        except PartialRefusal:
            raise
        except EngineError:
            calls.pop()
            raise
        finally:
            work.depth = 0

    wrapper.__journaled__ = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]

