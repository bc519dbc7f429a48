"""`statically_frozen`: a frozen dataclass as the type checker sees it, a plain one at run time.

Why: a frozen dataclass pays for its guard twice. Its generated ``__init__`` must assign every
field through ``object.__setattr__`` (the class's own ``__setattr__`` refuses), about 80 ns a
field, and an instance written any other way than by plain attribute stores keeps its fields in a
materialised ``__dict__``, where every later read is slower. The views a command builds hold some
23 fields, read again by the renderers: the guard cost about 5% of a replay.

So the guard moves to where it costs nothing: the class is declared ``@dataclass(frozen=True)``,
so mypy (``--strict``, run by ``.ci/run``) refuses any assignment to a field; at run time the class
drops the refusing ``__setattr__``/``__delattr__`` and gets the ``__init__`` of a plain dataclass.
Equality, the field hash of a frozen dataclass, ``repr``, ``dataclasses.asdict``/``replace`` and
pickling are the dataclass's own and unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def statically_frozen(cls: type[T]) -> type[T]:
    """Make ``cls``, a frozen dataclass with an instance ``__dict__`` (not slotted), no
    ``__post_init__`` and positional fields only, plain at run time; anything else raises
    TypeError at import."""
    params = getattr(cls, "__dataclass_params__", None)
    if not is_dataclass(cls) or params is None or not params.frozen:
        raise TypeError(f"statically_frozen: {cls.__name__} is not a frozen dataclass")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"statically_frozen: {cls.__name__} is slotted or has __post_init__")
    namespace: dict[str, Any] = {"MISSING": MISSING}
    signature: list[str] = []
    body: list[str] = []
    for f in fields(cls):
        if not f.init or f.kw_only:
            raise TypeError(f"statically_frozen: {cls.__name__}.{f.name} is not a plain positional field")
        if f.default is not MISSING:
            namespace[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            signature.append(f"{f.name}=MISSING")
            body.append(f"    if {f.name} is MISSING: {f.name} = _factory_{f.name}()")
        else:
            signature.append(f.name)
        body.append(f"    self.{f.name} = {f.name}")
    source = "\n".join([f"def __init__(self, {', '.join(signature)}):", *(body or ["    pass"])])
    # the dataclass's own way: a function made from its fields, through the exec ``dataclasses``
    # runs its methods' source with (a start's compiled-code cache may have replaced the builtin)
    getattr(dataclasses, "exec", exec)(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[method-assign]  # the point: a plain dataclass's __init__
    for guard in ("__setattr__", "__delattr__"):
        if guard in cls.__dict__:
            delattr(cls, guard)
    if cls.__setattr__ is not object.__setattr__:
        raise TypeError(f"statically_frozen: {cls.__name__} inherits a refusing __setattr__ (decorate its bases too)")
    return cls
