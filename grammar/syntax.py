"""The syntax mini-language of grammar entries.

`show queue <queue-pattern> [message-vpn <vpn-name>] [detail | messages]` reads as the docs print
it: `word` is a keyword, `<name>` a parameter, `[..]` optional, `{a | b}` exactly one of, `[a | b]`
at most one of. Keeping the docs' own notation makes an entry checkable against the docs by eye.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .model import Alt, Element, Keyword, Opt, ParamRef, Seq

_TOKEN = re.compile(r"\s*(<[^<>\s]+>|[\[\]{}|]|[^\s\[\]{}|<>]+)")
_KEYWORD = re.compile(r"^[a-z0-9#][a-z0-9#_.-]*$")


class SyntaxProblem(Exception):
    pass


def parse_syntax(
    text: str,
    keyword: Callable[[str], Keyword],
    param: Callable[[str], ParamRef],
) -> Seq:
    tokens = _tokenize(text)
    parser = _Parser(tokens, keyword, param)
    seq = parser.sequence(stop=())
    if parser.pos != len(tokens):
        raise SyntaxProblem(f"unexpected {tokens[parser.pos]!r}")
    if not seq.items:
        raise SyntaxProblem("empty syntax")
    if not isinstance(seq.items[0], Keyword):
        raise SyntaxProblem("a command must start with a keyword")
    return seq


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise SyntaxProblem(f"cannot read syntax at {text[pos:]!r}")
        tokens.append(m.group(1))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str], keyword: Callable[[str], Keyword], param: Callable[[str], ParamRef]):
        self.tokens = tokens
        self.pos = 0
        self.keyword = keyword
        self.param = param

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def sequence(self, stop: tuple[str, ...]) -> Seq:
        items: list[Element] = []
        while (tok := self.peek()) is not None and tok not in stop:
            if tok in ("]", "}", "|"):
                raise SyntaxProblem(f"unexpected {tok!r}")
            self.pos += 1
            if tok == "[":
                choices = self.choices("]")
                body: Element = choices[0] if len(choices) == 1 else Alt(tuple(choices))
                items.append(Opt(body))
            elif tok == "{":
                choices = self.choices("}")
                if len(choices) < 2:
                    raise SyntaxProblem("{..} needs at least two choices separated by |")
                items.append(Alt(tuple(choices)))
            elif tok.startswith("<"):
                items.append(self.param(tok[1:-1]))
            else:
                if not _KEYWORD.match(tok):
                    raise SyntaxProblem(f"bad keyword {tok!r}")
                items.append(self.keyword(tok))
        return Seq(tuple(items))

    def choices(self, close: str) -> list[Element]:
        out: list[Element] = []
        while True:
            seq = self.sequence(stop=("|", close))
            if not seq.items:
                raise SyntaxProblem("empty choice")
            out.append(seq.items[0] if len(seq.items) == 1 else seq)
            tok = self.peek()
            if tok is None:
                raise SyntaxProblem(f"missing {close!r}")
            self.pos += 1
            if tok == close:
                return out


def render_syntax(element: Element) -> str:
    """Back to the docs notation (used by the command reference and node ids)."""
    if isinstance(element, Keyword):
        return element.word
    if isinstance(element, ParamRef):
        return f"<{element.param.name}>"
    if isinstance(element, Seq):
        return " ".join(render_syntax(e) for e in element.items)
    if isinstance(element, Opt):
        inner = element.body
        if isinstance(inner, Alt):
            return "[" + " | ".join(render_syntax(c) for c in inner.choices) + "]"
        return "[" + render_syntax(inner) + "]"
    if isinstance(element, Alt):
        return "{" + " | ".join(render_syntax(c) for c in element.choices) + "}"
    raise TypeError(element)  # pragma: no cover
