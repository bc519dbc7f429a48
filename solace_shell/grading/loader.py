"""Reading and checking runbook files: every problem at once, each as `file:line: problem`.

Runbooks are written by trainers and may be given on the command line, so they are untrusted
input read with the project's one bounded YAML loader (grammar/yaml_source.py) and checked
strictly: an unknown key, a command the grammar does not accept, a role, router, check or measure
that does not exist is a problem of the file, never a step that silently matches nothing.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path
from typing import Any

from grammar import ParseError, Parser
from grammar.yaml_source import LocatedDict, LocatedList, YamlSyntaxError, load_located
from state_store.user_files import RUNBOOK_MAX_BYTES, FileRefused, confined_path, confinement, read_bytes

from ..parsed_command import ParsedCommand, from_grammar, vpn_carriers
from ..personalities.plugin import command_parser
from .patterns import CommandPattern, LineReader, compile_pattern
from .runbook import STEP_KINDS, Check, ForbiddenAction, Runbook, RunbookStep
from .vocabulary import CHECKS, EVERY, NEGATION, ROLE_SOURCES, ROUTER_SYSTEM, SAVED, SOME, STATE, is_check, measures_of

SUFFIX = ".yaml"
DEFAULT_LEVEL = "privileged"
CONSOLE_LEVEL = "lab"       # the lab console's level: its lines act on what they name, not on a router
OUTCOME_FROM = ("start", "begin")
_ID_RE = re.compile(r"[a-z][a-z0-9-]{0,62}")
_TOP_KEYS = ("runbook", "title", "system", "vpn", "scenario", "roles", "begin", "steps", "forbidden", "outcome")
_STEP_KEYS = ("id", "title", "rationale", "kind", "router", "every", "other-routers", "at", "commands", "when",
              "preconditions", "until", "measures")
OTHER_ROUTERS = ("wrong-router", "ignored")
_FORBIDDEN_KEYS = ("id", "title", "rationale", "router", "at", "commands", "when", "measures")
MAX_BYTES = RUNBOOK_MAX_BYTES


class RunbookError(ValueError):
    """A runbook that cannot be used; `problems` holds every `file:line: problem` line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def bundled_dir() -> Path:
    return Path(str(resources.files(__package__).joinpath("runbooks")))


def bundled_names() -> list[str]:
    return sorted(p.stem for p in bundled_dir().glob(f"*{SUFFIX}"))


def runbook_path(name_or_path: str | Path) -> Path:
    """A bundled runbook's file by its name, else the path as given; while a transcript replays,
    a path inside the transcript's directory tree only (FileRefused otherwise)."""
    text = str(name_or_path)
    if _ID_RE.fullmatch(text) and (bundled_dir() / f"{text}{SUFFIX}").is_file():
        return bundled_dir() / f"{text}{SUFFIX}"
    confined = confinement()
    if confined is not None:
        return confined_path(text, confined)
    return Path(text)


def load_runbook(name_or_path: str | Path, *, untrusted: bool = False) -> Runbook:
    """The runbook bundled under that name, or read from that file. Raises RunbookError listing
    every problem (an unreadable or missing file is one problem).

    `untrusted` (a file named at the lab console, which SSH users and replayed transcripts reach):
    a file must look like a runbook (a YAML mapping of runbook keys with `runbook:`) before its
    problems are listed, so that no problem quotes a file that is not one."""
    try:
        path = runbook_path(name_or_path)
        data = read_bytes(path, MAX_BYTES)
    except FileRefused as refused:
        hint = "" if any(c in str(name_or_path) for c in "/.") else f" (bundled: {', '.join(bundled_names())})"
        raise RunbookError([f"{refused.shown}:0: cannot read the runbook: {refused.problem}{hint}"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RunbookError([f"{path}:0: not UTF-8 text"]) from None
    return parse_runbook(text, str(path), untrusted=untrusted)


def parse_runbook(text: str, source: str, *, untrusted: bool = False) -> Runbook:
    try:
        doc = load_located(text)
    except YamlSyntaxError as exc:
        if untrusted:
            raise RunbookError([f"{source}:0: not a runbook file (not YAML: a syntax error at line "
                                f"{exc.problems[0][0] if exc.problems else 0})"]) from None
        raise RunbookError([f"{source}:{line}: {problem.splitlines()[0] if problem else 'not YAML'}"
                            for line, problem in exc.problems]) from None
    if untrusted and not (isinstance(doc, LocatedDict) and "runbook" in doc
                          and all(isinstance(k, str) and k in _TOP_KEYS for k in doc)):
        raise RunbookError([f"{source}:0: not a runbook file (its top-level keys are not a runbook's)"])
    checker = _Checker(source, text.split("\n"))
    runbook = checker.runbook(doc)
    if checker.problems or runbook is None:
        raise RunbookError(sorted(set(checker.problems), key=_line_of))
    return runbook


def _line_of(problem: str) -> int:
    match = re.search(r":(\d+): ", problem)
    return int(match.group(1)) if match else 0


def systems_graded() -> tuple[str, ...]:
    """The systems a runbook can grade: the routers' CLI and every registered HA system."""
    from state_store import systems

    return (ROUTER_SYSTEM, *systems.names())


def console_levels() -> frozenset[str]:
    """The levels whose lines are not a router's: the lab console's and each HA system CLI's."""
    from state_store import systems

    return frozenset({CONSOLE_LEVEL, *systems.names()})


@functools.cache
def _grammar_parts() -> tuple[Parser, dict[str, str], frozenset[str]]:
    """The shell's parser, the modes that carry a Message VPN (mode -> parameter), and the mode ids."""
    from solace_shell.lab import shell_grammar

    grammar = shell_grammar()
    return Parser(grammar), vpn_carriers(grammar), frozenset(grammar.modes)


def line_reader(level: str) -> LineReader:
    """How a session's CLI at `level` reads a line: its own reading when it reads its own words
    (a system's CLI, through the registry), else the shell's grammar."""
    from solace_shell.lab import shell_grammar

    own = command_parser(level)
    if own is not None:
        grammar = shell_grammar()
        return lambda line: own(grammar, line)
    parser, carries, _ = _grammar_parts()

    def read(line: str) -> ParsedCommand | str | None:
        parsed = parser.parse(level, line)
        if parsed is None:
            return None
        if isinstance(parsed, ParseError):
            return parsed.kind + (f" at {parsed.word!r}" if parsed.word else "")
        return from_grammar(parsed.steps, None, carries)

    return read


@functools.cache
def _routers_of(scenario: str | None) -> tuple[tuple[str, ...], tuple[str, ...]] | str:
    """The router names of a scenario (None: the default lab), and its HA kernel's node and group
    names beyond them, or why it cannot be built."""
    from state_store.lab_model import LabEngine, LabState
    from state_store.lab_store import LabStore

    from .facts import read_groups

    def names(engine: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
        routers = tuple(r.name for r in engine.routers())
        groups = read_groups(engine)
        kernel = [n.ref for g in groups for n in g.nodes] + [g.name for g in groups]
        return routers, tuple(n for n in dict.fromkeys(kernel) if n not in routers)

    try:
        store: LabStore[LabState, LabEngine] = LabStore.in_memory(scenario)
    except Exception as exc:  # noqa: BLE001 - any scenario problem is the runbook's problem
        return f"{type(exc).__name__}: {exc}".split("\n")[0]
    try:
        return store.run(names)
    finally:
        store.close()


class _Checker:
    def __init__(self, source: str, lines: list[str]) -> None:
        self.source = source
        self.lines = lines
        self.problems: list[str] = []
        self.vpn = "{vpn}"
        self.roles: dict[str, str] = {}
        self.routers: tuple[str, ...] = ()      # routers, then kernel nodes and groups
        self.system = ROUTER_SYSTEM
        self.console = False                    # a command written at a console level

    def problem(self, line: int, message: str) -> None:
        self.problems.append(f"{self.source}:{line}: {' '.join(message.split())}")

    # -- shapes ------------------------------------------------------------------------------
    def mapping(self, value: Any, line: int, what: str, keys: tuple[str, ...]) -> LocatedDict | None:
        if not isinstance(value, LocatedDict):
            self.problem(line, f"{what} must be a mapping")
            return None
        for key in value:
            if key not in keys:
                self.problem(value.key_lines.get(key, value.line),
                             f"unknown key {key!r} in {what} (known: {', '.join(keys)})")
        return value

    def text(self, doc: LocatedDict, key: str, what: str, required: bool = True) -> str:
        value = doc.get(key)
        line = doc.key_lines.get(key, doc.line)
        if value is None:
            if required:
                self.problem(line, f"{what} needs `{key}:`")
            return ""
        if not isinstance(value, str) or not value.strip():
            self.problem(line, f"`{key}:` of {what} must be non-empty text")
            return ""
        return value.strip()

    def items(self, doc: LocatedDict, key: str, what: str) -> list[tuple[Any, int]]:
        """A key's value as (item, line) pairs: a list, or one scalar standing for a list of one."""
        value = doc.get(key)
        line = doc.key_lines.get(key, doc.line)
        if value is None:
            return []
        if isinstance(value, LocatedList):
            return list(zip(value, value.item_lines, strict=True))
        if isinstance(value, LocatedDict):
            self.problem(line, f"`{key}:` of {what} must be a list")
            return []
        return [(value, line)]

    # -- the document ------------------------------------------------------------------------
    def runbook(self, doc: Any) -> Runbook | None:
        top = self.mapping(doc, getattr(doc, "line", 1) or 1, "a runbook", _TOP_KEYS)
        if top is None:
            return None
        name = self.text(top, "runbook", "a runbook")
        if name and not _ID_RE.fullmatch(name):
            self.problem(top.key_lines["runbook"], f"runbook name {name!r} must be lowercase letters, digits and '-'")
        title = self.text(top, "title", "a runbook")
        system = self.text(top, "system", "a runbook", required=False) or ROUTER_SYSTEM
        if system not in systems_graded():
            self.problem(top.key_lines.get("system", top.line),
                         f"unknown system {system!r} (runbooks grade: {', '.join(systems_graded())})")
        else:
            self.system = system
        self.vpn = self.text(top, "vpn", "a runbook", required=self.system == ROUTER_SYSTEM) or "{vpn}"
        scenario = self.text(top, "scenario", "a runbook", required=False) or None
        routers = _routers_of(self._scenario_path(scenario))
        if isinstance(routers, str):
            self.problem(top.key_lines.get("scenario", top.line), f"scenario {scenario!r} cannot be built: {routers}")
        else:
            self.routers = routers[0] + routers[1]
        roles = self.role_map(top)
        begin = self.checks(top, "begin", "a runbook")
        steps = self.steps(top)
        forbidden = self.forbidden(top)
        outcome, outcome_from = self.outcome(top)
        return Runbook(name, title, self.source, system, self.vpn, roles, begin, steps, forbidden, outcome,
                       outcome_from, self.console)

    def _scenario_path(self, scenario: str | None) -> str | None:
        if scenario is None:
            return None
        if "/" not in scenario:
            from state_store.scenario_files import resolve_scenario

            found = resolve_scenario(scenario)
            return scenario if found is None else str(found)
        return str(Path(self.source).parent / scenario)

    def role_map(self, top: LocatedDict) -> tuple[tuple[str, str], ...]:
        value = top.get("roles")
        if value is None:
            return ()
        if not isinstance(value, LocatedDict):
            self.problem(top.key_lines["roles"], "`roles:` must map role names to role sources")
            return ()
        for role, source in value.items():
            line = value.key_lines.get(role, value.line)
            if not isinstance(role, str) or not _ID_RE.fullmatch(role):
                self.problem(line, f"role name {role!r} must be lowercase letters, digits and '-'")
            elif source not in ROLE_SOURCES:
                self.problem(line, f"unknown role source {source!r} for role {role!r} "
                                   f"(known: {', '.join(ROLE_SOURCES)})")
            elif role in self.routers:
                self.problem(line, f"role {role!r} has the name of a router")
            else:
                self.roles[role] = str(source)
        return tuple(self.roles.items())

    def targets(self, doc: LocatedDict, what: str) -> tuple[str, ...]:
        out: list[str] = []
        for item, line in self.items(doc, "router", what):
            if not isinstance(item, str) or not (item in self.roles or item in self.routers):
                self.problem(line, f"unknown router or role {item!r} in {what} "
                                   f"(roles: {', '.join(self.roles) or 'none'}; routers: {', '.join(self.routers)})")
            else:
                out.append(item)
        if not out and "router" not in doc and doc.get("at") not in console_levels():
            self.problem(doc.line, f"{what} needs `router:` (a role or router name)")
        return tuple(out)

    def checks(self, doc: LocatedDict, key: str, what: str) -> tuple[Check, ...]:
        out: list[Check] = []
        for item, line in self.items(doc, key, what):
            if not isinstance(item, LocatedDict) or len(item) != 1:
                self.problem(line, f"each `{key}:` item of {what} is one `check: role` pair")
                continue
            ((name, on),) = item.items()
            if not isinstance(name, str) or not is_check(name):
                self.problem(line, f"unknown state check {name!r} in {what} (known: {', '.join(CHECKS)}, "
                                   f"{STATE}<state>, {SAVED}<state>, {EVERY}<node check>, {SOME}<node check>, "
                                   f"each also as {NEGATION}<check>)")
            elif not isinstance(on, str) or not (on in self.roles or on in self.routers):
                self.problem(line, f"unknown router or role {on!r} for check {name!r} in {what}")
            else:
                out.append(Check(name, on))
        return tuple(out)

    def measures(self, doc: LocatedDict, what: str) -> tuple[str, ...]:
        out: list[str] = []
        known = measures_of(self.system)
        for item, line in self.items(doc, "measures", what):
            if item not in known:
                self.problem(line, f"unknown measure {item!r} in {what} (known: {', '.join(known)})")
            else:
                out.append(str(item))
        return tuple(out)

    def commands(self, doc: LocatedDict, what: str) -> tuple[CommandPattern, ...]:
        modes = _grammar_parts()[2]
        level = doc.get("at", DEFAULT_LEVEL)
        if level not in modes:
            self.problem(doc.key_lines.get("at", doc.line), f"unknown level {level!r} in {what}")
            return ()
        self.console = self.console or level in console_levels()
        out: list[CommandPattern] = []
        read = line_reader(str(level))
        for item, line in self.items(doc, "commands", what):
            if not isinstance(item, str) or not item.strip():
                self.problem(line, f"each command of {what} is a command line")
                continue
            pattern = compile_pattern(read, str(level), item.strip(), self.vpn)
            if isinstance(pattern, str):
                written = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
                if " #" in written.split(item.strip(), 1)[-1]:
                    pattern += " (a '#' after a space starts a YAML comment: quote the command)"
                self.problem(line, f"unknown command in {what}: {pattern}")
            else:
                out.append(pattern)
        if "commands" not in doc:
            self.problem(doc.line, f"{what} needs `commands:`")
        return tuple(out)

    def ident(self, doc: LocatedDict, what: str, seen: dict[str, int]) -> str:
        ident = self.text(doc, "id", what)
        line = doc.key_lines.get("id", doc.line)
        if ident and not _ID_RE.fullmatch(ident):
            self.problem(line, f"id {ident!r} must be lowercase letters, digits and '-'")
        elif ident in seen:
            self.problem(line, f"id {ident!r} given twice (first on line {seen[ident]})")
        elif ident:
            seen[ident] = line
        return ident

    def steps(self, top: LocatedDict) -> tuple[RunbookStep, ...]:
        out: list[RunbookStep] = []
        self.seen: dict[str, int] = {}
        items = self.items(top, "steps", "a runbook")
        if not items:
            self.problem(top.key_lines.get("steps", top.line), "a runbook needs at least one step under `steps:`")
        for item, line in items:
            doc = self.mapping(item, line, "a step", _STEP_KEYS)
            if doc is None:
                continue
            ident = self.ident(doc, "a step", self.seen)
            what = f"step {ident!r}" if ident else "a step"
            kind = doc.get("kind", "action")
            if kind not in STEP_KINDS:
                self.problem(doc.key_lines.get("kind", line), f"kind of {what} must be one of {', '.join(STEP_KINDS)}")
            every = doc.get("every", False)
            if not isinstance(every, bool):
                self.problem(doc.key_lines.get("every", line), f"`every:` of {what} must be true or false")
                every = False
            others = doc.get("other-routers", OTHER_ROUTERS[0])
            if others not in OTHER_ROUTERS:
                self.problem(doc.key_lines.get("other-routers", line),
                             f"`other-routers:` of {what} must be one of {', '.join(OTHER_ROUTERS)}")
            until = self.checks(doc, "until", what)
            if until and kind != "check":
                self.problem(doc.key_lines["until"], f"`until:` is for steps of kind check ({what} is an {kind})")
            out.append(RunbookStep(
                ident, self.text(doc, "title", what), self.text(doc, "rationale", what), str(kind),
                self.targets(doc, what), every, self.commands(doc, what), self.checks(doc, "when", what),
                self.checks(doc, "preconditions", what), until, self.measures(doc, what), line,
                others == "ignored"))
        return tuple(out)

    def forbidden(self, top: LocatedDict) -> tuple[ForbiddenAction, ...]:
        out: list[ForbiddenAction] = []
        for item, line in self.items(top, "forbidden", "a runbook"):
            doc = self.mapping(item, line, "a forbidden action", _FORBIDDEN_KEYS)
            if doc is None:
                continue
            ident = self.ident(doc, "a forbidden action", self.seen)
            what = f"forbidden action {ident!r}" if ident else "a forbidden action"
            out.append(ForbiddenAction(
                ident, self.text(doc, "title", what), self.text(doc, "rationale", what), self.targets(doc, what),
                self.commands(doc, what), self.checks(doc, "when", what), self.measures(doc, what), line))
        return tuple(out)

    def outcome(self, top: LocatedDict) -> tuple[tuple[tuple[str, int], ...], str]:
        value = top.get("outcome")
        if value is None:
            return (), OUTCOME_FROM[0]
        if not isinstance(value, LocatedDict):
            self.problem(top.key_lines["outcome"], "`outcome:` must map measures to expected values")
            return (), OUTCOME_FROM[0]
        out: list[tuple[str, int]] = []
        known = measures_of(self.system)
        counted_from = OUTCOME_FROM[0]
        for measure, expected in value.items():
            line = value.key_lines.get(measure, value.line)
            if measure == "from":
                if expected not in OUTCOME_FROM:
                    self.problem(line, f"`from:` of the outcome must be one of {', '.join(OUTCOME_FROM)}")
                else:
                    counted_from = str(expected)
            elif measure not in known:
                self.problem(line, f"unknown measure {measure!r} in the outcome (known: {', '.join(known)})")
            elif isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
                self.problem(line, f"expected {measure} must be a whole number >= 0")
            else:
                out.append((str(measure), expected))
        return tuple(out), counted_from
