"""Start-up check that the shell's registries fit together, every problem reported at once.

The grammar names handlers and completion sources, handlers return result types, the engine raises
error codes; each of these is a registry of its own, and a gap between two of them would only show
when a user hit it (a traceback for a result nobody renders, a generic message for an error code
with no text). `shell_grammar()` loads the grammar against the handler and completion-source
registries and adds the problems found here, so a broken tree fails before the first prompt with
the whole list.
"""

from __future__ import annotations

import string
import types
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from state_store.errors import ERROR_CODES
from state_store.loader import error_codes

from .messages import ENGINE_ERRORS, REJECT_REASONS, SYSTEM_TEXTS
from .registry_error import RegistryError as RegistryError
from .results import SESSION_RESULTS

if TYPE_CHECKING:
    from grammar.model import Grammar


def template_fields(template: str) -> set[str]:
    """The `{names}` a message template uses."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def message_problems(codes: Mapping[str, tuple[str, ...]] | None = None,
                     texts: Mapping[str, str] = ENGINE_ERRORS) -> list[str]:
    """Every engine error code (the HA systems' too) has a text naming only the code's parameters;
    every text has a code."""
    codes = error_codes() if codes is None else codes
    problems = []
    for code, params in sorted(codes.items()):
        text = texts.get(code)
        if text is None:
            problems.append(f"engine error {code!r} has no text in solace_shell/messages.py ENGINE_ERRORS")
            continue
        unknown = template_fields(text) - set(params)
        if unknown:
            problems.append(f"the text of engine error {code!r} names {', '.join(sorted(unknown))}, which the "
                            f"engine does not send (it sends: {', '.join(params) or 'nothing'})")
    for code, params in sorted(codes.items()):
        if "rejected" in params and code not in REJECT_REASONS:
            problems.append(f"recorded refusal {code!r} has no short reason in solace_shell/messages.py REJECT_REASONS")
    for code in sorted(set(texts) - set(codes)):
        problems.append(f"ENGINE_ERRORS has a text for {code!r}, which is not an engine error code "
                        f"(state_store/errors.py ERROR_CODES, or an HA system's MODEL.error_codes)")
    return problems


def result_types(fn: Callable[..., Any]) -> tuple[Any, ...] | None:
    """The types a handler's return annotation allows (a union is split); None when unannotated."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an annotation that does not resolve is reported like a missing one
        return None
    if "return" not in hints:
        return None
    ret = hints["return"]
    if isinstance(ret, types.UnionType) or typing.get_origin(ret) is typing.Union:
        return typing.get_args(ret)
    return (ret,)


def _hints_key(fn: Callable[..., Any]) -> tuple[Any, ...] | None:
    """All that ``typing.get_type_hints`` reads of a plain function: its globals and annotations;
    None for anything else (a wrapper, defaults, a callable object), which is evaluated on its own."""
    if (not isinstance(fn, types.FunctionType) or fn.__defaults__ or fn.__kwdefaults__
            or hasattr(fn, "__wrapped__") or not all(isinstance(v, str) for v in fn.__annotations__.values())):
        return None
    return (id(fn.__globals__), tuple(fn.__annotations__.items()))


def renderer_problems(handlers: Mapping[str, Callable[..., Any]], renderers: Mapping[type, Any]) -> list[str]:
    """Every type a handler may return is rendered by the session itself or has a renderer.

    Handlers of one module mostly share their annotations (``ctx: HandlerContext, args: Args ->
    None``): those are evaluated once per module and check, not once per handler, since evaluating
    them is most of the check's cost at every start."""
    problems = []
    evaluated: dict[tuple[Any, ...], tuple[Any, ...] | None] = {}
    for handler_id, fn in sorted(handlers.items()):
        key = _hints_key(fn)
        if key is None:
            allowed = result_types(fn)
        elif key in evaluated:
            allowed = evaluated[key]
        else:
            allowed = evaluated[key] = result_types(fn)
        if allowed is None:
            problems.append(f"handler {handler_id} ({fn.__module__}.{fn.__name__}) has no usable return annotation")
            continue
        for kind in allowed:
            if kind is type(None) or kind in SESSION_RESULTS or kind in renderers:
                continue
            name = getattr(kind, "__name__", repr(kind))
            problems.append(f"handler {handler_id} returns {name}, which has no renderer in solace_shell/renderers")
    return problems


def own_handler_problems(grammar: Grammar) -> list[str]:
    """Every command of the lab's own grammar has its handler (an HA system's commands are
    checked when the loader registers the system: ``system_problems``), once the lab's own part is
    registered (``loader.load_own``)."""
    from .handlers import HANDLERS

    return [f"{cmd.source}: handler {cmd.handler!r} does not exist"
            for cmd in grammar.commands if not cmd.system and cmd.handler not in HANDLERS]


def registry_problems() -> list[str]:
    """The checks that do not need the grammar (the grammar loader does the other two), on the
    lab's own registries (registered by ``loader.load_own``): each HA system's are checked when it
    is registered (``system_problems``). The renderer check is not run again on what a valid kept
    index (``registry_index``) says was checked; when it runs and finds nothing, the index is kept."""
    from . import registry_index
    from .handlers import HANDLERS
    from .renderers import RENDERERS

    own_texts = {code: text for code, text in ENGINE_ERRORS.items()
                 if not any(code in texts for texts in SYSTEM_TEXTS.values())}
    problems = message_problems(ERROR_CODES, own_texts)
    index = registry_index.kept()
    if index is not None and index.describes(HANDLERS, RENDERERS):
        return problems   # what is registered was checked when the index was kept
    found = renderer_problems(HANDLERS, RENDERERS)
    if not problems and not found:
        registry_index.keep(HANDLERS, RENDERERS)
    return problems + found


def system_problems(system: str, handlers: Mapping[str, Callable[..., Any]]) -> list[str]:
    """An HA system's part of the checks, once its handlers and renderers are registered: each of
    ``handlers`` (the ones it added) returns something rendered, and each of its refusal codes
    has a text naming only its parameters (and each of its texts a code)."""
    from state_store import loader

    from . import renderers

    model = loader.load_model(system)
    codes = {} if model is None else dict(model.MODEL.error_codes)
    return (message_problems(codes, SYSTEM_TEXTS.get(system, {}))
            + renderer_problems(handlers, renderers.RENDERERS))
