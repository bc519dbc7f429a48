"""Recording a live session as a transcript, so a trainer's drill becomes a golden test unchanged.

The recorder writes each input line (prompt + command) before the command runs and its output
right after, flushing as it goes: a session that crashes still leaves a readable file. Output lines
that would read as transcript syntax are escaped (`literal_line`), and secrets typed after a password
keyword are replaced by `********`, so a recording always replays as pass against the same lab and
never stores a password.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Protocol, TextIO

from solace_shell.transcript.format import (
    ANY_RUN,
    COMMENT_PREFIX,
    HEADER_PREFIX,
    REGEX_SUFFIX,
    clean,
    format_input_line,
    is_plain_literal,
    literal_line,
    match_prompt,
)
from state_store.passwords import is_hashed


class _Dumpable(Protocol):
    def dump(self) -> str: ...


class LabLike(Protocol):
    @property
    def store(self) -> _Dumpable: ...


REDACTED = "********"
PASSWORD_KEYWORDS = ("password", "encrypted-password", "aes-password", "key", "encrypted-key")  # key: pre-shared key
_TOKEN = re.compile(r'(?:"[^"]*"?|[^\s"]+)+')
_SETTING_KEYS = ("version", "layout", "user")


def _is_password_keyword(token: str) -> bool:
    """The keywords, and their CLI abbreviations that cannot mean anything else
    (`pass`, `passw`, ..., `encrypted-p...`, `aes-p...`)."""
    word = token.lower()
    if word in PASSWORD_KEYWORDS:
        return True
    if len(word) >= 4 and "password".startswith(word):
        return True
    return any(word.startswith(kw[: kw.index("-") + 2]) and kw.startswith(word)
               for kw in PASSWORD_KEYWORDS if "-" in kw)


def redact_secrets(command: str) -> tuple[str, list[str]]:
    """`redact` plus the secrets it removed (so echoes of them in the output can be masked too)."""
    out: list[str] = []
    secrets: list[str] = []
    last = 0
    redact_next = False
    for m in _TOKEN.finditer(command):
        out.append(command[last:m.start()])
        token = m.group()
        if redact_next:
            secrets.append(token)
        out.append(REDACTED if redact_next else token)
        redact_next = _is_password_keyword(token)
        last = m.end()
    out.append(command[last:])
    return "".join(out), secrets


def redact(command: str) -> str:
    """Replace every token that follows a password keyword by `********` (spacing kept)."""
    return redact_secrets(command)[0]


def mask_secrets(text: str, secrets: list[str]) -> str:
    """Replace whitespace-delimited occurrences of each secret (an error message echoing the
    command line, say) by `********`, so the recording replays against its own redacted command."""
    for secret in secrets:
        text = re.sub(rf"(?<!\S){re.escape(secret)}(?!\S)", REDACTED, text)
    return text


# Output words after which a stored secret is printed (show current-config).
OUTPUT_SECRET_KEYWORDS = frozenset({"encrypted-password", "encrypted-key", "aes-password"})


def masked_output_line(line: str) -> str:
    """An output line as recorded: `literal_line`, except that a stored secret in it (the word
    after an OUTPUT_SECRET_KEYWORDS word, or any word that is a password hash) is written as the
    wildcard `[..]` (inside its quotes), so the recording holds no hash and still replays as pass
    whatever salt the replaying lab's hashes have."""
    line = clean(line)
    spans: list[tuple[int, int]] = []
    after_keyword = False
    for m in _TOKEN.finditer(line):
        token = m.group()
        bare = token[1:-1] if len(token) >= 2 and token[0] == token[-1] == '"' else token
        if after_keyword or is_hashed(bare):
            start = m.start() + (1 if bare is not token else 0)
            spans.append((start, start + len(bare)))
        after_keyword = token.lower() in OUTPUT_SECRET_KEYWORDS
    if not spans:
        return literal_line(line)
    ends = [0] + [end for _, end in spans]
    starts = [start for start, _ in spans] + [len(line)]
    pieces = [line[end:start] for end, start in zip(ends, starts, strict=True)]
    wild = ANY_RUN.join(pieces)
    if is_plain_literal(line) and is_plain_literal(wild.replace(ANY_RUN, "x")):
        return wild
    pattern = ".*".join(re.escape(piece) for piece in pieces)
    if match_prompt(pattern + REGEX_SUFFIX) is not None:
        pattern = f"[{pattern[0]}]{pattern[1:]}"
    return pattern + REGEX_SUFFIX


def _beside(path: Path, lab_path: Path) -> bool:
    """Whether `path` names the lab file or a file named after it in its directory."""
    same_dir = os.path.realpath(path.parent or ".") == os.path.realpath(lab_path.parent or ".")
    return same_dir and path.name.startswith(lab_path.name)


def _scenario_reference(scenario: Path, transcript: Path) -> str:
    """How the header names `scenario`: a bundled one by its name, another by its path relative
    to the transcript's directory."""
    from state_store.scenario_files import ROOT_DIR

    real = scenario.resolve()
    if real.parent == ROOT_DIR.resolve() and real.suffix == ".yaml":
        return real.stem
    return Path(os.path.relpath(real, transcript.resolve().parent)).as_posix()


class RecordRefused(Exception):
    """A recording would not replay: the lab does not start where replay starts."""


def check_fresh(lab: LabLike, scenario: Path | str | None = None) -> None:
    """Replay starts every transcript on a fresh lab, so a recording must start on one too: the
    lab's state must equal a fresh lab built from `scenario` (default: the default lab)."""
    from state_store.lab_model import LabEngine, LabState
    from state_store.lab_store import LabStore

    fresh: LabStore[LabState, LabEngine] = LabStore.in_memory(scenario)
    try:
        same = fresh.dump() == lab.store.dump()
    finally:
        fresh.close()
    if not same:
        raise RecordRefused("its state has changed since it was built, and replay starts from a fresh lab "
                            "(record on a new --db file)")


class Recorder:
    """Writes a session in transcript format to a text stream, as it happens."""

    def __init__(self, stream: TextIO, *, scenario: str | None = None,
                 settings: Mapping[str, str] | None = None, strict_blank_lines: bool = True,
                 owns_stream: bool = False) -> None:
        self._stream = stream
        self._owns = owns_stream
        self._secrets: list[str] = []
        if scenario is not None:
            self._write(f"{HEADER_PREFIX} scenario: {scenario}")
        for key in _SETTING_KEYS:
            if settings and settings.get(key):
                self._write(f"{HEADER_PREFIX} {key}: {settings[key]}")
        if not strict_blank_lines:
            self._write(f"{HEADER_PREFIX} strict-blank-lines: no")
        self._stream.flush()

    @classmethod
    def open(cls, path: Path | str, *, scenario: Path | str | None = None,
             settings: Mapping[str, str] | None = None, strict_blank_lines: bool = True,
             lab_path: Path | None = None) -> Recorder:
        """Create `path` as a new private file (solace_shell.private_files: mode 0600, an existing
        file replaced, never written through; RecordRefused for a symlink or a name that cannot
        be used). A bundled scenario is written by its name, another relative to the transcript.
        With `lab_path`, the lab file and the files named after it beside it (its -wal, history,
        host key) are refused: replacing one would lose the lab or its keys."""
        from solace_shell.private_files import UnusableTarget, create_private_text

        path = Path(path)
        if lab_path is not None and _beside(path, lab_path):
            raise RecordRefused(f"the recording {path} would replace the lab file {lab_path} or a file "
                                "the shell keeps beside it; give another file name")
        written = None
        if scenario is not None:
            written = _scenario_reference(Path(scenario), path)
        try:
            stream = create_private_text(path, "recording")
        except UnusableTarget as exc:
            raise RecordRefused(str(exc)) from None
        return cls(stream, scenario=written, settings=settings, strict_blank_lines=strict_blank_lines,
                   owns_stream=True)

    def _write(self, line: str) -> None:
        self._stream.write(line + "\n")

    def comment(self, text: str) -> None:
        """A `#|` comment line per line of `text` (never mistaken for output)."""
        for line in text.split("\n"):
            self._write(f"{COMMENT_PREFIX} {clean(line)}".rstrip())
        self._stream.flush()

    def command(self, prompt: str, command: str) -> None:
        """The input line: the prompt as shown (trailing space optional) and the redacted command."""
        written, self._secrets = redact_secrets(command)
        self._write(format_input_line(prompt.rstrip(), written))
        self._stream.flush()

    def output(self, text: str) -> None:
        """The command's output (no trailing newline, as `Outcome.text`); "" writes nothing.
        Secrets of the preceding command that the output echoes are masked, and so are stored
        password hashes (`encrypted-password "$scrypt$..."`: `masked_output_line`)."""
        text = mask_secrets(text, self._secrets)
        if text:
            for line in text.split("\n"):
                self._write(masked_output_line(line))
        self._stream.flush()

    def record(self, prompt: str, command: str, output: str) -> None:
        self.command(prompt, command)
        self.output(output)

    def close(self) -> None:
        self._stream.flush()
        if self._owns:
            self._stream.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
