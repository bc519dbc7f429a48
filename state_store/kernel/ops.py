"""The kernel's journaled operations: every change an HA system makes to the kernel, by name.

Why: a lab file keeps a command as the list of journaled Engine calls it made, and other shells
replay them; an HA system's state change is one such call, ``Engine.kernel_call(name, *args)``,
naming an operation registered here (``<system>.<verb>``). So every system persists, catches up,
rolls back and survives a SIGKILL exactly as the Solace model does, and no command ever needs an
image of the whole state. An operation must be deterministic (no wall clock, no randomness) and
must decide its refusals (``EngineError``) before it changes anything.

Systems register their operations when their model package is imported, which the lab's loader
(``state_store.loader``) does for every system a lab holds before anything runs on it: the kernel
never looks a system up, so an operation of a system the lab does not hold is simply unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .kernel import Kernel

Operation = Callable[..., Any]
F = TypeVar("F", bound=Operation)
_OPS: dict[str, Operation] = {}


def operation(name: str) -> Callable[[F], F]:
    """Register ``fn(kernel, *args)`` as the journaled operation ``name`` (``<system>.<verb>``)."""

    def register(fn: F) -> F:
        if name in _OPS and _OPS[name] is not fn:
            raise ValueError(f"kernel operation {name!r} registered twice")
        _OPS[name] = fn
        return fn

    return register


def find(name: str) -> Operation | None:
    """The operation ``name``; None when no loaded system registered it."""
    return _OPS.get(name)


def run(kernel: Kernel, name: str, *args: Any) -> Any:
    fn = find(name)
    if fn is None:
        raise LookupError(f"no kernel operation {name!r}")
    return fn(kernel, *args)
