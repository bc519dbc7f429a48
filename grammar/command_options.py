"""A command entry's `options:` and `refused-options:`: the `--name value` options its tool reads
itself, checked and turned into ``CommandOption``s.

Why in the grammar: which options a command takes, their types and defaults are facts of the
command as much as its words and help are, so they are declared once beside them (a CLI's parser,
its `?` and its help read the same objects) and checked when the grammar loads, with file and
line, like every other part of an entry.

The form::

    options:                       # in the tool's declaration order
      - keys: [group, groups]      # the first key names the value; "" is the default option
        type: String[]             # OPTION_TYPES; String when left out
        mandatory: true            # false when left out
        specified-default: "true"  # the value when given without one
        unspecified-default: "40404"   # the value when not given
        emulated: false            # a real option the lab refuses by name
    refused-options: [force, J]    # more real options the lab refuses, after those above

An entry with neither key reads no options: its tool ignores what follows its words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .model import OPTION_TYPES, CommandOption
from .yaml_source import LocatedDict

OPTION_KEYS = frozenset({"keys", "type", "mandatory", "specified-default", "unspecified-default", "emulated"})

Report = Callable[[int, str], None]   # (line, problem)


def read_options(entry: LocatedDict, report: Report) -> tuple[CommandOption, ...] | None:
    """The options ``entry`` declares, or None when it declares none; each problem is reported
    with its line and the offending option left out."""
    declared = entry.get("options")
    refused = entry.get("refused-options")
    if declared is None and refused is None:
        return None
    out: list[CommandOption] = []
    if declared is not None:
        if not isinstance(declared, list):
            report(entry.key_lines.get("options", entry.line), "options must be a list of option mappings")
        else:
            for item in declared:
                option = _option(item, getattr(item, "line", entry.line), report)
                if option is not None:
                    out.append(option)
    if refused is not None:
        line = entry.key_lines.get("refused-options", entry.line)
        if not isinstance(refused, list) or not all(isinstance(k, str) and k for k in refused):
            report(line, "refused-options must be a list of option names")
        else:
            out += [CommandOption((str(key),), emulated=False) for key in refused]
    seen: set[str] = set()
    for option in out:
        for key in option.keys:
            if key in seen:
                report(entry.line, f"option key {key!r} is declared twice")
            seen.add(key)
    return tuple(out)


def _option(item: Any, line: int, report: Report) -> CommandOption | None:
    if not isinstance(item, LocatedDict):
        report(line, "an option must be a mapping with keys:")
        return None
    unknown = sorted(str(k) for k in item if k not in OPTION_KEYS)
    if unknown:
        report(line, f"unknown key {unknown[0]!r} in option (allowed: {', '.join(sorted(OPTION_KEYS))})")
        return None
    keys = item.get("keys")
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        report(line, "an option's keys must be a non-empty list of names")
        return None
    kind = item.get("type", "String")
    if kind not in OPTION_TYPES:
        report(line, f"option type {kind!r} is not one of {', '.join(OPTION_TYPES)}")
        return None
    flags = {name: item.get(name, default) for name, default in (("mandatory", False), ("emulated", True))}
    if not all(isinstance(v, bool) for v in flags.values()):
        report(line, "an option's mandatory and emulated are true or false")
        return None
    defaults = [item.get("specified-default"), item.get("unspecified-default")]
    if not all(v is None or isinstance(v, str) for v in defaults):
        report(line, "an option's defaults are quoted strings")
        return None
    return CommandOption(tuple(keys), str(kind), flags["mandatory"], defaults[0], defaults[1], flags["emulated"])
