"""Load and validate the grammar strictly, reporting every problem at once.

A grammar mistake found at start-up costs a minute; one found by a trainee mid-drill costs the
drill. So the loader refuses unknown keys, keywords without help, parameters without types,
unknown modes and handlers that do not exist, and lists all of them with file and line together.

The grammar knows no CLI product: `data/` holds the lab's own files, and each HA system's CLI
adds its own namespace, `data/systems/<system>/` (the same files, each optional), read after
them. Mode kinds (which personality a level belongs to, the access scopes its commands may name,
the host its reference prompts show) are data too: `kinds:` in a modes.yaml.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from .command_options import read_options
from .leaves import THRESHOLD_PARAMS, VALUE, LeafError, read_leaves, read_levels
from .model import (
    ACCESS_LEVELS,
    Access,
    Command,
    Grammar,
    Keyword,
    Kind,
    Mode,
    Param,
    ParamRef,
    ParamType,
    Seq,
    Source,
)
from .parse_cache import cached
from .syntax import SyntaxProblem, parse_syntax, render_syntax
from .types import KINDS
from .yaml_source import LocatedDict, YamlSyntaxError, load_located

DATA_DIR = Path(__file__).with_name("data")
SYSTEMS_DIR = "systems"   # under a data directory: one namespace per HA system's CLI
_KIND_KEYS = {"scopes", "host", "help"}
_MODE_KEYS = {"prompt", "char", "kind", "help", "carries"}
_TYPE_KEYS = {"kind", "help", "min", "max", "max-length", "forbidden", "values"}
_PARAM_KEYS = {"type", "help", "complete", "secret"}
_COMMAND_KEYS = {"syntax", "modes", "help", "handler", "access", "enters", "transit", "local", "hidden", "no-form",
                 "no-help", "words", "options", "refused-options"}


class GrammarError(Exception):
    """Every problem found in the grammar files, each as `file:line: message`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, file: str, line: int, message: str) -> None:
        self.items.append(f"{file}:{line}: {message}")


_PARTS = ("modes", "types", "params", "keywords")


def _merge(into: dict[str, Any], more: dict[str, Any], what: str, path: Path, problems: _Problems) -> None:
    for name, value in more.items():
        if name in into:
            problems.add(_rel(path), 0, f"{what} {name} is declared again (names are shared by every namespace)")
            continue
        into[name] = value


def load_grammar_from(data_dir: Path, handlers: Collection[str] | None = None,
                      completion_sources: Collection[str] | None = None) -> Grammar:
    """The grammar in `data_dir`, checked strictly; with `handlers` and `completion_sources`,
    also that every handler id and every `complete:` source exists. The project's own data
    directory is parsed once and kept (see parse_cache); the checks that depend on the shell run
    on every load, and any problem is reported by a full parse, exactly as without the cache."""
    if data_dir != DATA_DIR:
        return _parse(data_dir, handlers, completion_sources)
    inputs = sorted(DATA_DIR.rglob("*.yaml"))
    try:
        grammar = cached("grammar", inputs, lambda: _parse(DATA_DIR, None, None))
    except GrammarError:
        return _parse(data_dir, handlers, completion_sources)
    if handlers is not None and any(cmd.handler not in handlers for cmd in grammar.commands):
        return _parse(data_dir, handlers, completion_sources)
    if completion_sources is not None and any(
            param.complete is not None and param.complete not in completion_sources
            for param in grammar.params.values()):
        return _parse(data_dir, handlers, completion_sources)
    return grammar


def _parse(data_dir: Path, handlers: Collection[str] | None,
           completion_sources: Collection[str] | None) -> Grammar:
    problems = _Problems()
    docs = {name: _read(data_dir / f"{name}.yaml", problems) for name in _PARTS}
    command_files = sorted((data_dir / "commands").glob("*.yaml"))
    if not command_files:
        problems.add(str(data_dir / "commands"), 0, "no command files")

    kinds = _kinds(docs["modes"], data_dir / "modes.yaml", problems)
    modes, groups = _modes(docs["modes"], data_dir / "modes.yaml", problems)
    types = _types(docs["types"], data_dir / "types.yaml", problems)
    params = _params(docs["params"], data_dir / "params.yaml", types, completion_sources, problems)
    keywords = _keywords(docs["keywords"], data_dir / "keywords.yaml", problems)
    files: list[tuple[Path, str]] = [(path, "") for path in command_files]
    for space in sorted(p for p in (data_dir / SYSTEMS_DIR).glob("*") if p.is_dir()):
        more = {name: _read(space / f"{name}.yaml", problems) if (space / f"{name}.yaml").exists() else None
                for name in _PARTS}
        if more["modes"] is not None:
            _merge(kinds, _kinds(more["modes"], space / "modes.yaml", problems), "kind", space / "modes.yaml",
                   problems)
            space_modes, space_groups = _modes(more["modes"], space / "modes.yaml", problems)
            _merge(modes, space_modes, "mode", space / "modes.yaml", problems)
            _merge(groups, space_groups, "group", space / "modes.yaml", problems)
        if more["types"] is not None:
            _merge(types, _types(more["types"], space / "types.yaml", problems), "type", space / "types.yaml",
                   problems)
        if more["params"] is not None:
            _merge(params, _params(more["params"], space / "params.yaml", types, completion_sources, problems),
                   "parameter", space / "params.yaml", problems)
        if more["keywords"] is not None:
            keywords.update(_keywords(more["keywords"], space / "keywords.yaml", problems))
        files += [(path, space.name) for path in sorted((space / "commands").glob("*.yaml"))]
    leaves_file = data_dir / "leaves.yaml"
    level_entries = _leaf_levels(leaves_file, modes, groups, problems) if leaves_file.exists() else []
    for declared in modes.values():
        if declared.kind not in kinds:
            assert declared.source is not None
            problems.add(declared.source.file, declared.source.line,
                         f"mode {declared.id}: kind must be one of the declared kinds ({', '.join(sorted(kinds))})")

    commands: list[Command] = []
    if leaves_file.exists():
        for entry in [*level_entries, *_leaf_commands(leaves_file, types, params, keywords, problems)]:
            commands.extend(_command(entry, leaves_file, modes, groups, params, keywords, handlers, problems,
                                     kinds, ""))
    for path, system in files:
        doc = _read(path, problems)
        if doc is None:
            continue
        entries = doc.get("commands") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            problems.add(_rel(path), getattr(doc, "line", 1), "expected a top-level 'commands:' list")
            continue
        for entry in entries:
            commands.extend(_command(entry, path, modes, groups, params, keywords, handlers, problems, kinds,
                                     system))

    by_mode: dict[str, list[Command]] = {m: [] for m in modes}
    seen: dict[tuple[str, str], Command] = {}
    for cmd in commands:
        for mode in cmd.modes:
            key = (mode, cmd.syntax)
            if key in seen:
                first = seen[key]
                assert cmd.source is not None  # every command read from a file has its source
                problems.add(cmd.source.file, cmd.source.line,
                             f"duplicate command {cmd.syntax!r} in mode {mode} (first at {first.source})")
                continue
            seen[key] = cmd
            by_mode[mode].append(cmd)
    if problems.items:
        raise GrammarError(problems.items)
    return Grammar(modes=modes, commands=commands, types=types, params=params, by_mode=by_mode, kinds=kinds)


def _leaf_levels(path: Path, modes: dict[str, Mode], groups: dict[str, list[str]],
                 problems: _Problems) -> list[LocatedDict]:
    """The mode of every level leaves.yaml declares (in every group its parent is in, so the
    commands of every level such as `exit` reach it), and the command entry that enters it."""
    try:
        levels = read_levels(path)
    except LeafError as exc:
        for problem in exc.problems:
            _, _, rest = problem.partition(":")
            line, _, message = rest.partition(":")
            problems.add(_rel(path), int(line) if line.isdigit() else 0, message.strip())
        return []
    out: list[LocatedDict] = []
    for level in levels:
        if level.mode in modes or level.parent not in modes:
            problems.add(_rel(path), level.line, f"level {level.mode}: a new level below a known one")
            continue
        modes[level.mode] = Mode(id=level.mode, prompt=level.mode, char="#", kind=modes[level.parent].kind,
                                 help=level.help, source=Source(_rel(path), level.line))
        for members in groups.values():
            if level.parent in members:
                members.append(level.mode)
        entry = LocatedDict(syntax=level.words, modes=[level.parent], help=level.help, handler="nav.enter",
                            access="vpn/read-only", enters=level.mode)
        entry["words"] = {word: level.help for word in level.words.split()}
        entry.line, entry.key_lines, entry.raw = level.line, {}, {}
        out.append(entry)
    return out


def _agrees(leaf_type: str, lo: int | None, hi: int | None, ptype: ParamType) -> bool:
    """A shared parameter's type says what the leaf says (an int's range, a text's kind)."""
    if leaf_type == "int":
        return ptype.kind == "integer" and (ptype.min, ptype.max) == (lo, hi)
    return leaf_type in ("str", "secret") and ptype.kind in ("string", "text")


def _leaf_commands(path: Path, types: dict[str, ParamType], params: dict[str, Param], keywords: dict[str, str],
                   problems: _Problems) -> list[LocatedDict]:
    """The command entry of every leaf with words (grammar/leaves.py), with the parameter type
    and parameter made from the leaf where it names no shared one. A keyword of the words without
    help of its own gets the command's."""
    try:
        table = read_leaves(path)
    except LeafError as exc:
        for problem in exc.problems:
            file, _, rest = problem.partition(":")
            line, _, message = rest.partition(":")
            problems.add(_rel(path), int(line) if line.isdigit() else 0, message.strip())
        return []
    out: list[LocatedDict] = []
    for word, name in THRESHOLD_PARAMS.items():  # the levels of every event threshold
        ptype = ParamType(name=name, kind="integer", help=f"The {word} level", min=0,
                          max=100 if word.endswith("percent") else 4294967295)
        types.setdefault(name, ptype)
        params.setdefault(name, Param(name=name, type=ptype, help=ptype.help))
    for leaf in (leaf for objects in table.values() for leaf in objects.values() if leaf.cli):
        shared = params.get(leaf.param) if leaf.param else None
        if leaf.param and (shared is None or not _agrees(leaf.type, leaf.min, leaf.max, shared.type)):
            problems.add(_rel(path), leaf.line, f"leaf {leaf.id}: parameter <{leaf.param}> must be declared in "
                                                f"params.yaml with a type of the leaf's range")
        if leaf.type not in ("bool", "enum", "threshold") and not leaf.param:
            kind = "integer" if leaf.type == "int" else "text"
            ptype = ParamType(name=leaf.param_name, kind=kind, help=leaf.help, min=leaf.min, max=leaf.max,
                              max_length=leaf.max_length, empty=leaf.type == "str")
            if leaf.param_name in params:
                problems.add(_rel(path), leaf.line, f"leaf {leaf.id}: parameter <{leaf.param_name}> is declared "
                                                    "in params.yaml too (name it with param:)")
            types.setdefault(leaf.param_name, ptype)
            params.setdefault(leaf.param_name, Param(name=leaf.param_name, type=ptype, help=leaf.help,
                                                     secret=leaf.type == "secret"))
        entry = LocatedDict(syntax=leaf.syntax(), modes=[leaf.mode], help=leaf.help, handler=leaf.handler_id,
                            access=leaf.access)
        entry["no-form"] = True if leaf.type == "bool" else leaf.no_words
        if leaf.no_help:
            entry["no-help"] = leaf.no_help
        words = {word: leaf.help for word in leaf.cli.split() if word != VALUE and word not in keywords}
        if leaf.type == "threshold":
            words.update({word: f"The {word} level of the threshold" for word in THRESHOLD_PARAMS})
        words.update(zip(leaf.values, leaf.value_help or [f"Set {leaf.name} to {v}" for v in leaf.values],
                         strict=True))
        entry["words"] = words
        entry.line, entry.key_lines, entry.raw = leaf.line, {}, {}
        out.append(entry)
        if leaf.encrypted_cli:  # a secret: the command that takes its hash (grammar/leaves.py)
            hashed = LocatedDict(syntax=leaf.encrypted_cli, modes=[leaf.mode], access=leaf.access,
                                 help=f"{leaf.help.split(' (')[0]} from the salted hash current-config prints",
                                 handler=leaf.handler_id)
            hashed["words"] = {word: f"{leaf.help}, from its salted hash" for word in leaf.encrypted_cli.split()
                               if word.startswith("encrypted-") and word not in keywords}
            hashed.line, hashed.key_lines, hashed.raw = leaf.line, {}, {}
            out.append(hashed)
    return out


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(DATA_DIR.parent.parent))
    except ValueError:
        return str(path)


def _read(path: Path, problems: _Problems) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        problems.add(_rel(path), 0, f"cannot read: {exc.strerror}")
        return None
    try:
        return load_located(text)
    except YamlSyntaxError as exc:
        problems.add(_rel(path), exc.line, f"YAML: {exc.problem}")
        return None


def _unknown_keys(entry: LocatedDict, allowed: set[str], path: Path, problems: _Problems, what: str) -> None:
    for key in entry:
        if key not in allowed:
            problems.add(_rel(path), entry.key_lines.get(str(key), entry.line),
                         f"unknown key {key!r} in {what} (allowed: {', '.join(sorted(allowed))})")


def _kinds(doc: Any, path: Path, problems: _Problems) -> dict[str, Kind]:
    """The `kinds:` a modes.yaml declares (a namespace may declare none and use the lab's)."""
    out: dict[str, Kind] = {}
    if not isinstance(doc, dict) or doc.get("kinds") is None:
        return out
    if not isinstance(doc["kinds"], LocatedDict):
        problems.add(_rel(path), getattr(doc, "line", 1), "'kinds:' must be a mapping")
        return out
    for name, spec in doc["kinds"].items():
        line = doc["kinds"].key_lines.get(name, 0)
        if not isinstance(spec, LocatedDict):
            problems.add(_rel(path), line, f"kind {name}: expected a mapping")
            continue
        _unknown_keys(spec, _KIND_KEYS, path, problems, f"kind {name}")
        scopes = spec.get("scopes")
        if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) and s for s in scopes):
            problems.add(_rel(path), line, f"kind {name}: scopes must be a list of names")
            scopes = ["global"]
        out[str(name)] = Kind(str(name), tuple(str(s) for s in scopes), str(spec.get("host", "")),
                              Source(_rel(path), line))
    return out


def _modes(doc: Any, path: Path, problems: _Problems) -> tuple[dict[str, Mode], dict[str, list[str]]]:
    modes: dict[str, Mode] = {}
    groups: dict[str, list[str]] = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("modes"), dict):
        problems.add(_rel(path), 1, "expected a 'modes:' mapping")
        return modes, groups
    for mode_id, spec in doc["modes"].items():
        line = doc["modes"].key_lines.get(mode_id, 0)
        if not isinstance(spec, LocatedDict):
            problems.add(_rel(path), line, f"mode {mode_id}: expected a mapping")
            continue
        _unknown_keys(spec, _MODE_KEYS, path, problems, f"mode {mode_id}")
        char = spec.get("char")
        if char not in (">", "#"):
            problems.add(_rel(path), line, f"mode {mode_id}: char must be '>' or '#'")
        kind = str(spec.get("kind", "router"))   # checked against the declared kinds once all are read
        if not spec.get("help"):
            problems.add(_rel(path), line, f"mode {mode_id}: help is missing")
        carries = spec.get("carries") or {}
        modes[mode_id] = Mode(
            id=mode_id, prompt=str(spec.get("prompt", "")), char=str(char), kind=kind,
            help=str(spec.get("help", "")), carries=tuple((str(k), str(v)) for k, v in carries.items()),
            source=Source(_rel(path), line),
        )
    for name, members in (doc.get("groups") or {}).items():
        line = doc["groups"].key_lines.get(name, 0)
        if name in modes:
            problems.add(_rel(path), line, f"group {name} has the name of a mode")
        expanded: list[str] = []
        for member in members or []:
            if member in modes:
                expanded.append(member)
            elif member in groups:
                expanded.extend(groups[member])
            else:
                problems.add(_rel(path), line, f"group {name}: unknown mode {member!r}")
        groups[name] = expanded
    return modes, groups


def _types(doc: Any, path: Path, problems: _Problems) -> dict[str, ParamType]:
    out: dict[str, ParamType] = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("types"), dict):
        problems.add(_rel(path), 1, "expected a 'types:' mapping")
        return out
    for name, spec in doc["types"].items():
        line = doc["types"].key_lines.get(name, 0)
        if not isinstance(spec, LocatedDict):
            problems.add(_rel(path), line, f"type {name}: expected a mapping")
            continue
        _unknown_keys(spec, _TYPE_KEYS, path, problems, f"type {name}")
        kind = spec.get("kind")
        if kind not in KINDS:
            problems.add(_rel(path), line, f"type {name}: kind must be one of {', '.join(KINDS)}")
            continue
        if kind == "enum" and not spec.get("values"):
            problems.add(_rel(path), line, f"type {name}: an enum needs values")
        out[name] = ParamType(
            name=name, kind=kind, help=str(spec.get("help", "")), min=spec.get("min"), max=spec.get("max"),
            max_length=spec.get("max-length"), forbidden=str(spec.get("forbidden", "")),
            values=tuple(str(v) for v in spec.get("values") or ()),
        )
    return out


def _params(doc: Any, path: Path, types: dict[str, ParamType], completion_sources: Collection[str] | None,
            problems: _Problems) -> dict[str, Param]:
    out: dict[str, Param] = {}
    if not isinstance(doc, dict) or not isinstance(doc.get("params"), dict):
        problems.add(_rel(path), 1, "expected a 'params:' mapping")
        return out
    for name, spec in doc["params"].items():
        line = doc["params"].key_lines.get(name, 0)
        if not isinstance(spec, LocatedDict):
            problems.add(_rel(path), line, f"parameter <{name}>: expected a mapping")
            continue
        _unknown_keys(spec, _PARAM_KEYS, path, problems, f"parameter <{name}>")
        type_name = spec.get("type")
        if type_name is None:
            problems.add(_rel(path), line, f"parameter <{name}> has no type")
            continue
        if type_name not in types:
            problems.add(_rel(path), line, f"parameter <{name}>: unknown type {type_name!r}")
            continue
        if not spec.get("help"):
            problems.add(_rel(path), line, f"parameter <{name}> has no help")
        complete = spec.get("complete")
        if complete is not None and not isinstance(complete, str):
            problems.add(_rel(path), line, f"parameter <{name}>: 'complete' must be a source name")
            complete = None
        elif complete is not None and completion_sources is not None and complete not in completion_sources:
            problems.add(_rel(path), line, f"parameter <{name}>: unknown completion source {complete!r} "
                                           f"(known: {', '.join(sorted(completion_sources))})")
        secret = spec.get("secret", False)
        if not isinstance(secret, bool):
            problems.add(_rel(path), spec.key_lines.get("secret", line),
                         f"parameter <{name}>: secret must be true or false")
            secret = False
        out[name] = Param(name=name, type=types[type_name], help=str(spec.get("help", "")), complete=complete,
                          secret=secret)
    return out


def _keywords(doc: Any, path: Path, problems: _Problems) -> dict[str, str]:
    if not isinstance(doc, dict) or not isinstance(doc.get("keywords"), dict):
        problems.add(_rel(path), 1, "expected a 'keywords:' mapping")
        return {}
    return {str(k): str(v) for k, v in doc["keywords"].items()}


def _command(
    entry: Any, path: Path, modes: dict[str, Mode], groups: dict[str, list[str]], params: dict[str, Param],
    keywords: dict[str, str], handlers: Collection[str] | None, problems: _Problems, kinds: dict[str, Kind],
    system: str,
) -> Iterable[Command]:
    file = _rel(path)
    if not isinstance(entry, LocatedDict):
        problems.add(file, getattr(entry, "line", 0), "a command entry must be a mapping")
        return []
    line = entry.line
    _unknown_keys(entry, _COMMAND_KEYS, path, problems, "command")
    ok = True
    for key in ("syntax", "modes", "help", "handler", "access"):
        if key not in entry:
            problems.add(file, line, f"command is missing {key!r}")
            ok = False
    if not ok:
        return []
    words = {str(k): str(v) for k, v in (entry.get("words") or {}).items()}
    source = Source(file, line)
    hidden = bool(entry.get("hidden", False))

    def keyword(word: str) -> Keyword:
        help_text = words.get(word) or keywords.get(word)
        if help_text is None:
            raise SyntaxProblem(f"keyword {word!r} has no help (add it to keywords.yaml or the entry's words:)")
        return Keyword(word, help_text, whole=hidden)

    def param(name: str) -> ParamRef:
        if name not in params:
            raise SyntaxProblem(f"unknown parameter <{name}> (declare it in params.yaml with a type)")
        return ParamRef(params[name])

    mode_spec = entry["modes"] if isinstance(entry["modes"], list) else [entry["modes"]]
    mode_ids: list[str] = []
    for m in mode_spec:
        if m in modes:
            mode_ids.append(m)
        elif m in groups:
            mode_ids.extend(groups[m])
        else:
            problems.add(file, line, f"unknown mode or group {m!r}")
    scopes = {s for m in mode_ids if m in modes and modes[m].kind in kinds for s in kinds[modes[m].kind].scopes}
    access = _access(entry["access"], file, line, problems, tuple(sorted(scopes)) or ("global",))
    handler = str(entry["handler"])
    if handlers is not None and handler not in handlers:
        problems.add(file, line, f"handler {handler!r} does not exist")
    enters = entry.get("enters")
    if enters is not None and enters not in modes:
        problems.add(file, line, f"enters unknown mode {enters!r}")
    modes_key = ",".join(str(m) for m in mode_spec)
    options = read_options(entry, lambda at, problem: problems.add(file, at, problem))

    out: list[Command] = []
    forms: list[tuple[str, bool, str]] = [(str(entry["syntax"]), False, str(entry["help"]))]
    no = entry.get("no-form")
    if no:
        no_syntax = str(entry["syntax"]) if no is True else str(no)
        forms.append(("no " + no_syntax, True, str(entry.get("no-help") or entry["help"])))
    for text, negated, help_text in forms:
        try:
            seq: Seq = parse_syntax(text, keyword, param)
        except SyntaxProblem as exc:
            problems.add(file, line, f"syntax {text!r}: {exc}")
            continue
        syntax = render_syntax(seq)
        out.append(Command(
            node=f"{modes_key}: {syntax}", syntax=syntax, modes=tuple(dict.fromkeys(mode_ids)), help=help_text,
            handler=handler, access=access, element=seq, enters=None if negated else enters,
            transit=bool(entry.get("transit", False)), negated=negated, source=source,
            local=bool(entry.get("local", False)), hidden=hidden, system=system, options=options,
        ))
    return out


def _access(text: Any, file: str, line: int, problems: _Problems, scopes: tuple[str, ...]) -> Access:
    """`<scope>/<level>`: the scope one its modes' kinds declare, the level one of ACCESS_LEVELS."""
    if text == "none":
        return Access("global", "none")
    scope, _, level = str(text).partition("/")
    if scope not in scopes or level not in ACCESS_LEVELS:
        problems.add(file, line, f"access {text!r} must be <scope>/<level> with scope in {scopes} "
                                 f"and level in {ACCESS_LEVELS}")
        return Access("global", "admin")
    return Access(scope, level)
