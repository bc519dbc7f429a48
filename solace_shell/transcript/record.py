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
    COMMENT_PREFIX,
    HEADER_PREFIX,
    clean,
    format_input_line,
    literal_line,
)


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


class RecordRefused(Exception):
    """A recording would not replay: the lab does not start where replay starts."""


def check_fresh(lab: LabLike, scenario: Path | str | None = None) -> None:
    """Replay starts every transcript on a fresh lab, so a recording must start on one too: the
    lab's state must equal a fresh lab built from `scenario` (default: the default lab)."""
    from state_store.store import LabStore

    fresh = LabStore.in_memory(scenario)
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
             settings: Mapping[str, str] | None = None, strict_blank_lines: bool = True) -> Recorder:
        """Create (truncate) `path`; a scenario path is written relative to the transcript."""
        path = Path(path)
        written = None
        if scenario is not None:
            written = Path(os.path.relpath(Path(scenario).resolve(), path.resolve().parent)).as_posix()
        stream = path.open("w", encoding="utf-8", newline="\n")
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
        Secrets of the preceding command that the output echoes are masked."""
        text = mask_secrets(text, self._secrets)
        if text:
            for line in text.split("\n"):
                self._write(literal_line(line))
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
