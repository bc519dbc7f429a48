"""Renderer registry: result type -> exact CLI text.

One model, two displays (fake-switches' lesson): the same result object prints as CLI text here
and as JSON through `dataclasses.asdict`, so a JSON twin of every show command costs nothing.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

Renderer = Callable[[Any], str]
RENDERERS: dict[type, Renderer] = {}


def renderer(result_type: type) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        if result_type in RENDERERS:
            raise RuntimeError(f"renderer for {result_type.__name__} registered twice")
        RENDERERS[result_type] = fn
        return fn
    return register


@functools.cache
def load_all() -> dict[type, Renderer]:
    """Import every renderer module; returns the registry. Once per process: the registry is
    process-wide, and scanning the package again for every Lab cost replay time."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    from ..personalities import solace
    from ..personalities.plugin import register_all

    solace.register("renderers")   # the Solace router CLI's own renderers
    register_all()   # the HA systems' own renderers (state_store.systems)
    return RENDERERS


def render(result: Any) -> str:
    fn = RENDERERS.get(type(result))
    if fn is None:
        raise LookupError(f"no renderer for {type(result).__name__}")
    return fn(result)
