"""Grammar coverage input: every command-tree node id the grammar defines.

Isolated here so the coverage report depends on one function only. The grammar exposes
`Grammar.nodes()` (sorted node ids, `"<modes>: <syntax>"`); how the grammar is loaded is still
settling, so a few entry points are tried in order.
"""

from __future__ import annotations


class GrammarUnavailable(RuntimeError):
    pass


def grammar_node_ids() -> list[str]:
    """Sorted, distinct node ids of the packaged grammar; raises GrammarUnavailable with the reason."""
    errors: list[str] = []
    grammar = None
    try:
        import grammar as grammar_pkg  # noqa: PLC0415

        loader = getattr(grammar_pkg, "load_grammar", None)
        if callable(loader):
            grammar = loader()
    except Exception as exc:  # the package exists but may be mid-refactor
        errors.append(f"grammar.load_grammar: {type(exc).__name__}: {exc}")
    if grammar is None:
        try:
            from grammar.loader import DATA_DIR, load_grammar_from  # noqa: PLC0415

            grammar = load_grammar_from(DATA_DIR)
        except Exception as exc:
            errors.append(f"grammar.loader.load_grammar_from: {type(exc).__name__}: {exc}")
    if grammar is None:
        raise GrammarUnavailable("; ".join(errors) or "no grammar loader found")
    nodes = grammar.nodes() if callable(getattr(grammar, "nodes", None)) else None
    if nodes is None:
        raise GrammarUnavailable("the loaded grammar has no nodes() method")
    return sorted({str(n) for n in nodes})
