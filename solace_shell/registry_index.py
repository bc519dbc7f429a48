"""Which of the lab's own modules registers which handler and renderer, kept between processes
with the fact that they passed the start-up checks.

Why: registering the lab's own handler and renderer modules (the router CLI's and the lab
console's, some forty) means importing every one of them, and the start-up check walks every
handler's result type, although a command runs one handler and one renderer. What those modules
register, and whether it fits together, depends on the source alone; so the loader, once it has
imported them all and the checks found nothing, keeps an index here: each handler id and each
result type with the module whose import registers it. A later start that finds the index valid
imports nothing up front: the registries (``solace_shell.lazy_registry``) import a module when
a key it registers is first asked for, and the renderer check's verdict is the kept one.

Valid means: the same Python, and every stamp the same (size and modification time, as a
``.pyc`` is checked) of each module of ``solace_shell``, ``state_store`` and ``grammar`` that
was imported when the index was made, and of each directory the loader scans for handler and
renderer modules (a module added or removed there changes it). Anything else (no file, another
Python, a changed stamp, a damaged file) is no index: the loader imports every module and the
checks run, exactly as without it, and a new index is kept when they find nothing. The file lives
in this package's ``__pycache__``, beside the byte code, and is written atomically (a concurrent
start reads the old file or the new one); where it cannot be written it is not kept.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .cache_file import replace_quietly

_FILE = Path(__file__).resolve().parent / "__pycache__" / f"own-registries.{sys.implementation.cache_tag}.marshal"
_FORMAT = 1
_PACKAGES = ("solace_shell", "state_store", "grammar")

Handlers = Mapping[str, Callable[..., Any]]
Renderers = Mapping[type, Callable[..., Any]]
Entry = tuple[str, str, str]   # (module whose import registers it, the function's module, its qualified name)
Stamp = tuple[str, int, int]   # (path, st_mtime_ns, st_size)


class Index:
    """A valid kept index: where each handler id and each rendered type is registered."""

    def __init__(self, handlers: dict[str, Entry], renderers: dict[tuple[str, str], Entry]) -> None:
        self.handlers = handlers
        self.renderers = renderers

    def handler_module(self, handler_id: str) -> str | None:
        """The module whose import registers ``handler_id`` (None: no own module does)."""
        entry = self.handlers.get(handler_id)
        return entry[0] if entry is not None else None

    def renderer_module(self, kind: type) -> str | None:
        """The module whose import registers the renderer of ``kind`` (None: no own module does)."""
        entry = self.renderers.get(_type_key(kind))
        return entry[0] if entry is not None else None

    def describes(self, handlers: Handlers, renderers: Renderers) -> bool:
        """Whether every handler and renderer registered now is one the index was checked with."""
        return (all(_matches(self.handlers.get(key), fn) for key, fn in handlers.items())
                and all(_matches(self.renderers.get(_type_key(kind)), fn) for kind, fn in renderers.items()))


def _named(fn: Callable[..., Any]) -> tuple[str, str]:
    return (str(getattr(fn, "__module__", "")), str(getattr(fn, "__qualname__", "")))


def _matches(entry: Entry | None, fn: Callable[..., Any]) -> bool:
    return entry is not None and entry[1:] == _named(fn)


def _type_key(kind: object) -> tuple[str, str]:
    return (str(getattr(kind, "__module__", "")), str(getattr(kind, "__qualname__", "")))


def _stamp(path: str) -> Stamp | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (path, found.st_mtime_ns, found.st_size)


_kept: Index | None = None
_read = False


def kept() -> Index | None:
    """The kept index when it is valid (read once per process), else None."""
    global _kept, _read
    if not _read:
        _read = True
        _kept = _load()
    return _kept


def _entry(value: Any) -> Entry:
    module, fn_module, name = value
    if not (isinstance(module, str) and module.startswith("solace_shell.")):
        raise ValueError(module)   # the index names the lab's own modules only
    return (module, str(fn_module), str(name))


def _load() -> Index | None:
    try:
        form, version, stamps, handlers, renderers = marshal.loads(_FILE.read_bytes())
        if form != _FORMAT or version != sys.version:
            return None
        if any(_stamp(path) != (path, mtime, size) for path, mtime, size in stamps):
            return None
        return Index({str(key): _entry(value) for key, value in handlers.items()},
                     {(str(module), str(name)): _entry(value) for (module, name), value in renderers.items()})
    except (OSError, EOFError, ValueError, TypeError, AttributeError):
        return None


# What the loader saw while it imported every own module, for ``keep``.
_handlers_by: dict[str, Entry] = {}
_renderers_by: dict[tuple[str, str], Entry] = {}
_directories: list[str] = []
_attributed = False


def note_start(registries_empty: bool) -> None:
    """The loader starts importing every own module: what it imports is attributed to each
    module only when the registries were empty before (nothing registered by someone else)."""
    global _attributed
    _attributed = registries_empty
    _handlers_by.clear()
    _renderers_by.clear()
    _directories.clear()


def note_directory(path: str) -> None:
    """A directory the loader scans for handler and renderer modules."""
    _directories.append(path)


def note(module: str, handlers: Handlers, renderers: Renderers) -> None:
    """What importing ``module`` registered."""
    for key, fn in handlers.items():
        _handlers_by[key] = (module, *_named(fn))
    for kind, fn in renderers.items():
        _renderers_by[_type_key(kind)] = (module, *_named(fn))


def keep(handlers: Handlers, renderers: Renderers) -> None:
    """Keep the index of what the loader imported, now that the registries' checks found nothing:
    only when what is registered is exactly what the loader's imports registered (nothing added or
    replaced since), once per process."""
    global _attributed
    if not (_attributed and len(handlers) == len(_handlers_by) and len(renderers) == len(_renderers_by)
            and Index(_handlers_by, _renderers_by).describes(handlers, renderers)):
        return
    _attributed = False
    stamps = [_stamp(path) for path in _directories]
    for name, module in list(sys.modules.items()):
        origin = getattr(module, "__file__", None)
        if name.partition(".")[0] in _PACKAGES and isinstance(origin, str):
            stamps.append(_stamp(origin))
    if None in stamps:
        return
    data = marshal.dumps((_FORMAT, sys.version, tuple(stamps), dict(_handlers_by), dict(_renderers_by)))
    replace_quietly(_FILE, data)
