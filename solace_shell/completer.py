"""Tab completion and `?` help, both read from the grammar through `Parser.candidates`.

- `ShellCompleter`: a prompt_toolkit `Completer` offering the next keywords (help text as meta) and,
  for parameters with a `complete:` source, live names from the lab (`live_names.LiveNames`).
- `help_text`: what `?` prints, IOS style: the line as typed with its prompt and the `?`, then every
  candidate with its one-line help in two aligned columns (`<cr>` when the line is complete).
- `refusal_text`: what Tab prints for a line holding a character no command line may hold (a control
  or bidi character): the line, the caret under that character and the error, as Enter would give.

Echoed lines go through `grammar.tokens.printable`, as scripts echo theirs: a control character
typed after Ctrl-V (BEL, ESC) or a bidi override never reaches the terminal raw.

Both work on the text before the cursor only, in the mode of the current target's session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from grammar import Candidate, ParseError, Parser
from grammar.parser import lex_error
from grammar.tokens import ControlCharacter, LexError, Word, first_forbidden, printable, split_words

from .live_names import LiveNames
from .messages import parse_error_text

# Parameters whose value names a VPN / router: a value typed earlier on the line scopes later names
# (`show queue * message-vpn <vpn> ...`, a lab command naming a router).
_SCOPE_SOURCES = ("vpn", "router")
WILDCARDS = "*?"


def open_quote(text: str) -> bool:
    """Is the end of `text` inside an open double quote?"""
    return text.count('"') % 2 == 1


def _quote(name: str) -> str:
    return f'"{name}"' if (not name or any(ch.isspace() for ch in name) or '"' in name) else name


class Level(Protocol):
    """What completion needs of the session it completes for (`solace_shell.session.Session`)."""

    @property
    def mode(self) -> str: ...
    @property
    def router(self) -> str | None: ...
    @property
    def context(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class LineContext:
    """Where completion happens: the session's mode and what scopes live names."""

    mode: str
    router: str | None
    vpn: str | None


def scope_from_line(parser: Parser, mode: str, line: str, words: list[Word]) -> dict[str, str]:
    """Values given on the line to parameters that scope names (a VPN, a router), by source.

    Uses only `Parser.candidates`: a word is a value of a parameter when no keyword could take it.
    """
    found: dict[str, str] = {}
    for word in words:
        cands = parser.candidates(mode, line[:word.start])
        if isinstance(cands, ParseError):
            break
        if not word.quoted and any(c.is_keyword and c.text.startswith(word.text.lower()) for c in cands):
            continue
        for c in cands:
            source = c.param.complete if c.param is not None else None
            if source in _SCOPE_SOURCES and not any(ch in word.text for ch in WILDCARDS):
                found[source] = word.text
    return found


class ShellCompleter(Completer):
    """Completes keywords and live names for the current target of a REPL.

    `get_session()` returns the session to complete for (its `mode`, `router` and carried `context`);
    `default_router()` scopes names at the lab console (the router F2 returns to).
    """

    def __init__(self, parser: Parser, get_session: Callable[[], Level], live: LiveNames | None,
                 default_router: Callable[[], str | None] | None = None) -> None:
        self.parser = parser
        self.get_session = get_session
        self.live = live
        self.default_router = default_router or (lambda: None)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        try:
            yield from self._completions(document.text_before_cursor)
        except Exception:  # never let a completion bug kill the prompt
            return

    def _completions(self, before: str) -> Iterable[Completion]:
        session = self.get_session()
        mode = session.mode
        quoted = open_quote(before)
        if quoted:
            q = before.rfind('"')
            base, partial = before[:q], before[q + 1:]
            if base and not base[-1].isspace():
                return
        else:
            try:
                words = split_words(before)
            except LexError:
                return
            if words and not before[-1:].isspace():
                base, partial = before[:words[-1].start], words[-1].text
            else:
                base, partial = before, ""
        cands = self.parser.candidates(mode, base)
        if isinstance(cands, ParseError):
            return
        replace = len(before) - len(base)
        seen: set[str] = set()
        for c in cands:
            if c.is_keyword:
                if not quoted and c.text.startswith(partial.lower()) and c.text not in seen:
                    seen.add(c.text)
                    yield Completion(c.text + " ", -replace, display=c.text, display_meta=c.help)
        for c in cands:
            source = c.param.complete if c.param is not None else None
            if not source or self.live is None:
                continue
            ctx = self._context(session, mode, base)
            for name in self.live.names(source, ctx.router, ctx.vpn if source != "vpn" else None):
                if name in seen or not name.startswith(partial):
                    continue
                seen.add(name)
                yield Completion(_quote(name) + " ", -replace, display=name, display_meta=c.help)

    def _context(self, session: Level, mode: str, base: str) -> LineContext:
        try:
            words = split_words(base)
        except LexError:
            words = []
        scope = scope_from_line(self.parser, mode, base, words)
        router = scope.get("router") or session.router or self.default_router()
        return LineContext(mode, router, scope.get("vpn") or session.context.get("vpn"))


def format_candidates(cands: list[Candidate]) -> list[str]:
    """Two aligned columns, `  name  help`, in the order the parser gives."""
    if not cands:
        return []
    width = max(len(c.text) for c in cands)
    return [f"  {c.text:<{width}}  {c.help}".rstrip() for c in cands]


def help_text(parser: Parser, mode: str, prompt: str, text: str, cursor: int | None = None) -> str:
    """What `?` prints for `text` with the cursor at `cursor` (default: the end), after `prompt`
    (the prompt without its trailing space): the echoed line, then the candidates or the error."""
    if cursor is None:
        cursor = len(text)
    before = text[:cursor]
    echo = f"{prompt} {printable(before)}?{printable(text[cursor:])}"
    cands = parser.candidates(mode, before)
    if isinstance(cands, ParseError):
        return echo + "\n" + parse_error_text(cands, len(prompt) + 1)
    if not cands:
        try:
            words = split_words(before)
        except LexError:  # pragma: no cover - candidates reported it already
            words = []
        start = words[-1].start if words and not before[-1:].isspace() else len(before)
        word = words[-1].text if words and not before[-1:].isspace() else ""
        return echo + "\n" + parse_error_text(ParseError("invalid", start, word), len(prompt) + 1)
    return "\n".join([echo, *format_candidates(cands)])


def refusal_text(prompt: str, text: str) -> str | None:
    """None when `text` holds only characters a command line may hold; else the echoed line (after
    `prompt`, without its trailing space), the caret under the first other one, and the error."""
    column = first_forbidden(text)
    if column is None:
        return None
    error = lex_error(ControlCharacter(column, text[column]))
    return f"{prompt} {printable(text)}\n" + parse_error_text(error, len(prompt) + 1)


def help_fragments(text: str) -> list[tuple[str, str]]:
    """`help_text` output with style classes for an interactive terminal: candidate names in
    `help.name`, their help in `help.text`; the echoed line and any error stay plain (exact CLI text)."""
    lines = text.split("\n")
    out: list[tuple[str, str]] = [("class:help.echo", lines[0] + "\n")]
    rest = lines[1:]
    is_list = bool(rest) and all(line.startswith("  ") and len(line) > 2 and not line[2].isspace()
                                 for line in rest)
    for line in rest:
        if is_list:
            name, _, help_ = line[2:].partition("  ")
            out += [("", "  "), ("class:help.name", name)]
            if help_:
                out += [("class:help.text", "  " + help_)]
            out.append(("", "\n"))
        else:
            out.append(("class:help.error", line + "\n"))
    return out
