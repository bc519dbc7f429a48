"""A registry that its modules fill as they are imported, and that can import the one it needs.

Why: the lab's own handler and renderer modules (the router CLI's, the lab console's) are some
forty, and a command runs one handler and one renderer. When the loader knows, from an index kept
between processes (``solace_shell.registry_index``), which module registers which key, it gives
the registry a ``locate`` function; a key not registered yet then imports the module ``locate``
names for it, once, before the answer. Without ``locate`` this is a plain dict.

``in`` answers for a key ``locate`` knows without importing anything; iterating lists what is
registered so far, so a check that walks a registry imports every module first (the loader's
``load_all``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")
_ABSENT = object()
_dict_get = dict.get


class LazyRegistry(dict[K, V]):
    """A dict whose lookups may import the module that registers the key (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.locate: Callable[[K], str | None] | None = None

    def _imported(self, key: K) -> bool:
        """Whether importing the module ``locate`` names for ``key`` registered it."""
        locate = self.locate
        module = locate(key) if locate is not None else None
        if module is None:
            return False
        importlib.import_module(module)   # (waits for a module another thread is importing)
        return dict.__contains__(self, key)

    def registered(self, key: K) -> bool:
        """Whether ``key`` is registered now (never imports: what a registering decorator asks)."""
        return dict.__contains__(self, key)

    @overload
    def get(self, key: K, default: None = None, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V, /) -> V: ...
    @overload
    def get(self, key: K, default: T, /) -> V | T: ...

    def get(self, key: K, default: object = None, /) -> object:
        found = _dict_get(self, key, _ABSENT)   # (looked up before every command: one call when registered)
        if found is not _ABSENT:
            return found
        return _dict_get(self, key, default) if self._imported(key) else default

    def __getitem__(self, key: K) -> V:
        if not dict.__contains__(self, key):
            self._imported(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        locate = self.locate
        return locate is not None and locate(key) is not None  # type: ignore[arg-type]  # any key may be asked
