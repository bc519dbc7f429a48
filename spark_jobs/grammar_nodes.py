"""What the report needs of the grammar: every command-tree node id it defines, and the levels
at which it knows a command that a transcript typed where it does not parse.

Isolated here so the report depends on the packaged grammar through these two functions only. A
grammar that does not load is reported in the summary, not fatal to the job.
"""

from __future__ import annotations

from collections.abc import Iterable

from grammar import GrammarError, load_grammar
from grammar.parser import Parsed, Parser

# parse errors that mean the words are the grammar's (the command is only unfinished or a value is
# out of range), as opposed to "invalid": a word the level does not have
_KNOWN_WORDS = ("incomplete", "invalid-value")


class GrammarUnavailable(RuntimeError):
    pass


def grammar_node_ids() -> list[str]:
    """Sorted, distinct node ids of the packaged grammar; raises GrammarUnavailable with the reason."""
    try:
        return load_grammar().nodes()
    except GrammarError as exc:
        raise GrammarUnavailable(f"the grammar does not load: {exc}") from exc


def levels_knowing(commands: Iterable[str]) -> dict[str, list[str]]:
    """For each command the grammar knows at some level, those levels (mode ids, sorted); a
    command it knows at no level is left out: that one is unknown to the grammar, where the others
    were typed at a level that does not offer them (`configure` inside `configure`)."""
    try:
        grammar = load_grammar()
    except GrammarError as exc:
        raise GrammarUnavailable(f"the grammar does not load: {exc}") from exc
    parser = Parser(grammar)
    out: dict[str, list[str]] = {}
    for command in commands:
        levels = []
        for mode in sorted(grammar.by_mode):
            outcome = parser.parse(mode, command)
            if isinstance(outcome, Parsed) or (outcome is not None and outcome.kind in _KNOWN_WORDS):
                levels.append(mode)
        if levels:
            out[command] = levels
    return out
