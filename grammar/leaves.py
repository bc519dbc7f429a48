"""Configuration leaves, each declared once (`data/leaves.yaml`).

A leaf is one setting of one configured object: a queue's `max-bind-count`, a client profile's
`allow-bridge-connections`, a REST consumer's `remote port`. Its declaration says everything the
layers need, in the manner of a YANG leaf or a klish parameter: the type and range, the default,
where the model keeps it (`attr`, or the object's attribute map), the scenario key, and, when a
command does nothing but set it, that command's words at the object's level. From it come the
command and its parameter type (`grammar.loader`), the engine's one coercion rule
(`state_store.solace.leaves`), the scenario schema's entry, the generic handler that sets it
(`solace_shell.personalities.solace.handlers.leaves`) and its current-config line (`Leaf.config_line`).

This module is plain data and knows no state: the engine imports it to coerce and store.

Words (`cli`): the command at the object's level, `<value>` standing for the value. A bool leaf's
words turn it on (`no <words>` off), or off when `inverted` (`shutdown` clears `enabled`); an enum
leaf's `<value>` is one keyword of its values; an int or str leaf's is a parameter of a type made
from the leaf (or the shared parameter `param` names); a threshold's words are followed by its
levels (`clear-percent <n> set-percent <n>` or `clear-value <n> set-value <n>`); `no <words
before the value>` restores the default. A secret's words take the clear secret (a parameter
masked in history, hashed before it is stored); a second command, the last word before the value
prefixed with `encrypted-` (`aws encrypted-secret-access-key <encrypted-password>`), takes the
salted hash current-config prints, so a saved configuration re-runs without the clear secret.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from .parse_cache import cached
from .yaml_source import LocatedDict, YamlSyntaxError, load_located

LEAVES_FILE = Path(__file__).with_name("data") / "leaves.yaml"
VALUE = "<value>"
ENCRYPTED_VALUE = "<encrypted-password>"  # the shared parameter of a secret's hash (params.yaml)
LeafType = Literal["bool", "int", "enum", "str", "secret", "threshold"]
LEAF_TYPES: tuple[str, ...] = ("bool", "int", "enum", "str", "secret", "threshold")
# An event threshold: a pair of levels, as percentages of the limit or as values; stored as
# "percent <clear> <set>" or "value <clear> <set>".
THRESHOLD_FORMS = ("percent", "value")
THRESHOLD_PARAMS = {"clear-percent": "threshold-clear-percent", "set-percent": "threshold-set-percent",
                    "clear-value": "threshold-clear-value", "set-value": "threshold-set-value"}
THRESHOLD_SYNTAX = ("{clear-percent <threshold-clear-percent> set-percent <threshold-set-percent> | "
                    "clear-value <threshold-clear-value> set-value <threshold-set-value>}")
_KEYS = {"type", "default", "min", "max", "values", "max-length", "attr", "builtin-default", "scenario", "cli",
         "mode", "access", "help", "no-help", "inverted", "param", "quoted", "no-cli", "always"}


class _Unset(enum.Enum):
    """A marker that stays itself through pickling (parse_cache keeps leaves), unlike `object()`."""

    TOKEN = "unset"


_NO_BUILTIN_DEFAULT = _Unset.TOKEN


class LeafError(Exception):
    """leaves.yaml is malformed; ``problems`` lists each as ``file:line: message``."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Leaf:
    """One configuration leaf (module docstring)."""

    kind: str                        # the object kind: a config-object kind, `queue`, `replication`, ...
    name: str                        # the leaf's name within the object (the attribute map's key)
    type: LeafType
    default: object
    min: int | None = None
    max: int | None = None
    values: tuple[str, ...] = ()     # an enum's values
    value_help: tuple[str, ...] = ()  # one help line per value
    max_length: int | None = None
    attr: str = ""                   # the model record's attribute; "" = the object's attribute map
    builtin_default: object = _NO_BUILTIN_DEFAULT  # the default of a builtin object (`default`), if it differs
    scenario: str = ""               # the key of the object's entry in a scenario file
    cli: str = ""                    # the words of the command that sets it (module docstring)
    mode: str = ""                   # the level that command is at
    access: str = ""
    help: str = ""
    no_help: str = ""
    inverted: bool = False           # a bool whose words turn it off
    param: str = ""                  # a shared parameter for the value (params.yaml), instead of a made one
    quoted: bool = True              # a str value prints quoted in current-config
    no_cli: str = ""                 # the words of the `no` form, when not those before the value
    always: bool = False             # current-config prints it at its default too (and `remove` resets it)
    line: int = 0                    # where it is declared in leaves.yaml

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def handler_id(self) -> str:
        """The generic handler that sets this leaf (registered for every leaf with words)."""
        return f"leaf.{self.kind}.{self.name}"

    @property
    def param_name(self) -> str:
        return self.param or f"{self.kind}-{self.name}"

    @property
    def has_builtin_default(self) -> bool:
        return self.builtin_default is not _NO_BUILTIN_DEFAULT

    @property
    def no_words(self) -> str:
        """The words of the `no` form: those before the value (all of a bool's), or `no-cli`."""
        return self.no_cli or self.cli.split(VALUE)[0].strip()

    @property
    def encrypted_cli(self) -> str:
        """A secret's words for its salted hash (module docstring); "" for other leaves."""
        if self.type != "secret":
            return ""
        before, _, after = self.cli.partition(VALUE)
        words = before.split()
        return " ".join([*words[:-1], f"encrypted-{words[-1]}", ENCRYPTED_VALUE]) + after.rstrip()

    def syntax(self) -> str:
        """The command's syntax for the grammar: the value as a parameter or a choice of keywords."""
        if self.type == "bool":
            return self.cli
        if self.type == "threshold":
            return f"{self.cli} {THRESHOLD_SYNTAX}"
        if self.type == "enum":
            return self.cli.replace(VALUE, "{" + " | ".join(self.values) + "}")
        return self.cli.replace(VALUE, f"<{self.param_name}>")

    def config_line(self, value: object) -> str:
        """The current-config line that sets ``value``."""
        if self.type == "bool":
            return self.cli if bool(value) != self.inverted else f"no {self.cli}"
        if value in ("", None):
            return f"no {self.no_words}"
        if self.type == "threshold":
            form, clear, set_ = str(value).split()
            return f"{self.cli} clear-{form} {clear} set-{form} {set_}"
        shown = f'"{value}"' if self.type in ("str", "secret") and self.quoted else str(value)
        if self.type == "secret":
            return self.encrypted_cli.replace(ENCRYPTED_VALUE, shown)
        return self.cli.replace(VALUE, shown)

    def reset_line(self) -> str:
        """The line that restores the default (a remove script's)."""
        return self.config_line(self.default) if self.type == "bool" else f"no {self.no_words}"

    @staticmethod
    def threshold(form: str, clear: object, set_: object) -> str:
        """A threshold's stored value."""
        return f"{form} {clear} {set_}"


def _leaf(obj: str, name: str, spec: Any, file: str, line: int, problems: list[str]) -> Leaf | None:
    where = f"{file}:{line}: leaf {obj}/{name}"
    if not isinstance(spec, LocatedDict):
        problems.append(f"{where}: expected a mapping")
        return None
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(unknown)}")
    kind = spec.get("type")
    if kind not in LEAF_TYPES:
        problems.append(f"{where}: type must be one of {', '.join(LEAF_TYPES)}")
        return None
    raw_values = spec.get("values") or ()
    values = tuple(str(v) for v in raw_values)
    value_help = tuple(str(raw_values[v]) for v in raw_values) if isinstance(raw_values, dict) else ()
    if kind == "enum" and not values:
        problems.append(f"{where}: an enum needs values")
    default = spec.get("default", False if kind == "bool" else "")
    if kind == "enum" and str(default) not in values:
        problems.append(f"{where}: default {default!r} is not one of its values")
    lo, hi = spec.get("min"), spec.get("max")
    if kind == "int" and (not isinstance(lo, int) or not isinstance(hi, int)):
        problems.append(f"{where}: an int needs min and max")
    cli = str(spec.get("cli", ""))
    if cli:
        for key in ("mode", "access", "help"):
            if not spec.get(key):
                problems.append(f"{where}: a leaf with cli words needs {key!r}")
        if (kind in ("bool", "threshold")) == (VALUE in cli):
            problems.append(f"{where}: cli words hold {VALUE} exactly when the leaf is not a bool or threshold")
    return Leaf(
        kind=obj, name=name, type=cast(LeafType, kind), default=default, min=lo, max=hi, values=values,
        value_help=value_help, max_length=spec.get("max-length"), attr=str(spec.get("attr", "")),
        builtin_default=spec.get("builtin-default", _NO_BUILTIN_DEFAULT), scenario=str(spec.get("scenario", "")),
        cli=cli, mode=str(spec.get("mode", "")), access=str(spec.get("access", "")), help=str(spec.get("help", "")),
        no_help=str(spec.get("no-help", "")), inverted=bool(spec.get("inverted", False)),
        param=str(spec.get("param", "")), quoted=bool(spec.get("quoted", True)), no_cli=str(spec.get("no-cli", "")),
        always=bool(spec.get("always", False)), line=line)


@dataclass(frozen=True)
class Level:
    """A configuration level that only holds leaves (a YANG container): its mode id (the level
    path; the parent level is the path without its last part), the words that enter it at the
    parent level, its help, and how current-config writes the line that enters it when not as
    its words (the real dump quotes some names: `queue "G-1"`)."""

    mode: str
    words: str
    help: str
    line: int = 0
    dump: str = ""

    @property
    def dump_words(self) -> str:
        """The line current-config enters the level with."""
        return self.dump or self.words

    @property
    def parent(self) -> str:
        return self.mode.rsplit("/", 1)[0]


@functools.cache
def _document(path: Path) -> Any:
    """The parsed file (read once per process: the grammar, the engine and the renderers all read it)."""
    try:
        return load_located(path.read_text(encoding="utf-8"))
    except (OSError, YamlSyntaxError) as exc:
        raise LeafError([f"{path.name}:{getattr(exc, 'line', 0)}: {exc}"]) from None


def read_levels(path: Path = LEAVES_FILE) -> list[Level]:
    """The `levels:` of leaves.yaml, in declaration order (a parent before its children)."""
    file = path.name
    doc = _document(path)
    levels = doc.get("levels") if isinstance(doc, dict) else None
    if levels is None:
        return []
    problems: list[str] = []
    out: list[Level] = []
    if not isinstance(levels, LocatedDict):
        raise LeafError([f"{file}:1: 'levels:' must map mode ids to their words and help"])
    for mode, spec in levels.items():
        line = levels.key_lines.get(mode, 0)
        if not isinstance(spec, LocatedDict) or not spec.get("words") or not spec.get("help") or set(spec) - {
                "words", "help", "dump"}:
            problems.append(f"{file}:{line}: level {mode}: expected words and help (and optionally dump)")
            continue
        out.append(Level(str(mode), str(spec["words"]), str(spec["help"]), line, str(spec.get("dump", ""))))
    if problems:
        raise LeafError(problems)
    return out


def read_leaves(path: Path = LEAVES_FILE) -> dict[str, dict[str, Leaf]]:
    """Every object's leaves, in declaration order (the order current-config prints them)."""
    file = path.name
    problems: list[str] = []
    doc = _document(path)
    objects = doc.get("objects") if isinstance(doc, dict) else None
    if not isinstance(objects, LocatedDict):
        raise LeafError([f"{file}:1: expected an 'objects:' mapping"])
    out: dict[str, dict[str, Leaf]] = {}
    for obj, leaves in objects.items():
        if not isinstance(leaves, LocatedDict):
            problems.append(f"{file}:{objects.key_lines.get(obj, 0)}: object {obj}: expected a mapping of leaves")
            continue
        out[str(obj)] = {}
        for name, spec in leaves.items():
            leaf = _leaf(str(obj), str(name), spec, file, leaves.key_lines.get(name, 0), problems)
            if leaf is not None:
                out[str(obj)][str(name)] = leaf
    if problems:
        raise LeafError(problems)
    return out


@functools.cache
def leaves() -> dict[str, dict[str, Leaf]]:
    """The declared leaves (made once, and kept between processes by parse_cache)."""
    return cached("leaves", [LEAVES_FILE], read_leaves)


@functools.cache
def levels() -> list[Level]:
    """The declared levels (made once, and kept between processes by parse_cache)."""
    return cached("levels", [LEAVES_FILE], read_levels)


def of(obj: str) -> dict[str, Leaf]:
    """The leaves of one object kind (none declared: empty)."""
    return leaves().get(obj, {})


def with_words() -> list[Leaf]:
    """Every leaf whose command is generated from its declaration."""
    return [leaf for table in leaves().values() for leaf in table.values() if leaf.cli]
