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
the shared failure verbs, and the router CLI's, ``personalities.<ROUTER_CLI.name>``) is registered
once per process before the first lab opens (``load_own``): imported whole and checked, or, when
an earlier start kept its index (``registry_index``), imported module by module as its keys are
first asked for.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from state_store import loader as model_loader
from state_store import systems

from . import handlers, messages, registry_index, renderers
from .personalities.plugin import shell, shell_part
from .registries import RegistryError, system_problems

_OWN = False            # the own part registered (imported, or to be imported key by key)
_OWN_IMPORTED = False   # every module of the own part imported
_LOADED: set[str] = set()


def _own_packages() -> tuple[str, ...]:
    root_cli = f"{__package__}.personalities.{systems.ROUTER_CLI.name}"
    return (handlers.__name__, renderers.__name__, f"{root_cli}.handlers", f"{root_cli}.renderers")


def load_own() -> None:
    """Register the lab's own handlers and renderers and the router CLI's, once per process:
    the registries are process-wide, and scanning the packages again for every lab cost replay
    time. With a valid kept index (``registry_index``) nothing is imported here: each registry
    imports the module of a key when it is first asked for (``lazy_registry``)."""
    global _OWN
    if _OWN:
        return
    index = registry_index.kept()
    if index is None:
        import_own()
    else:
        handlers.HANDLERS.locate = index.handler_module
        renderers.RENDERERS.locate = index.renderer_module
    _OWN = True


def import_own() -> None:
    """Import every module of the lab's own part (what a check that walks the registries needs),
    noting for ``registry_index`` what each one registers."""
    global _OWN, _OWN_IMPORTED
    if _OWN_IMPORTED:
        return
    registry_index.note_start(not handlers.HANDLERS and not renderers.RENDERERS)
    for package in _own_packages():
        for name in [package, *_module_names(package)]:
            had = len(handlers.HANDLERS), len(renderers.RENDERERS)
            importlib.import_module(name)
            registry_index.note(name, {k: handlers.HANDLERS[k] for k in list(handlers.HANDLERS)[had[0]:]},
                                {k: renderers.RENDERERS[k] for k in list(renderers.RENDERERS)[had[1]:]})
    _OWN_IMPORTED = _OWN = True


def _module_names(package: str) -> list[str]:
    """The modules of ``package`` (imported), the directories scanned noted for ``registry_index``."""
    found = importlib.import_module(package)
    for directory in found.__path__:
        registry_index.note_directory(directory)
    return [f"{package}.{info.name}" for info in pkgutil.iter_modules(found.__path__)]


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
    import_own()
    load_systems(systems.names())
