"""The lab console verbs every HA system has, written once: a journaled operation of the system,
the groups a `state` verb shows, the totals and findings its `audit` shows, and the switch to
its CLI.

Why shared: each system's lab console lists its groups (the one named, else all; refused when the
lab has none), audits one group or the whole lab through the kernel, and opens its own CLI only
when the lab holds one of its groups. Only the refusal codes, the parameter names and the views
are the system's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from state_store.errors import EngineError
from state_store.kernel import AuditTotals, Finding, Kernel

from ..handlers import Args, HandlerContext
from ..results import SwitchTarget

Groups = Callable[[Kernel], list[str]]   # every group of the system, in scenario order


@dataclass(frozen=True)
class AuditResult:
    """The kernel's audit of one group or of the whole lab; each system subclasses it so that its
    own renderer prints it."""

    totals: AuditTotals
    findings: tuple[Finding, ...]


def call(ctx: HandlerContext, system: str, op: str, *args: object) -> Any:
    """Run the system's journaled operation ``<system>.<op>`` (it persists across shells)."""
    return ctx.engine.kernel_call(f"{system}.{op}", *args)


def chosen_groups(ctx: HandlerContext, args: Args, param: str, groups: Groups, none_code: str) -> list[str]:
    """The group the verb names (checked by the view that reads it), else every group of the
    system; refused with ``none_code`` when the lab holds none."""
    names = [str(args[param])] if param in args else groups(ctx.engine.kernel())
    if not names:
        raise EngineError(none_code)
    return names


def audit(ctx: HandlerContext, args: Args, param: str, group: Callable[[Kernel, str], str]) -> tuple[
        AuditTotals, tuple[Finding, ...]]:
    """The audit of the group the verb names (``group`` refuses an unknown one), else of the lab."""
    core = ctx.engine.kernel()
    return core.audit(group(core, str(args[param])) if param in args else None)


def switch_to(ctx: HandlerContext, system: str, groups: Groups, none_code: str) -> SwitchTarget:
    """Open the system's CLI; refused with ``none_code`` when the lab holds none of its groups."""
    if not groups(ctx.engine.kernel()):
        raise EngineError(none_code)
    return SwitchTarget(system)
