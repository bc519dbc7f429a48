"""What an HA system's shell part contributes (its package's ``SHELL``), and how the shell finds
its modules through the registry (``state_store.systems``).

Why a light module: the message table, the handler and renderer registries and the lab import
this while they are being built, so it imports nothing of the shell; the personality class and
the system's handlers are imported only when a lab asks for them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from state_store import systems

if TYPE_CHECKING:
    from ..access import UserAccess
    from ..lab import Lab


@dataclass(frozen=True)
class SystemShell:
    name: str                                       # the CLI's target, and its transcript prompt prefix
    personality: Callable[[Lab, UserAccess], Any]   # the CLI (a personalities.base.Personality)
    banner: str                                     # the start banner of a lab that holds only this system
    modules: tuple[str, ...]                        # handler and renderer modules of the package, to register
    # how a CLI that reads its own words (not the grammar's) reads a line: (grammar, line) ->
    # ParsedCommand, its refusal text, or None for a blank line; None: the grammar reads its lines
    parse_command: Callable[[Any, str], Any] | None = None


def personality_from(module: str, name: str) -> Callable[[Lab, UserAccess], Any]:
    """A ``SystemShell.personality``: the CLI class ``name`` of ``module``, imported only when a lab
    opens the CLI (the shell package itself is imported while the registries are built)."""

    def open_cli(lab: Lab, user: UserAccess) -> Any:
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


_REGISTERED: set[str] = set()


def register(system: str) -> None:
    """Import the system's handler and renderer modules (they register themselves), once, and
    check what they added: every handler's result has a renderer and every refusal code of the
    system has its text (``registries.system_problems``); a problem raises ``RegistryError``.

    Why on first use and not at start-up: a lab opens with the grammar of every system, but most
    labs hold one system; importing every system's handlers (and through them its model) at each
    start cost a one-shot command about a tenth of its time."""
    if system in _REGISTERED:
        return
    from ..handlers import HANDLERS
    from ..registries import RegistryError, system_problems

    before = set(HANDLERS)
    for module in shell(system).modules:
        shell_part(system, module)
    _REGISTERED.add(system)
    problems = system_problems(system, {k: v for k, v in HANDLERS.items() if k not in before})
    if problems:
        raise RegistryError(problems)


def import_modules(package: str) -> None:
    """Import every module of ``package`` (handler and renderer modules register themselves when
    imported)."""
    found = importlib.import_module(package)
    for info in pkgutil.iter_modules(found.__path__):
        importlib.import_module(f"{package}.{info.name}")


def register_root(part: str) -> None:
    """Import the ``handlers`` or ``renderers`` modules of the root model's CLI (its personality
    package, ``personalities.<ROOT.name>``): the lab's own commands, registered at every start."""
    import_modules(f"{__package__}.{systems.ROOT.name}.{part}")


def register_all() -> None:
    """Register every system (``register``): what the whole installation's checks need."""
    for name in systems.names():
        register(name)
