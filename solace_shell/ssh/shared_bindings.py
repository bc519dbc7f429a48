"""prompt_toolkit's default key bindings, built once per server process instead of once per
application.

Why: every prompt_toolkit `Application` builds its own copy of the default key bindings (Emacs, Vi,
mouse, ...: some six hundred bindings, most of the cost of starting a shell, and of every More
prompt, which is an application of its own). For one local shell that is nothing; for a server
starting a shell per login it was most of a login's CPU. The bindings hold no state of an
application: their handlers act on `event.app` and their filters read the current application
when a key is looked up, so one copy serves every session; its lookup cache is then shared, too.
"""

from __future__ import annotations

import functools

import prompt_toolkit.application.application as application_module
from prompt_toolkit.key_binding.defaults import load_key_bindings

_shared = functools.cache(load_key_bindings)


def share_default_bindings() -> None:
    """From now on, every new `Application` of this process uses the one shared copy."""
    application_module.load_key_bindings = _shared  # type: ignore[attr-defined]
