"""The cyclic garbage collector around a short-lived command's start and exit.

Why: a one-shot `solace-shell -c ...` allocates a few hundred thousand objects that live until the
process ends (modules, classes, the parsed grammar, the lab's state) and little else. Collecting
while they are built walks them again and again and frees nothing, and the interpreter's exit
walks them all once more before it frees them. Both cost more CPU than the command itself.

- ``paused()``: no automatic collection while the start builds what lives for the whole process;
  the collector's previous state comes back afterwards (so an in-process caller, a test, is left
  as it was). Reference counting frees as usual meanwhile.
- ``frozen_at_exit()``: at the interpreter's exit, after the other exit handlers have run, every
  object still alive is frozen (``gc.freeze``), so the exit's collections skip them. Only for a
  process that exits once its command is done and has closed what it opened (the lab), since an
  object left in a reference cycle then is not finalized at exit. Registered once per process.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

_REGISTERED = False


@contextmanager
def paused() -> Iterator[None]:
    """No automatic collection inside the block; the collector as it was afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def frozen_at_exit() -> None:
    """Freeze every object still alive when the interpreter exits (once per process)."""
    global _REGISTERED
    if not _REGISTERED:
        atexit.register(gc.freeze)   # before or after the other exit handlers: it changes nothing they use
        _REGISTERED = True
