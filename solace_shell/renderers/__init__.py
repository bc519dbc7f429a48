"""Renderer registry: result type -> exact CLI text.

One model, two displays (fake-switches' lesson): the same result object prints as CLI text here
and as JSON through `dataclasses.asdict`, so a JSON twin of every show command costs nothing.
"""

from __future__ import annotations

import functools
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
def load_own() -> dict[type, Renderer]:
    """Import this package's renderer modules and the router CLI's (the lab's own results);
    returns the registry. An HA system's renderers are registered with its handlers, before any
    of its results exists (``personalities.plugin.register``). Once per process: the registry is
    process-wide, and scanning the package again for every Lab cost replay time."""
    from ..personalities.plugin import import_modules, register_root

    import_modules(__name__)
    register_root("renderers")   # the root model's CLI (the router CLI): its own renderers
    return RENDERERS


def load_all() -> dict[type, Renderer]:
    """Every renderer: the lab's own and every registered HA system's; returns the registry."""
    load_own()
    from ..personalities.plugin import register_all

    register_all()
    return RENDERERS


def renderer_for(result: Any) -> Renderer:
    """The renderer of ``result``'s type. A type with none yet may be an HA system's view that a
    shared verb returned (``ha kill ha1.A``) before any of that system's own commands ran: every
    system is registered then (once), and the lookup is tried again."""
    fn = RENDERERS.get(type(result))
    if fn is None:
        load_all()
        fn = RENDERERS.get(type(result))
    if fn is None:
        raise LookupError(f"no renderer for {type(result).__name__}")
    return fn


def render(result: Any) -> str:
    return renderer_for(result)(result)
