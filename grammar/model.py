"""The command tree as typed, immutable data.

Everything the shell knows about a command (where it is valid, what it looks like, who may run it,
which handler runs it) lives in these objects, built once from the YAML files under grammar/data.
Parsing, `?` help, Tab completion, caret positions and the command reference all read the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ACCESS_LEVELS: tuple[str, ...] = ("none", "read-only", "mesh-manager", "read-write", "admin")
# the value types of a tool's own `--name value` options, as the tool converts them (gfsh's
# converters: Java's String, String[] (comma-separated), Integer, Boolean and boolean)
OPTION_TYPES: tuple[str, ...] = ("String", "String[]", "Integer", "Boolean", "boolean")


@dataclass(frozen=True)
class Source:
    """Where a grammar item was written, for error messages and the command reference."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Kind:
    """A kind of mode: which CLI personality its levels belong to, as that personality's data
    declares it (modes.yaml `kinds:`): the access scopes its commands may name, and the host its
    prompts show in the command reference ("" for a CLI whose prompt has no host)."""

    name: str
    scopes: tuple[str, ...]
    host: str
    source: Source | None = None


@dataclass(frozen=True)
class Mode:
    id: str
    prompt: str            # the path shown between parentheses; "" shows no parentheses
    char: str              # ">" or "#"
    kind: str              # a declared Kind's name
    help: str
    carries: tuple[tuple[str, str], ...] = ()   # (context key, parameter name that sets it)
    source: Source | None = None


@dataclass(frozen=True)
class ParamType:
    name: str
    kind: str                          # string | pattern | integer | enum | duration | size | text
    help: str = ""
    min: int | None = None
    max: int | None = None
    max_length: int | None = None
    forbidden: str = ""
    values: tuple[str, ...] = ()
    empty: bool = False                # `""` is a value (a text setting's, which the broker prints so)


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    help: str
    complete: str | None = None        # live-name source: vpn, queue, xid, client, router, site, user
    secret: bool = False               # a password: masked before history, recordings and logs


@dataclass(frozen=True)
class Keyword:
    word: str
    help: str
    whole: bool = False       # a hidden command's word: matches only in full, never offered


@dataclass(frozen=True)
class ParamRef:
    param: Param


@dataclass(frozen=True)
class Seq:
    items: tuple[Element, ...]


@dataclass(frozen=True)
class Opt:
    body: Element


@dataclass(frozen=True)
class Alt:
    choices: tuple[Element, ...]


Element = Keyword | ParamRef | Seq | Opt | Alt
Token = Keyword | ParamRef


@dataclass(frozen=True)
class Access:
    scope: str   # global | vpn
    level: str   # one of ACCESS_LEVELS

    def __str__(self) -> str:
        return f"{self.scope}/{self.level}"


@dataclass(frozen=True)
class CommandOption:
    """One `--name value` option of a command whose tool reads its options itself (gfsh's
    @CliOption), as the command's grammar entry declares it (`options:`): its keys (the first
    names the value; "" is the tool's default option, a value given without a name), its value
    type (``OPTION_TYPES``), whether it must be given, the value it takes when given without one
    (``specified_default``) and when not given (``unspecified_default``), None meaning no value,
    and whether the lab emulates it (False: a real option the lab refuses by name)."""

    keys: tuple[str, ...]
    type: str = "String"
    mandatory: bool = False
    specified_default: str | None = None
    unspecified_default: str | None = None
    emulated: bool = True


@dataclass(frozen=True)
class Command:
    """One grammar entry, expanded: a `no: true` entry yields two Commands."""

    node: str                 # stable id: "<modes as written>: <syntax>"
    syntax: str
    modes: tuple[str, ...]
    help: str
    handler: str
    access: Access
    element: Seq
    enters: str | None = None
    transit: bool = False     # may only be crossed on the way to a deeper command
    negated: bool = False     # the generated `no` form
    local: bool = False       # only at its own level, never after crossing levels on one line
    hidden: bool = False      # accepted only typed in full; not offered by `?` or Tab
    source: Source | None = None
    system: str = ""          # the HA system whose grammar namespace declares it ("" for the lab's own)
    # the options its tool reads after its words, in declaration order; None: the tool reads none
    # (and ignores what follows the words); only a CLI that reads options itself looks here
    options: tuple[CommandOption, ...] | None = None

    @property
    def creates(self) -> bool:
        """A `create ...` command: the one an ignore-already-exists pragma may let through."""
        return not self.negated and self.syntax.split(" ", 1)[0] == "create"


@dataclass
class Grammar:
    modes: dict[str, Mode]
    commands: list[Command]
    types: dict[str, ParamType]
    params: dict[str, Param]
    by_mode: dict[str, list[Command]] = field(default_factory=dict)
    kinds: dict[str, Kind] = field(default_factory=dict)
    _between: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict, init=False, repr=False,
                                                               compare=False)

    def nodes(self) -> list[str]:
        """Every command-tree node id, for coverage reports."""
        return sorted({c.node for c in self.commands})

    def command(self, node: str) -> Command:
        for c in self.commands:
            if c.node == node:
                return c
        raise KeyError(node)

    def levels_between(self, current: str, target: str) -> tuple[str, ...]:
        """The levels strictly between `current` and `target` when `target` lies below `current`
        in the level tree (mode ids are level paths); () otherwise. Remembered per pair: every
        command that enters a level asks, and the answer depends on the grammar alone."""
        key = (current, target)
        found = self._between.get(key)
        if found is None:
            found = ()
            if target.startswith(current + "/"):
                parts = target.split("/")
                depth = len(current.split("/"))
                found = tuple(path for path in ("/".join(parts[:i]) for i in range(depth + 1, len(parts)))
                              if path in self.modes)
            self._between[key] = found
        return found
