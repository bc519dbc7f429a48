"""The one YAML loader of the project: values that remember their lines, parsed within limits.

Why one shared module: grammar files and scenario files both report problems as ``file:line``,
all at once, so both need mappings and lists that carry the line of every key and item. Scenario
files are also untrusted (trainees write them, `lab> reset FILE` loads them), so the loader
bounds what a file can cost: its size, its nesting depth (no RecursionError: the document is
built from parser events with an explicit stack), its node count and the nodes that aliases may
expand to (a few hundred bytes of nested aliases otherwise become gigabytes), and integers (a
30-digit literal or YAML 1.1's base-60 ``1:30`` is refused instead of silently accepted).

It lives in grammar (the first user: the command tree is YAML) as a leaf module with only PyYAML
below it; state_store's scenario loader imports this module and nothing else of grammar, so the
top level keeps the product's packages only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml  # no stubs installed (pyproject.toml ignores them): PyYAML types are Any here

# PyYAML's parser (libyaml's when built with it), resolver and constructor, set by `_import_yaml`
_Parser: Any = None
_RESOLVER: Any = None
_CONSTRUCTOR: Any = None


def _import_yaml() -> None:
    """Import PyYAML when the first document is parsed, not with this module: a start whose
    grammar comes from the parse cache (grammar/parse_cache.py) and whose lab exists reads no
    YAML, and importing the library was a tenth of a one-shot command's start."""
    global yaml, _Parser, _RESOLVER, _CONSTRUCTOR
    import yaml

    _Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    _RESOLVER = yaml.resolver.Resolver()
    _CONSTRUCTOR = yaml.constructor.SafeConstructor()


@dataclass(frozen=True)
class Limits:
    """What one document may cost. The defaults fit every grammar and scenario file by far."""

    max_chars: int = 1_000_000
    max_depth: int = 64
    max_nodes: int = 200_000            # scalars, mappings and lists, aliases counted expanded
    max_alias_nodes: int = 10_000       # nodes that aliases may add in all
    max_int_digits: int = 30


DEFAULT_LIMITS = Limits()


class LocatedDict(dict[Any, Any]):
    """A mapping with the 1-based line it starts on, the line of each key, and the source text of
    each scalar value (so a checker can tell `10.40` from `10.4`)."""

    line: int = 0
    key_lines: dict[str, int]
    raw: dict[str, str]


class LocatedList(list[Any]):
    """A list with the line it starts on, the line of each item and each scalar item's text."""

    line: int = 0
    item_lines: list[int]
    raw: list[str | None]


class YamlSyntaxError(Exception):
    """The text is not YAML, or is YAML beyond the limits; ``problems`` holds every (line, text)
    found, ``line``/``problem`` the first."""

    def __init__(self, line: int, problem: str, more: list[tuple[int, str]] | None = None) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem
        self.problems = [(line, problem), *(more or [])]


@dataclass
class _Frame:
    value: LocatedDict | LocatedList
    anchor: str | None
    start_nodes: int
    key: Any = None
    key_line: int = 0
    has_key: bool = False


class _Builder:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.nodes = 0
        self.alias_nodes = 0
        self.root: Any = None
        self.problems: list[tuple[int, str]] = []

    def fail(self, line: int, problem: str) -> YamlSyntaxError:
        return YamlSyntaxError(line, problem)

    def count(self, n: int, line: int) -> None:
        self.nodes += n
        if self.nodes > self.limits.max_nodes:
            raise self.fail(line, f"more than {self.limits.max_nodes:,} values (aliases counted expanded)")

    def scalar(self, event: yaml.ScalarEvent, line: int) -> Any:
        value = event.value
        tag = event.tag if event.tag not in (None, "!") else _RESOLVER.resolve(
            yaml.ScalarNode, value, event.implicit)
        if tag == "tag:yaml.org,2002:merge":  # `<<` copies another mapping's keys in YAML 1.1 only
            top = self.stack[-1] if self.stack else None
            if top is not None and isinstance(top.value, LocatedDict) and not top.has_key:
                raise self.fail(line, "merge keys (<<) are not supported: write the keys out")
            return value
        if tag == "tag:yaml.org,2002:int":
            digits = value.replace("_", "")
            if ":" in digits:
                problem = f"{value!r} is a base-60 number in YAML 1.1; quote it or write a decimal integer"
                self.problems.append((line, problem))
                return None
            if len(digits.lstrip("+-")) > self.limits.max_int_digits:
                self.problems.append((line, f"integer with more than {self.limits.max_int_digits} digits"))
                return None
        node = yaml.ScalarNode(tag, value, event.start_mark, event.end_mark, event.style)
        try:
            return _CONSTRUCTOR.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            kind = tag.rsplit(":", 1)[-1]
            problem = f"cannot read {value[:40]!r} as {kind}: {getattr(exc, 'problem', None) or exc}"
            self.problems.append((line, problem))
            return None

    def add(self, value: Any, raw: str | None, line: int) -> None:
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        if isinstance(top.value, LocatedList):
            top.value.append(value)
            top.value.item_lines.append(line)
            top.value.raw.append(raw)
            return
        if not top.has_key:
            if isinstance(value, (dict, list)):
                raise self.fail(line, "a mapping key must be a plain value")
            try:
                hash(value)
            except TypeError:
                raise self.fail(line, "a mapping key must be a plain value") from None
            top.key, top.key_line, top.has_key = value, line, True
            return
        key, top.has_key = top.key, False
        if key in top.value:
            raise self.fail(top.key_line, f"duplicate key {key!r}")
        top.value[key] = value
        top.value.key_lines[str(key)] = top.key_line
        if raw is not None:
            top.value.raw[str(key)] = raw

    def open(self, container: LocatedDict | LocatedList, anchor: str | None, line: int) -> None:
        if len(self.stack) >= self.limits.max_depth:
            raise self.fail(line, f"nested deeper than {self.limits.max_depth} levels")
        self.count(1, line)
        container.line = line
        if isinstance(container, LocatedDict):
            container.key_lines, container.raw = {}, {}
        else:
            container.item_lines, container.raw = [], []
        self.stack.append(_Frame(container, anchor, self.nodes))

    def close(self, line: int) -> None:
        frame = self.stack.pop()
        if frame.anchor is not None:
            self.anchors[frame.anchor] = (frame.value, self.nodes - frame.start_nodes + 1)
        self.add(frame.value, None, frame.value.line)

    def event(self, event: yaml.Event) -> None:
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.ScalarEvent):
            self.count(1, line)
            value = self.scalar(event, line)
            if event.anchor is not None:
                self.anchors[event.anchor] = (value, 1)
            self.add(value, event.value, line)
        elif isinstance(event, yaml.MappingStartEvent):
            self.open(LocatedDict(), event.anchor, line)
        elif isinstance(event, yaml.SequenceStartEvent):
            self.open(LocatedList(), event.anchor, line)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.close(line)
        elif isinstance(event, yaml.AliasEvent):
            anchor = str(event.anchor)
            if anchor not in self.anchors:
                raise self.fail(line, f"alias *{anchor} names no anchor before it")
            value, size = self.anchors[anchor]
            self.alias_nodes += size
            if self.alias_nodes > self.limits.max_alias_nodes:
                raise self.fail(line, f"aliases expand to more than {self.limits.max_alias_nodes:,} values")
            self.count(size, line)
            self.add(value, None, line)
        elif isinstance(event, yaml.DocumentStartEvent) and self.root is not None:
            raise self.fail(line, "more than one document")


def load_located(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse YAML text into LocatedDict/LocatedList/scalars (``None`` for an empty document).

    Raises YamlSyntaxError for text that is not YAML or goes beyond ``limits``."""
    if len(text) > limits.max_chars:
        raise YamlSyntaxError(1, f"longer than {limits.max_chars:,} characters")
    if _Parser is None:
        _import_yaml()
    try:
        return _load(text, limits, _Parser)
    except YamlSyntaxError as exc:
        if _Parser is yaml.SafeLoader or _LIBRARY_DEPTH_WORDS not in exc.problem:
            raise
    # Some libyaml builds refuse deep nesting in their scanner, which reads ahead of the events this
    # module counts, and say so in their own words. The pure-Python parser has no such limit, so the
    # document is read again with it and this module's depth limit speaks, whatever is installed.
    return _load(text, limits, yaml.SafeLoader)


_LIBRARY_DEPTH_WORDS = "maximum nesting depth"


def _load(text: str, limits: Limits, parser: Any) -> Any:
    builder = _Builder(limits)
    try:
        for event in yaml.parse(text, Loader=parser):
            builder.event(event)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlSyntaxError((mark.line + 1) if mark else 0, str(exc.problem or exc)) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(0, str(exc)) from None
    if builder.problems:
        (line, problem), *more = builder.problems
        raise YamlSyntaxError(line, problem, more)
    return builder.root
