"""The REPL's command history, with passwords masked and the file private to its owner.

Why: history lives next to the lab file, which may sit in a shared directory. prompt_toolkit's
FileHistory stores every typed line verbatim in a file created with the umask's mode (0644), so
`authentication basic client-username u password s3cret` would be readable by everyone. Here
every line is masked (grammar.masking: the parameters the grammar marks secret) before it is
kept, in memory or on disk, and the file is created 0600 without following a symlink (an
existing file is tightened to 0600).

Both run inside prompt_toolkit's Enter key, where an exception ends the prompt (a traceback, a
hang behind "Press ENTER to continue"): a line that cannot be masked is not kept at all, and a
history file that can no longer be written loses that line with a warning in the log.
"""

from __future__ import annotations

import datetime
import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

log = logging.getLogger(__name__)

Mask = Callable[[str], str]
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


class MaskedFileHistory(FileHistory):
    def __init__(self, filename: Path, mask: Mask) -> None:
        super().__init__(str(filename))
        self._path = filename
        self._mask = mask

    def append_string(self, string: str) -> None:
        masked = _masked(self._mask, string)
        if masked is not None:
            super().append_string(masked)

    def store_string(self, string: str) -> None:
        try:
            fd = os.open(self._path, _FLAGS, 0o600)
            with os.fdopen(fd, "ab") as fh:
                fh.write(f"\n# {datetime.datetime.now()}\n".encode())
                for line in string.split("\n"):
                    fh.write(f"+{line}\n".encode("utf-8", "surrogateescape"))
        except (OSError, UnicodeError):
            log.warning("cannot write history file %s", self._path, exc_info=True)


class MaskedMemoryHistory(InMemoryHistory):
    def __init__(self, mask: Mask) -> None:
        super().__init__()
        self._mask = mask

    def append_string(self, string: str) -> None:
        masked = _masked(self._mask, string)
        if masked is not None:
            super().append_string(masked)


def _masked(mask: Mask, line: str) -> str | None:
    """`line` masked, or None (keep nothing) when masking fails: never the line unmasked."""
    try:
        return mask(line)
    except Exception:
        log.exception("history: a line could not be masked and is not kept")
        return None


def private_file(path: Path) -> None:
    """Create `path` 0600 if missing (never through a symlink); tighten it to 0600 if looser."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, _FLAGS, 0o600)
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        if mode & 0o077:
            os.fchmod(fd, mode & 0o700)
    finally:
        os.close(fd)


def open_history(path: Path | None, mask: Mask) -> History:
    """The history for one REPL: a private masked file, or memory when there is no usable file."""
    if path is None:
        return MaskedMemoryHistory(mask)
    private_file(path)  # OSError: the caller falls back to memory and says so
    return MaskedFileHistory(path, mask)
