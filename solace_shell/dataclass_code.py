"""The code of the methods ``dataclasses`` writes, compiled once and kept between processes.

Why: ``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__`` ... as Python source
and compiles it (``exec``) every time the class is created, so every start of the shell compiled
the same few hundred small functions again: about half of the CPU time of a one-shot
`solace-shell -c ...`. Compiling is the costly part and its result depends on the source text
alone (the class's namespace is given when the code runs), so the compiled code is kept, by its
source text, in a file beside the package's byte code (``__pycache__``, where Python keeps its own,
and only when Python may write byte code there). A text not found is compiled as ``dataclasses``
would have compiled it; a file that is missing, unreadable or from another Python is ignored.

``install()`` makes ``dataclasses`` run its source through this cache: it sets the ``exec`` the
module looks up before the builtin one, so every class created afterwards in the process gets
exactly the functions it would have got.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from .cache_file import replace_quietly

_MAX_ENTRIES = 4096  # more texts than a few releases' classes: start afresh rather than grow
_FILE = Path(__file__).resolve().parent / "__pycache__" / f"dataclass-code.{sys.implementation.cache_tag}.marshal"

_codes: dict[str, CodeType] = {}
_used: set[str] = set()
_added = 0


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002 - exec's names
    """``exec`` for ``dataclasses``: a source text is compiled once, then taken from the cache."""
    global _added
    if type(source) is str:
        _used.add(source)
        code = _codes.get(source)
        if code is None:
            # as exec compiles a string: file "<string>", none of this module's __future__ flags
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _added += 1
        source = code
    builtins.exec(source, globals, locals)


def _load() -> None:
    try:
        data = marshal.loads(_FILE.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if isinstance(data, dict):
        _codes.update((k, v) for k, v in data.items() if isinstance(k, str) and isinstance(v, CodeType))


def _save() -> None:
    """Write the cache when this process compiled something new (atomically: a concurrent start
    reads the old file or the new one); grown too large (classes edited again and again), it keeps
    this process's texts alone."""
    if not _added or sys.dont_write_bytecode:
        return
    codes = _codes if len(_codes) <= _MAX_ENTRIES else {k: _codes[k] for k in _used}
    replace_quietly(_FILE, marshal.dumps(codes))


def install() -> None:
    """Route ``dataclasses``' compiling through the cache, for the rest of the process (once)."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _load()
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save)
