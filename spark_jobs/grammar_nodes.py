"""Grammar coverage input: every command-tree node id the grammar defines.

Isolated here so the coverage report depends on one function only: `Grammar.nodes()` of the
packaged grammar. A grammar that does not load is reported in the summary, not fatal to the job.
"""

from __future__ import annotations

from grammar import GrammarError, load_grammar


class GrammarUnavailable(RuntimeError):
    pass


def grammar_node_ids() -> list[str]:
    """Sorted, distinct node ids of the packaged grammar; raises GrammarUnavailable with the reason."""
    try:
        return load_grammar().nodes()
    except GrammarError as exc:
        raise GrammarUnavailable(f"the grammar does not load: {exc}") from exc
