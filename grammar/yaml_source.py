"""YAML loading that remembers line numbers.

Grammar problems must be reported with file and line, all at once (as cisshgo does for its content),
so every mapping and list keeps the line it started on and the line of each key.
"""

from __future__ import annotations

from typing import Any

import yaml


class LocatedDict(dict[str, Any]):
    line: int = 0
    key_lines: dict[str, int]


class LocatedList(list[Any]):
    line: int = 0


class YamlSyntaxError(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


def load_located(text: str) -> Any:
    """Parse YAML text into dicts/lists that carry 1-based line numbers."""
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise YamlSyntaxError((mark.line + 1) if mark else 0, str(exc.problem or exc)) from None
    except yaml.YAMLError as exc:  # pragma: no cover - defensive, compose raises MarkedYAMLError
        raise YamlSyntaxError(0, str(exc)) from None
    if node is None:
        return None
    return _convert(node)


def _convert(node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = LocatedDict()
        out.line = node.start_mark.line + 1
        out.key_lines = {}
        for key_node, value_node in node.value:
            key = _convert(key_node)
            if isinstance(key, (dict, list)):
                raise YamlSyntaxError(key_node.start_mark.line + 1, "a mapping key must be a plain value")
            if key in out:
                raise YamlSyntaxError(key_node.start_mark.line + 1, f"duplicate key {key!r}")
            out[key] = _convert(value_node)
            out.key_lines[str(key)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = LocatedList(_convert(item) for item in node.value)
        seq.line = node.start_mark.line + 1
        return seq
    return _CONSTRUCTOR.construct_object(node, deep=True)


_CONSTRUCTOR = yaml.constructor.SafeConstructor()
