"""Parse a command line against one mode of the grammar.

Each mode's commands are compiled into one nondeterministic automaton; a line is read word by word
with every live alternative kept at once. That single mechanism gives unique-prefix abbreviation,
the three error kinds with the column of the problem, `?` candidates and Tab completion, and lines
that cross levels: when a level-entering command completes, the automaton of the level it enters
continues the same line (`replication state standby` from the message-vpn level).

A `no` line crosses levels the way the broker writes it: `no` first, then the words that enter the
levels below, then the `no` form's words at the deepest one (`no bridge ssl` at the replication
level is `no ssl` at its bridge level; `no service rest incoming listen-port` at the message-vpn
level), and so does the rest of a line that crossed to a level (`replication no bridge ssl`).
After such a `no`, a level's automaton holds its entering commands that lead down to some `no`
form ("through" commands: their level's automaton continues the line, still negated) and, below
the level the `no` was read at, its `no` forms without their `no` word.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .model import Alt, Command, Element, Grammar, Keyword, Opt, Param, ParamRef, Seq
from .tokens import ControlCharacter, LexError, UnterminatedQuote, Word, split_words
from .types import check_value


@dataclass(frozen=True)
class Step:
    """One command of a parsed line; a line that crosses levels has several."""

    command: Command
    args: dict[str, object]
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Parsed:
    steps: tuple[Step, ...]

    @property
    def leaf(self) -> Step:
        return self.steps[-1]

    @functools.cached_property
    def secret(self) -> bool:
        """Whether one of its commands takes a secret parameter (its line is masked before it is
        kept: grammar.masking). Kept with the parse, which the parser keeps per line, as every
        line run asks."""
        from .masking import takes_secret

        return any(takes_secret(step.command) for step in self.steps)


@dataclass(frozen=True)
class ParseError:
    kind: str                      # invalid | ambiguous | incomplete | invalid-value
    column: int                    # where the caret goes, 0-based, relative to the line
    word: str = ""
    candidates: tuple[str, ...] = ()
    reason: str = ""
    param: str = ""


@dataclass(frozen=True)
class Candidate:
    """A possible next word, for `?` help and Tab completion."""

    text: str                      # a keyword, `<param>` or `<cr>`
    help: str
    param: Param | None = None

    @property
    def is_keyword(self) -> bool:
        return self.param is None and self.text != "<cr>"


ParseOutcome = Parsed | ParseError
_NO_BINDING: tuple[str, object] = ("no", True)
PARSE_CACHE_SIZE = 4096   # (mode, line) outcomes kept per parser
PREFIX_CACHE_SIZE = 4096  # (mode, a line's leading words as typed) -> threads, kept per parser


@dataclass
class _Graph:
    edges: list[list[tuple[Keyword | ParamRef, int]]] = field(default_factory=list)
    eps: list[list[int]] = field(default_factory=list)
    accept: dict[int, Command] = field(default_factory=dict)
    through: dict[int, Command] = field(default_factory=dict)  # negated lines: entering commands crossed
    negate: int = -1               # the state after a leading `no` that crosses levels (-1: none)

    def new(self) -> int:
        self.edges.append([])
        self.eps.append([])
        return len(self.edges) - 1


@dataclass(frozen=True)
class _Thread:
    mode: str
    state: int
    bindings: tuple[tuple[str, object], ...]
    steps: tuple[Step, ...]
    words: tuple[Word, ...]
    negated: bool = False          # after a `no` that crosses levels
    below: bool = False            # negated, and a level below the one the `no` was read at


class Parser:
    """Parses lines for any mode of one grammar; automata are built on first use and kept."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self._graphs: dict[tuple[str, bool], _Graph] = {}
        self._negated_graphs: dict[tuple[str, bool], _Graph] = {}
        self._reaches_no: dict[str, bool] = {}
        self._parsed: dict[tuple[str, str], ParseOutcome | None] = {}
        self._starts: dict[str, list[_Thread]] = {}
        # the threads after a line's leading words, keyed by the line up to the end of the last of them
        self._prefixes: dict[tuple[str, str], list[_Thread]] = {}

    # -- automaton construction -------------------------------------------------------------
    def _graph(self, mode: str, crossed: bool = False) -> _Graph:
        """The automaton of `mode`; `crossed` leaves out commands that only work at their own level."""
        graph = self._graphs.get((mode, crossed))
        if graph is None:
            graph = _Graph()
            graph.new()  # state 0: start
            for command in self.grammar.by_mode.get(mode, []):
                if crossed and command.local:
                    continue
                begin = graph.new()
                graph.eps[0].append(begin)
                end = self._compile(graph, command.element, begin)
                graph.accept[end] = command
            if self._through_commands(mode):
                graph.negate = graph.new()
                graph.edges[0].append((self._no_keyword(), graph.negate))
            self._graphs[(mode, crossed)] = graph
        return graph

    def _no_keyword(self) -> Keyword:
        """The grammar's own `no` keyword (its help as every `no` form shows it)."""
        for command in self.grammar.commands:
            first = command.element.items[0] if command.negated and command.element.items else None
            if isinstance(first, Keyword) and first.word == "no" and not first.whole:
                return first
        return Keyword("no", "Negate a command or set its default")

    def _through_commands(self, mode: str) -> list[Command]:
        """The commands of `mode` a negated line may cross: those entering a level below it from
        which some `no` form is reachable (never a `create`: a `no` line makes nothing)."""
        return [command for command in self.grammar.by_mode.get(mode, [])
                if command.enters and not command.negated and not command.local and not command.creates
                and command.enters.startswith(mode + "/") and self._leads_to_no(command.enters)]

    def _leads_to_no(self, mode: str) -> bool:
        """Whether `mode` or a level below it that a line can enter holds a `no` form."""
        known = self._reaches_no.get(mode)
        if known is None:
            self._reaches_no[mode] = False  # levels only go down, but a bad grammar must not loop
            known = self._reaches_no[mode] = any(
                command.negated and not command.local
                or command.enters is not None and not command.negated and command.enters.startswith(mode + "/")
                and self._leads_to_no(command.enters)
                for command in self.grammar.by_mode.get(mode, []))
        return known

    def _negated_graph(self, mode: str, below: bool) -> _Graph:
        """The automaton after a `no` that crosses levels, at `mode` (module docstring); `below`:
        the `no` was read at a level above, so `mode`'s own `no` forms continue it (at the level
        it was read at they are the plain automaton's)."""
        graph = self._negated_graphs.get((mode, below))
        if graph is None:
            graph = _Graph()
            graph.new()
            for command in self._through_commands(mode):
                begin = graph.new()
                graph.eps[0].append(begin)
                graph.through[self._compile(graph, command.element, begin)] = command
            if below:
                for command in self.grammar.by_mode.get(mode, []):
                    if command.negated and not command.local:
                        begin = graph.new()
                        graph.eps[0].append(begin)
                        graph.accept[self._compile(graph, Seq(command.element.items[1:]), begin)] = command
            self._negated_graphs[(mode, below)] = graph
        return graph

    def _graph_of(self, th: _Thread) -> _Graph:
        if th.negated:
            return self._negated_graph(th.mode, th.below)
        return self._graph(th.mode, bool(th.steps))

    def _compile(self, graph: _Graph, element: Element, start: int) -> int:
        if isinstance(element, (Keyword, ParamRef)):
            end = graph.new()
            graph.edges[start].append((element, end))
            return end
        if isinstance(element, Seq):
            state = start
            for item in element.items:
                state = self._compile(graph, item, state)
            return state
        if isinstance(element, Opt):
            end = self._compile(graph, element.body, start)
            graph.eps[start].append(end)
            return end
        if isinstance(element, Alt):
            end = graph.new()
            for choice in element.choices:
                graph.eps[self._compile(graph, choice, start)].append(end)
            return end
        raise TypeError(element)  # pragma: no cover

    # -- simulation ---------------------------------------------------------------------------
    def _closure(self, threads: Iterable[_Thread]) -> list[_Thread]:
        out: list[_Thread] = []
        seen: set[tuple[str, int, tuple[Any, ...], tuple[Any, ...], bool, bool]] = set()
        stack = list(threads)
        while stack:
            th = stack.pop()
            key = (th.mode, th.state, th.bindings, tuple(s.command.node for s in th.steps), th.negated, th.below)
            if key in seen:
                continue
            seen.add(key)
            out.append(th)
            graph = self._graph_of(th)
            for nxt in graph.eps[th.state]:
                stack.append(_Thread(th.mode, nxt, th.bindings, th.steps, th.words, th.negated, th.below))
            if th.state == graph.negate:
                stack.append(_Thread(th.mode, 0, th.bindings, th.steps, th.words, True))
            command = graph.accept.get(th.state)
            if command is not None and command.enters:
                step = Step(command, dict(th.bindings), th.words)
                stack.append(_Thread(command.enters, 0, (), th.steps + (step,), ()))
            command = graph.through.get(th.state)
            if command is not None and command.enters:
                # the entering step takes its own words' values; the leading `no` goes on to the last
                bindings = tuple(b for b in th.bindings if b != _NO_BINDING)
                step = Step(command, dict(bindings), th.words)
                stack.append(_Thread(command.enters, 0, (_NO_BINDING,), th.steps + (step,), (), True, True))
        out.sort(key=lambda t: (len(t.steps), t.negated, t.below, t.mode, t.state))
        return out

    def _start(self, mode: str) -> list[_Thread]:
        """The threads before the first word: the same for every line of `mode`, so computed once
        (a mode's start closure holds a thread per command; building it was most of a parse)."""
        start = self._starts.get(mode)
        if start is None:
            start = self._starts[mode] = self._closure([_Thread(mode, 0, (), (), ())])
        return list(start)

    def _advance(self, threads: list[_Thread], word: Word) -> list[_Thread] | ParseError:
        """The threads after `word`."""
        keyword_moves: list[tuple[_Thread, Keyword, int]] = []
        param_moves: list[tuple[_Thread, Param, int]] = []
        text = word.text.lower()
        for th in threads:
            for token, target in self._graph_of(th).edges[th.state]:
                if isinstance(token, Keyword):
                    if token.word.startswith(text) and (not (word.quoted or token.whole) or token.word == text):
                        keyword_moves.append((th, token, target))
                else:
                    param_moves.append((th, token.param, target))
        # A quoted word is a value first: `create queue "primary"` names a queue. Only where no
        # value fits does it spell a keyword, in full (`access-type "exclusive"`).
        if word.quoted and keyword_moves and any(
                check_value(param.type, word.text) is None for _, param, _ in param_moves):
            keyword_moves = []
        exact = [m for m in keyword_moves if m[1].word == text]
        if exact:
            keyword_moves = exact
        words = sorted({m[1].word for m in keyword_moves})
        if len(words) > 1:
            return ParseError("ambiguous", word.start, word.text, tuple(words))
        if words:
            return self._closure(
                _Thread(th.mode, target, th.bindings + ((kw.word, True),), th.steps, th.words + (word,), th.negated,
                        th.below)
                for th, kw, target in keyword_moves
            )
        if not param_moves:
            return ParseError("invalid", word.start, word.text)
        accepted: list[_Thread] = []
        first_reason: tuple[str, str] | None = None
        for th, param, target in param_moves:
            reason = check_value(param.type, word.text)
            if reason is None:
                accepted.append(_Thread(th.mode, target, th.bindings + ((param.name, word.text),), th.steps,
                                        th.words + (word,), th.negated, th.below))
            elif first_reason is None:
                first_reason = (param.name, reason)
        if accepted:
            return self._closure(accepted)
        assert first_reason is not None
        return ParseError("invalid-value", word.start, word.text, param=first_reason[0],
                          reason=first_reason[1])

    def _run(self, mode: str, words: list[Word], line: str) -> list[_Thread] | ParseError:
        """The threads after `words` (split from `line`). Lines that miss the (mode, line) cache
        mostly differ in their last values after the same leading words (`transaction xa start
        trader <xid>`, `consume trader orders count <n>`), so the threads after each leading run of
        words but the last are kept, keyed by the line up to the end of that run: threads depend on
        nothing else (those characters split into exactly those words, columns included)."""
        threads = self._start(mode)
        prefixes = self._prefixes
        last = len(words) - 1
        known = 0  # how many leading words the kept threads stand for
        for i in range(last - 1, -1, -1):  # the longest kept run first: most lines share all but a value
            kept = prefixes.get((mode, line[: words[i].end]))
            if kept is not None:
                threads, known = kept, i + 1
                break
        for i in range(known, len(words)):
            result = self._advance(threads, words[i])
            if isinstance(result, ParseError):
                return result
            threads = result
            if i < last:
                if len(prefixes) >= PREFIX_CACHE_SIZE:
                    prefixes.clear()
                prefixes[(mode, line[: words[i].end])] = threads
        return threads

    # -- public API ---------------------------------------------------------------------------
    def parse(self, mode: str, line: str) -> ParseOutcome | None:
        """Parse `line` in `mode`. None for an empty line.

        The outcome depends only on (mode, line), and drills, scripts and replays type the same
        lines again and again, so outcomes are cached (bounded: emptied when full). Outcomes are
        frozen; callers copy `Step.args` before changing it (the session does).
        """
        key = (mode, line)
        if key in self._parsed:
            return self._parsed[key]
        outcome = self._parse(mode, line)
        if len(self._parsed) >= PARSE_CACHE_SIZE:
            self._parsed.clear()
        self._parsed[key] = outcome
        return outcome

    def _parse(self, mode: str, line: str) -> ParseOutcome | None:
        try:
            words = split_words(line)
        except LexError as exc:
            return lex_error(exc)
        if not words:
            return None
        threads = self._run(mode, words, line)
        if isinstance(threads, ParseError):
            return threads
        graph_accepts = [
            th for th in threads
            if (cmd := self._graph_of(th).accept.get(th.state)) is not None
            and not (cmd.transit and cmd.enters)
        ]
        if not graph_accepts:
            expected = tuple(c.text for c in self._next(threads) if c.text != "<cr>")
            return ParseError("incomplete", len(line.rstrip()), candidates=expected)
        best = graph_accepts[0]
        command = self._graph_of(best).accept[best.state]
        leaf = Step(command, dict(best.bindings), best.words)
        return Parsed(best.steps + (leaf,))

    def candidates(self, mode: str, before_cursor: str) -> list[Candidate] | ParseError:
        """What may come next at the cursor: for `?` help and Tab.

        After a space: every next keyword and parameter (and `<cr>` when the line is complete).
        Inside a word: the keywords that start with it, and any parameter that may take it.
        """
        try:
            words = split_words(before_cursor)
        except LexError as exc:
            return lex_error(exc)
        partial: Word | None = None
        if words and before_cursor[-1:] not in (" ", "\t"):
            partial = words.pop()
        threads = self._run(mode, words, before_cursor)
        if isinstance(threads, ParseError):
            return threads
        found = self._next(threads)
        if partial is None:
            return found
        prefix = partial.text.lower()
        return [c for c in found if (c.is_keyword and c.text.startswith(prefix)
                                     and (not partial.quoted or c.text == prefix))
                or (c.param is not None and check_value(c.param.type, partial.text) is None)]

    def _next(self, threads: list[_Thread]) -> list[Candidate]:
        keywords: dict[str, str] = {}
        params: dict[str, Param] = {}
        complete = False
        for th in threads:
            graph = self._graph_of(th)
            cmd = graph.accept.get(th.state)
            if cmd is not None and not (cmd.transit and cmd.enters):
                complete = True
            for token, _ in graph.edges[th.state]:
                if isinstance(token, Keyword):
                    if not token.whole:  # a hidden command is never offered
                        keywords.setdefault(token.word, token.help)
                else:
                    params.setdefault(token.param.name, token.param)
        out = [Candidate(w, keywords[w]) for w in sorted(keywords)]
        out += [Candidate(f"<{p.name}>", p.help, p) for p in (params[n] for n in sorted(params))]
        if complete:
            out.append(Candidate("<cr>", ""))
        return out


def lex_error(exc: LexError) -> ParseError:
    """The parse error of a line that cannot be split into words (the caret at `exc.column`)."""
    if isinstance(exc, ControlCharacter):
        return ParseError("invalid", exc.column, word=f"U+{ord(exc.char):04X}", reason="control character")
    assert isinstance(exc, UnterminatedQuote)
    return ParseError("incomplete", exc.column, reason="unterminated quote")
