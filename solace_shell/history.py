"""The REPL's command history, with passwords masked and the file private to its owner.

Why: history lives next to the lab file, which may sit in a shared directory. prompt_toolkit's
FileHistory stores every typed line verbatim in a file created with the umask's mode (0644), so
`authentication basic client-username u password s3cret` would be readable by everyone. Here
every line is masked (grammar.masking: the parameters the grammar marks secret) before it is
kept, in memory or on disk, and the file is created 0600 without following a symlink (an
existing file is tightened to 0600).
"""

from __future__ import annotations

import datetime
import os
import stat
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

Mask = Callable[[str], str]
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


class MaskedFileHistory(FileHistory):
    def __init__(self, filename: Path, mask: Mask) -> None:
        super().__init__(str(filename))
        self._path = filename
        self._mask = mask

    def append_string(self, string: str) -> None:
        super().append_string(self._mask(string))

    def store_string(self, string: str) -> None:
        fd = os.open(self._path, _FLAGS, 0o600)
        with os.fdopen(fd, "ab") as fh:
            fh.write(f"\n# {datetime.datetime.now()}\n".encode())
            for line in string.split("\n"):
                fh.write(f"+{line}\n".encode())


class MaskedMemoryHistory(InMemoryHistory):
    def __init__(self, mask: Mask) -> None:
        super().__init__()
        self._mask = mask

    def append_string(self, string: str) -> None:
        super().append_string(self._mask(string))


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
