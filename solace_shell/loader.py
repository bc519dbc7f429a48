"""The shell's one loader: it registers, in one pass per system, everything the shell needs of
the systems a lab holds, then checks what it registered.

Why one loader: the handler and renderer registries, the message table and the system registry
are looked up by every CLI, so they sit below all of them and import none of them. A system's
shell part contributes its symbols here only, when a lab that holds it opens (``Lab``): its
model (``state_store.loader``, which hands its policies and operations to the kernel), its
handler and renderer modules (each registers itself when imported), its refusal texts (merged
into ``messages.ENGINE_ERRORS``); then ``registries.system_problems`` checks that each of its
handlers' results has a renderer and each of its refusal codes a text, and raises
``RegistryError`` with every problem. A lab that holds one system never imports the others.

The lab's own part (this package's ``handlers`` and ``renderers``, the lab console's verbs and
the shared failure verbs, and the root model's CLI, ``personalities.<ROOT.name>``) is registered
once per process before the first lab opens (``load_own``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from state_store import loader as model_loader
from state_store import systems

from . import handlers, messages, renderers
from .personalities.plugin import shell, shell_part
from .registries import RegistryError, system_problems

_OWN = False
_LOADED: set[str] = set()


def import_modules(package: str) -> None:
    """Import every module of ``package`` (handler and renderer modules register themselves when
    imported)."""
    found = importlib.import_module(package)
    for info in pkgutil.iter_modules(found.__path__):
        importlib.import_module(f"{package}.{info.name}")


def load_own() -> None:
    """Register the lab's own handlers and renderers and the root model's CLI's, once per process:
    the registries are process-wide, and scanning the packages again for every lab cost replay
    time."""
    global _OWN
    if _OWN:
        return
    root_cli = f"{__package__}.personalities.{systems.ROOT.name}"
    for package in (handlers.__name__, renderers.__name__, f"{root_cli}.handlers", f"{root_cli}.renderers"):
        import_modules(package)
    _OWN = True


def load_systems(names: Iterable[str]) -> None:
    """Register each registered system of ``names`` not registered yet: its model, its handler
    and renderer modules and its refusal texts, then check them; a problem raises
    ``RegistryError`` listing every one. A name the registry does not hold is the caller's
    problem (``LookupError``)."""
    for name in names:
        if name in _LOADED:
            continue
        if systems.entry(name) is None:
            raise LookupError(f"no HA system {name!r}")
        model_loader.load_model(name)
        before = set(handlers.HANDLERS)
        part = shell(name)
        for module in part.modules:
            shell_part(name, module)
        messages.add_system_texts(name, shell_part(name, "messages").MESSAGES)
        _LOADED.add(name)
        problems = system_problems(name, {k: v for k, v in handlers.HANDLERS.items() if k not in before})
        if problems:
            raise RegistryError(problems)


def load_all() -> None:
    """The lab's own part and every registered system: what the whole installation's checks
    need."""
    load_own()
    load_systems(systems.names())
