"""Which file a transcript's `#: scenario:` header may name, and the one line that refuses the rest.

Why: transcripts come from anyone (the corpus, CI, the conformance job), and a header that could
name any file would let a transcript read it and echo it in the replay's errors. So the header
names either a bundled scenario (`default`, or another in state_store/scenarios) or a file reached from the transcript's
directory without leaving it: symlinks resolved, the file must lie in that directory's tree, in
the `scenarios/` directory of the nearest directory above it that has one (a corpus's shared
scenarios, `../scenarios/bare.yaml`), or among the bundled scenarios. A file found there must look
like a scenario (a YAML mapping of scenario keys with sites or a SwiftMQ part) before it is loaded;
otherwise one line says so and nothing of its content is shown. Only a file that is a scenario
gets its own problems listed.

`lab> reset PATH` follows the same rules while a transcript replays (`console_scenario`, from
the transcript's directory that `state_store.user_files` holds for the replay); at a user's own
lab console it takes a path as typed, but a file that is not bundled must still look like a
scenario before its problems are shown. Every read goes through `state_store.user_files`.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from grammar.yaml_source import LocatedDict, YamlSyntaxError, load_located
from state_store import systems
from state_store.scenario_files import ROOT_DIR, resolve_scenario
from state_store.solace.scenario_schema import LIMITS, MAX_FILE_BYTES, SCHEMA
from state_store.user_files import FileRefused, confinement, read_bytes

SHARED_DIR = "scenarios"
MAX_VALUE_CHARS = 1024
_BUNDLED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_LOOKS: dict[tuple[str, int, int], str | None] = {}  # (real path, mtime, size) -> why not a scenario


class ScenarioRefused(Exception):
    """The header names no scenario this transcript may use; str() is the reason (one line)."""


def bundled_names() -> list[str]:
    return sorted(p.stem for p in ROOT_DIR.glob("*.yaml"))


def transcript_scenario(value: str, base_dir: Path, holder: str = "transcript") -> Path:
    """The scenario file `value` names for a transcript in `base_dir` (or another `holder` of that
    directory: the lab, for an SSH user); ScenarioRefused otherwise."""
    if len(value) > MAX_VALUE_CHARS or any(not ch.isprintable() for ch in value):
        raise ScenarioRefused("not a usable scenario name (too long, or control characters)")
    if os.path.isabs(value) or value.startswith("~"):
        raise ScenarioRefused(f"{value}: an absolute path; give a path relative to the {holder}'s directory "
                              f"or a bundled scenario ({', '.join(bundled_names())})")
    candidate = base_dir / value
    if _BUNDLED_NAME.fullmatch(value) and not os.path.lexists(candidate):
        bundled = ROOT_DIR / f"{value}.yaml"
        if bundled.is_file():
            return bundled
        raise ScenarioRefused(f"{value}: no such scenario file, and not a bundled scenario "
                              f"({', '.join(bundled_names())})")
    real = Path(os.path.realpath(candidate))
    if not any(_inside(real, root) for root in _roots(base_dir)):
        raise ScenarioRefused(f"{value}: leads outside the {holder}'s directory tree")
    try:
        st = os.stat(real)
    except OSError:
        raise ScenarioRefused(f"scenario file not found: {candidate}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioRefused(f"{value}: not a regular file")
    why = _not_a_scenario(real, st)
    if why is not None:
        raise ScenarioRefused(f"{value}: not a scenario file ({why})")
    return real


def console_scenario(value: str) -> Path | None:
    """The scenario file `lab> reset VALUE` names: while a transcript replays, by the header's rules
    above (`transcript_scenario`, from the transcript's directory); otherwise a bundled name or a
    path as the user typed it (None when neither exists). A file that is not bundled must look like
    a scenario before it is loaded, so no problem report ever quotes a file that is not one (the
    lab console is reachable over SSH and from handed-in transcripts). ScenarioRefused otherwise."""
    confined = confinement()
    if confined is not None:
        return transcript_scenario(value, confined.base, confined.holder)
    if len(value) > MAX_VALUE_CHARS or any(not ch.isprintable() for ch in value):
        raise ScenarioRefused("not a usable scenario name (too long, or control characters)")
    found = resolve_scenario(value)
    if found is None or _inside(Path(os.path.realpath(found)), Path(os.path.realpath(ROOT_DIR))):
        return found
    try:
        st = os.stat(found)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioRefused(f"{value}: not a regular file")
    why = _not_a_scenario(Path(os.path.realpath(found)), st)
    if why is not None:
        raise ScenarioRefused(f"{value}: not a scenario file ({why})")
    return found


def _roots(base_dir: Path) -> list[Path]:
    """The transcript's directory, the shared `scenarios/` directory nearest above it, and the
    bundled scenarios (a shared scenario may be a symlink to one)."""
    here = Path(os.path.realpath(base_dir))
    roots = [here, Path(os.path.realpath(ROOT_DIR))]
    for directory in (here, *here.parents):
        shared = directory / SHARED_DIR
        if shared.is_dir():
            if not shared.is_symlink():  # a `scenarios` symlink to / would open everything
                roots.append(shared)
            break
    return roots


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _not_a_scenario(real: Path, st: os.stat_result) -> str | None:
    """None when the file looks like a scenario; else why not, in words that quote none of it."""
    key = (str(real), st.st_mtime_ns, st.st_size)
    if key in _LOOKS:
        return _LOOKS[key]
    why = _why_not(real, st.st_size)
    if len(_LOOKS) >= 64:
        _LOOKS.pop(next(iter(_LOOKS)))
    _LOOKS[key] = why
    return why


def _why_not(real: Path, size: int) -> str | None:
    if size > MAX_FILE_BYTES:
        return f"over {MAX_FILE_BYTES:,} bytes"
    try:
        data = read_bytes(real, MAX_FILE_BYTES)
    except FileRefused as refused:
        return refused.problem
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    try:
        doc = load_located(text, LIMITS)
    except YamlSyntaxError as exc:
        return f"not YAML: a syntax error at line {exc.problems[0][0] if exc.problems else 0}"
    if not isinstance(doc, LocatedDict):
        return "not a YAML mapping"
    systems_held = set(systems.names())   # an HA system's section makes a scenario too
    known = set(SCHEMA.fields) | systems_held
    if not all(isinstance(k, str) and k in known for k in doc) or not ({"sites"} | systems_held) & set(doc):
        return "its top-level keys are not a scenario's"
    return None
