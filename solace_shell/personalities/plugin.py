"""What an HA system's shell part contributes (its package's ``SHELL``), and how the shell finds
its modules through the registry (``state_store.systems``).

Why a light module: the shell's loader (``solace_shell.loader``) and the lab read it, so it
imports nothing of the shell; the personality class is imported only when a lab opens the CLI,
the handler, renderer and message modules when the loader registers the system.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from state_store import systems

if TYPE_CHECKING:
    from ..access import UserAccess
    from .host import LabHost


@dataclass(frozen=True)
class SystemShell:
    name: str                                       # the CLI's target, and its transcript prompt prefix
    personality: Callable[[LabHost, UserAccess], Any]   # the CLI (a personalities.base.Personality)
    banner: str                                     # the start banner of a lab that holds only this system
    modules: tuple[str, ...]                        # handler and renderer modules of the package (the loader's)
    # how a CLI that reads its own words (not the grammar's) reads a line: (grammar, line) ->
    # ParsedCommand, its refusal text, or None for a blank line; None: the grammar reads its lines
    parse_command: Callable[[Any, str], Any] | None = None


def personality_from(module: str, name: str) -> Callable[[LabHost, UserAccess], Any]:
    """A ``SystemShell.personality``: the CLI class ``name`` of ``module``, imported only when a lab
    opens the CLI (the shell package itself is imported while the registries are built)."""

    def open_cli(lab: LabHost, user: UserAccess) -> Any:
        return getattr(importlib.import_module(module), name)(lab, user)

    return open_cli


def function_from(module: str, name: str) -> Callable[..., Any]:
    """The function ``name`` of ``module``, imported on its first call."""

    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args)

    return call


def command_parser(level: str) -> Callable[[Any, str], Any] | None:
    """How lines written at ``level`` are read when its CLI reads its own words (a registered
    system's CLI with a ``parse_command``); None when the grammar reads them."""
    return shell(level).parse_command if systems.entry(level) is not None else None


def shell_part(system: str, module: str) -> ModuleType:
    """``<the system's shell package>.<module>`` (the package itself for "")."""
    entry = systems.entry(system)
    if entry is None:
        raise LookupError(f"no HA system {system!r}")
    return importlib.import_module(entry.shell + (f".{module}" if module else ""))


def shell(system: str) -> SystemShell:
    found: SystemShell = shell_part(system, "").SHELL
    return found
