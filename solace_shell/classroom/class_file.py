"""The class file: who is in a class, what they drill, when, and what they may do at the console.

```yaml
scenario: default                 # a bundled scenario or a file; or {default: ..., TEAM: ...}
runbook: controlled-failover      # a bundled runbook or a file
trainers: [{name: trainer, password: ..., ssh_keys: [...]}]
trainees: [{name: alice, password: ..., team: blue}]
window: {start: 2026-12-02T09:00:00Z, end: 2026-12-02T17:00:00Z, drill_minutes: 45, idle_minutes: 15}
console: [publish, consume, advance, fail, restore, audit, status, check, hint]
```

Checked strictly when loaded: every problem (unknown key, wrong type, duplicate name, a trainee
named like a trainer, a scenario or runbook that cannot be used) is reported at once as
`file:line: problem` and nothing of the file is used. Names are plain (`[A-Za-z][A-Za-z0-9_.-]*`,
at most 32 characters) because a trainee's or team's name becomes their lab's file name: no name
can reach outside the class directory. Passwords are never shown in a problem.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grammar.yaml_source import Limits, LocatedDict, LocatedList, YamlSyntaxError, load_located

MAX_BYTES = 1_000_000
MAX_MEMBERS = 1000
MAX_KEYS = 32
NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,31}")
# The console verbs a class may give its trainees (the first word of a `lab>` line), and the
# class's own two: `check` (progress so far) and `hint` (the next step's rationale, counted).
CONSOLE_VERBS = ("publish", "consume", "advance", "transaction", "fail", "restore", "replace", "status",
                 "audit", "reset", "set", "ha", "check", "hint")
# What a drill needs, when the class file says nothing. `connect`, `exit` and `help` are always
# allowed: they only move between the trainee's own targets or explain.
DEFAULT_CONSOLE = ("publish", "consume", "advance", "fail", "restore", "audit", "status", "check", "hint")
ALWAYS_ALLOWED = ("connect", "exit", "help")
DEFAULT_KEY = "default"


class ClassFileError(Exception):
    """A class file that cannot be used; `problems` holds every `file:line: problem`."""

    def __init__(self, path: str, problems: list[str]) -> None:
        super().__init__(f"{path}: {len(problems)} problem(s):\n" + "\n".join(problems))
        self.path = path
        self.problems = problems


@dataclass(frozen=True)
class Member:
    """A trainer or a trainee: their class name, password (never shown) and SSH keys."""

    name: str
    password: str = field(repr=False)
    ssh_keys: tuple[str, ...] = ()
    team: str | None = None

    @property
    def lab(self) -> str:
        """The lab this member works in: their team's, else their own."""
        return self.team or self.name


@dataclass(frozen=True)
class Window:
    """When trainees may log in (None: any time), how long one drill may last and how long a
    session may stay idle (minutes; None: no limit)."""

    start: datetime | None = None
    end: datetime | None = None
    drill_minutes: int | None = None
    idle_minutes: int | None = None

    def refusal(self, now: datetime) -> str | None:
        """None inside the window, else why a trainee may not start now (one line)."""
        if self.start is not None and now < self.start:
            return f"the class starts at {self.start.isoformat()}"
        if self.end is not None and now >= self.end:
            return f"the class ended at {self.end.isoformat()}"
        return None


@dataclass(frozen=True)
class ClassFile:
    path: Path
    scenarios: dict[str, Path]        # lab name or DEFAULT_KEY -> scenario file
    runbook: str                      # a bundled runbook name or a file path
    trainers: tuple[Member, ...]
    trainees: tuple[Member, ...]
    window: Window
    console: frozenset[str]

    def member(self, name: str) -> Member | None:
        for member in (*self.trainers, *self.trainees):
            if member.name == name:
                return member
        return None

    def is_trainer(self, name: str) -> bool:
        return any(t.name == name for t in self.trainers)

    def trainee(self, name: str) -> Member | None:
        return next((t for t in self.trainees if t.name == name), None)

    def labs(self) -> list[str]:
        """Every lab of the class, in the order of the trainees."""
        return list(dict.fromkeys(t.lab for t in self.trainees))

    def members_of(self, lab: str) -> list[Member]:
        return [t for t in self.trainees if t.lab == lab]

    def scenario_of(self, lab: str) -> Path:
        return self.scenarios.get(lab) or self.scenarios[DEFAULT_KEY]

    @property
    def directory(self) -> Path:
        """The default class directory: beside the class file, named after it."""
        return self.path.parent / f"{self.path.name.split('.')[0]}.class"


def read_class_text(path: Path) -> str:
    """The file's text: a regular file of at most MAX_BYTES, UTF-8. ClassFileError otherwise."""
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ClassFileError(where, [f"{where}:0: cannot read the class file: {exc.strerror or exc}"]) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ClassFileError(where, [f"{where}:0: not a regular file"])
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise ClassFileError(where, [f"{where}:0: cannot read the class file: {exc.strerror or exc}"]) from None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        raise ClassFileError(where, [f"{where}:0: longer than {MAX_BYTES:,} bytes"])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ClassFileError(where, [f"{where}:{line}: not valid UTF-8"]) from None


def load_class_file(path: str | Path, check_labs: bool = True) -> ClassFile:
    """The class file at `path`, checked; ClassFileError listing every problem otherwise.
    `check_labs` also builds each scenario and loads the runbook (what `serve` and `grades` need)."""
    p = Path(path)
    text = read_class_text(p)
    try:
        doc = load_located(text, Limits(max_chars=MAX_BYTES))
    except YamlSyntaxError as exc:
        raise ClassFileError(str(p), [f"{p}:{line}: {problem}" for line, problem in exc.problems]) from None
    return _Checker(p, check_labs).check(doc)


def _line(obj: Any, key: Any = None) -> int:
    if isinstance(obj, LocatedDict) and key is not None:
        return obj.key_lines.get(str(key), obj.line)
    if isinstance(obj, LocatedList) and isinstance(key, int) and key < len(obj.item_lines):
        return obj.item_lines[key]
    return int(getattr(obj, "line", 0))


def _kind(value: Any) -> str:
    if isinstance(value, LocatedDict):
        return "a mapping"
    if isinstance(value, LocatedList):
        return "a list"
    return "nothing" if value is None else f"{type(value).__name__} {_short(value)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_TOP = {"scenario": True, "runbook": True, "trainers": True, "trainees": True, "window": False, "console": False}
_MEMBER = {"name": True, "password": True, "ssh_keys": False}
_TRAINEE = {**_MEMBER, "team": False}
_WINDOW = {"start": False, "end": False, "drill_minutes": False, "idle_minutes": False}


class _Checker:
    def __init__(self, path: Path, check_labs: bool) -> None:
        self.path = path
        self.check_labs = check_labs
        self.problems: list[str] = []

    def err(self, line: int, message: str) -> None:
        self.problems.append(f"{self.path}:{line}: {message}")

    def keys(self, obj: Any, allowed: dict[str, bool], where: str, line: int) -> bool:
        if not isinstance(obj, LocatedDict):
            self.err(line, f"{where}: expected a mapping, got {_kind(obj)}")
            return False
        for key in obj:
            if key not in allowed:
                self.err(_line(obj, key), f"{where}: unknown key {_short(key)} (expected one of: "
                                          f"{', '.join(allowed)})")
        for key, required in allowed.items():
            if required and key not in obj:
                self.err(obj.line, f"{where}: missing required key {key!r}")
        return True

    def text(self, obj: LocatedDict, key: str, where: str, max_len: int = 128, secret: bool = False) -> str | None:
        value = obj.get(key)
        line = _line(obj, key)
        if not isinstance(value, str):
            shown = "not a string" if secret else f"expected a string, got {_kind(value)}"
            self.err(line, f"{where}.{key}: {shown}")
            return None
        size = len(value.encode("utf-8", "surrogatepass"))
        if not 1 <= size <= max_len:
            self.err(line, f"{where}.{key}: must be 1 to {max_len} bytes long, is {size}")
            return None
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            self.err(line, f"{where}.{key}: {'the value (not shown)' if secret else _short(value)} "
                           "contains a control character")
            return None
        return value

    def name(self, obj: LocatedDict, key: str, where: str) -> str | None:
        value = self.text(obj, key, where, 64)
        if value is not None and not NAME_RE.fullmatch(value):
            self.err(_line(obj, key), f"{where}.{key}: {_short(value)} is not a name (a letter, then letters, "
                                      "digits, '_', '.' or '-'; at most 32 characters)")
            return None
        return value

    def check(self, doc: Any) -> ClassFile:
        if not self.keys(doc, _TOP, "top level", 1):
            raise ClassFileError(str(self.path), self.problems)
        trainers = self.members(doc, "trainers", _MEMBER)
        trainees = self.members(doc, "trainees", _TRAINEE)
        self.cross_check(trainers, trainees)
        scenarios = self.scenarios(doc, [t for t, _ in trainees])
        runbook = self.runbook(doc)
        window = self.window(doc.get("window"), _line(doc, "window")) if "window" in doc else Window()
        console = self.console(doc.get("console"), _line(doc, "console")) if "console" in doc else DEFAULT_CONSOLE
        if self.problems:
            raise ClassFileError(str(self.path), self.problems)
        return ClassFile(self.path.resolve(), scenarios, runbook or "", tuple(t for t, _ in trainers),
                         tuple(t for t, _ in trainees), window,
                         frozenset((*console, *ALWAYS_ALLOWED)))

    def members(self, doc: LocatedDict, key: str, allowed: dict[str, bool]) -> list[tuple[Member, int]]:
        """The members listed under `key`, each with the line of its name."""
        items = doc.get(key)
        if key not in doc:
            return []
        if not isinstance(items, LocatedList) or not items:
            self.err(_line(doc, key), f"{key}: expected a list of at least one entry, got {_kind(items)}")
            return []
        if len(items) > MAX_MEMBERS:
            self.err(_line(doc, key), f"{key}: {len(items):,} entries, at most {MAX_MEMBERS:,} allowed")
            return []
        out: list[tuple[Member, int]] = []
        for i, item in enumerate(items):
            where = f"{key}[{i}]"
            if not self.keys(item, allowed, where, _line(items, i)):
                continue
            name = self.name(item, "name", where) if "name" in item else None
            password = self.text(item, "password", where, secret=True) if "password" in item else None
            keys = self.keys_of(item, where)
            team = self.name(item, "team", where) if "team" in item else None
            if name is not None and password is not None and keys is not None:
                out.append((Member(name, password, keys, team), _line(item, "name")))
        return out

    def keys_of(self, item: LocatedDict, where: str) -> tuple[str, ...] | None:
        if "ssh_keys" not in item:
            return ()
        lines = item["ssh_keys"]
        line = _line(item, "ssh_keys")
        if not isinstance(lines, LocatedList) or len(lines) > MAX_KEYS:
            self.err(line, f"{where}.ssh_keys: expected a list of at most {MAX_KEYS} public key lines")
            return None
        from state_store.public_keys import PublicKeyError, check_public_key

        out: list[str] = []
        for i, key in enumerate(lines):
            key_line = _line(lines, i)
            if not isinstance(key, str) or len(key) > 16384:
                self.err(key_line, f"{where}.ssh_keys[{i}]: expected one public key line")
                continue
            try:
                out.append(check_public_key(key))
            except PublicKeyError as exc:
                self.err(key_line, f"{where}.ssh_keys[{i}]: {exc}")
        return tuple(out) if len(out) == len(lines) else None

    def cross_check(self, trainers: list[tuple[Member, int]], trainees: list[tuple[Member, int]]) -> None:
        seen: dict[str, str] = {}
        for role, members in (("trainer", trainers), ("trainee", trainees)):
            for member, line in members:
                folded = member.name.casefold()
                if folded in seen:
                    trainer_name = seen[folded] == "trainer" and role == "trainee"
                    what = "named like a trainer" if trainer_name else "defined twice"
                    self.err(line, f"{role} {member.name!r}: {what}")
                seen.setdefault(folded, role)
        solo = {t.name.casefold(): t.name for t, _ in trainees if t.team is None}
        for trainee, line in trainees:
            if trainee.team is not None and trainee.team.casefold() in solo:
                self.err(line, f"trainee {trainee.name!r}: team {trainee.team!r} "
                         f"has the name of trainee {solo[trainee.team.casefold()]!r} (each lab has its own name)")
            if trainee.team is not None and any(trainee.team.casefold() == t.name.casefold() for t, _ in trainers):
                self.err(line, f"trainee {trainee.name!r}: team {trainee.team!r} "
                         "is named like a trainer")

    def scenarios(self, doc: LocatedDict, trainees: list[Member]) -> dict[str, Path]:
        value = doc.get("scenario")
        line = _line(doc, "scenario")
        if isinstance(value, str):
            found = self.scenario(value, "scenario", line)
            return {DEFAULT_KEY: found} if found is not None else {}
        if not isinstance(value, LocatedDict) or not value:
            if "scenario" in doc:
                self.err(line, f"scenario: expected a scenario name or file, or a mapping of teams to "
                               f"scenarios, got {_kind(value)}")
            return {}
        labs = {t.lab for t in trainees}
        out: dict[str, Path] = {}
        for key, item in value.items():
            key_line = _line(value, key)
            if key != DEFAULT_KEY and key not in labs:
                self.err(key_line, f"scenario: {_short(key)} is no team or trainee of this class")
                continue
            if not isinstance(item, str):
                self.err(key_line, f"scenario.{key}: expected a scenario name or file, got {_kind(item)}")
                continue
            found = self.scenario(item, f"scenario.{key}", key_line)
            if found is not None:
                out[str(key)] = found
        missing = sorted(lab for lab in labs if lab not in value) if DEFAULT_KEY not in value else []
        if missing:
            self.err(line, f"scenario: no scenario for {', '.join(missing)} (give one each, or 'default')")
        return out

    def scenario(self, value: str, where: str, line: int) -> Path | None:
        from state_store.scenario_files import ROOT_DIR

        candidates = [ROOT_DIR / f"{value}.yaml"] if NAME_RE.fullmatch(value) else []
        candidates.append(self.path.parent / value)
        found = next((c for c in candidates if _is_file(c)), None)
        if found is None:
            self.err(line, f"{where}: scenario {_short(value)} not found (a bundled scenario name, or a file "
                           "relative to the class file)")
            return None
        if self.check_labs:
            from state_store.errors import ScenarioError
            from state_store.lab_store import LabStore

            try:
                LabStore.in_memory(found).close()
            except ScenarioError as exc:
                self.err(line, f"{where}: scenario {_short(value)} cannot be used ({len(exc.problems)} problem(s)):")
                self.problems.extend(f"  {problem}" for problem in exc.problems)
                return None
        return found.resolve()

    def runbook(self, doc: LocatedDict) -> str | None:
        value = doc.get("runbook")
        line = _line(doc, "runbook")
        if "runbook" not in doc:
            return None
        if not isinstance(value, str) or not value:
            self.err(line, f"runbook: expected a runbook name or file, got {_kind(value)}")
            return None
        from ..grading.loader import RunbookError, bundled_names, load_runbook

        target = value if value in bundled_names() else str(self.path.parent / value)
        if self.check_labs:
            try:
                load_runbook(target)
            except RunbookError as exc:
                self.err(line, f"runbook: {_short(value)} cannot be used ({len(exc.problems)} problem(s)):")
                self.problems.extend(f"  {problem}" for problem in exc.problems)
                return None
        return target

    def window(self, value: Any, line: int) -> Window:
        if not self.keys(value, _WINDOW, "window", line):
            return Window()
        start, end = (self.time(value, key) for key in ("start", "end"))
        if start is not None and end is not None and end <= start:
            self.err(_line(value, "end"), "window.end: must be after window.start")
        drill, idle = (self.minutes(value, key) for key in ("drill_minutes", "idle_minutes"))
        return Window(start, end, drill, idle)

    def time(self, obj: LocatedDict, key: str) -> datetime | None:
        if key not in obj:
            return None
        value = obj[key]
        line = _line(obj, key)
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        if isinstance(value, str):
            try:
                found = datetime.fromisoformat(value)
                return found if found.tzinfo else found.replace(tzinfo=timezone.utc)
            except ValueError:
                pass
        self.err(line, f"window.{key}: expected a time such as 2026-12-02T09:00:00Z, got {_kind(value)}")
        return None

    def minutes(self, obj: LocatedDict, key: str) -> int | None:
        if key not in obj:
            return None
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 7 * 24 * 60:
            self.err(_line(obj, key), f"window.{key}: expected minutes, 1 to {7 * 24 * 60}, got {_kind(value)}")
            return None
        return value

    def console(self, value: Any, line: int) -> tuple[str, ...]:
        if not isinstance(value, LocatedList):
            self.err(line, f"console: expected a list of console verbs, got {_kind(value)}")
            return ()
        out: list[str] = []
        for i, verb in enumerate(value):
            if verb in ALWAYS_ALLOWED:
                continue
            if not isinstance(verb, str) or verb not in CONSOLE_VERBS:
                self.err(_line(value, i), f"console[{i}]: {_short(verb)} is not a console verb (one of: "
                                          f"{', '.join(CONSOLE_VERBS)})")
                continue
            out.append(verb)
        return tuple(out)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False
