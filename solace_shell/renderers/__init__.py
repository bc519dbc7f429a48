"""Renderer registry: result type -> exact CLI text.

One model, two displays (fake-switches' lesson): the same result object prints as CLI text here
and as JSON through `dataclasses.asdict`, so a JSON twin of every show command costs nothing.
This module is the registry only: the shell's loader (``solace_shell.loader``) imports the
renderer modules, and each registers itself with ``@renderer``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..lazy_registry import LazyRegistry

Renderer = Callable[[Any], str]
RENDERERS: LazyRegistry[type, Renderer] = LazyRegistry()


def renderer(result_type: type) -> Callable[[Renderer], Renderer]:
    def register(fn: Renderer) -> Renderer:
        if RENDERERS.registered(result_type):
            raise RuntimeError(f"renderer for {result_type.__name__} registered twice")
        RENDERERS[result_type] = fn
        return fn
    return register


def renderer_for(result: Any) -> Renderer:
    """The renderer of ``result``'s type (the loader registered those of every system the lab
    holds when it opened, so a shared verb's view of one, ``ha kill ha1.A``, has its renderer)."""
    fn = RENDERERS.get(type(result))
    if fn is None:
        raise LookupError(f"no renderer for {type(result).__name__}")
    return fn


def render(result: Any) -> str:
    return renderer_for(result)(result)
