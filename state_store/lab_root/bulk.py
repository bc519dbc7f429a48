"""Pausing the cyclic garbage collector while bulk work creates or drops many records."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk() -> Iterator[None]:
    """Pause the cyclic garbage collector while a bulk path creates or drops many records.

    Why: records are acyclic, but each one allocated counts towards a collection; creating a
    million of them triggers thousands of collections, each walking the ever larger older
    generations, which costs three times the allocation itself. Reference counting frees them as
    usual; the collector runs again afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
