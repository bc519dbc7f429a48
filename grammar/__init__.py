"""The CLI command tree as data.

`load_grammar()` reads grammar/data once per process and validates it strictly; `Parser` reads
command lines against it. This package knows nothing about broker state or output text.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

from .loader import DATA_DIR, GrammarError, load_grammar_from
from .model import ACCESS_LEVELS, Access, Command, Grammar, Mode
from .parser import Candidate, Parsed, ParseError, Parser, Step

__all__ = [
    "ACCESS_LEVELS", "Access", "Candidate", "Command", "DATA_DIR", "Grammar", "GrammarError", "Mode",
    "ParseError", "Parsed", "Parser", "Step", "load_grammar",
]


@lru_cache(maxsize=4)
def _cached(handlers: frozenset[str] | None, completion_sources: frozenset[str] | None) -> Grammar:
    return load_grammar_from(DATA_DIR, handlers, completion_sources)


def load_grammar(handlers: Collection[str] | None = None,
                 completion_sources: Collection[str] | None = None) -> Grammar:
    """The project grammar; with `handlers`, also check that every handler id exists, and with
    `completion_sources`, that every parameter's `complete:` names one of them (the shell owns
    both lists; the grammar only refers to them)."""
    return _cached(frozenset(handlers) if handlers is not None else None,
                   frozenset(completion_sources) if completion_sources is not None else None)
