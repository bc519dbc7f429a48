"""The cyclic garbage collector around a short-lived command's start and exit.

Why: a one-shot `solace-shell -c ...` allocates a few hundred thousand objects that live until the
process ends (modules, classes, the parsed grammar, the lab's state) and little else. Collecting
while they are built walks them again and again and frees nothing; the first collection after
the build walks them all once more, and so does the interpreter's exit before it frees them.

- ``paused()``: no automatic collection while the start builds what lives for the whole process;
  the collector's previous state comes back afterwards (so an in-process caller, a test, is left
  as it was). Reference counting frees as usual meanwhile. With ``freeze``, what was built is
  frozen (``gc.freeze``) when the block ends, so the collections of the command that follows
  walk only what the command allocates; ``thawed()`` gives it back to the collector when the
  command is done (an in-process caller's objects must not stay frozen).
- ``frozen_at_exit()``: at the interpreter's exit, every object still alive is frozen, so the
  exit's collections skip them. Only for a process that exits once its command is done and has
  closed what it opened (the lab), since an object left in a reference cycle then is not
  finalized at exit. Registered once per process.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_REGISTERED = False


@contextmanager
def paused(freeze: bool = False) -> Iterator[None]:
    """No automatic collection inside the block; the collector as it was afterwards. With
    ``freeze``, a block that ends without an exception first freezes every object alive (what it
    built is never walked again; ``thawed`` undoes it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if was_enabled:
            gc.enable()


def thawed() -> None:
    """Every frozen object back in the collector's care (after ``paused(freeze=True)``)."""
    gc.unfreeze()


def frozen_at_exit() -> None:
    """Freeze every object still alive when the interpreter exits (once per process)."""
    global _REGISTERED
    if not _REGISTERED:
        atexit.register(gc.freeze)   # before or after the other exit handlers: it changes nothing they use
        _REGISTERED = True
