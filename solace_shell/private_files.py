"""Files the shell writes for its user: created whole and private, never through a symlink.

Why: the shell writes next to lab files, which may sit in a directory others can write to (a
training room's share, /tmp). Opening a name there with O_TRUNC would follow a symlink someone
planted (truncating its target) or write into a hard link to someone else's file, and a file
created with the umask's mode lets others read what it holds (recordings show configurations).
So a new file is made under a random name in the same directory (mkstemp: O_EXCL, mode 0600) and
renamed onto its name: the name then holds this new file, whatever was there, and nothing is
written through it. A name that is a symlink or not a regular file is refused in one line, since
replacing it would surprise its owner.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import TextIO

STAGED_SUFFIX = ".new"


def staged_glob(name_glob: str) -> str:
    """The glob of the staging files `create_private_text` makes for the names `name_glob` matches.
    A writer stopped between making one and renaming it onto its name (a signal, SIGKILL) leaves it
    behind, hidden: the writer's own clean-up looks for it with this glob."""
    return f".{name_glob}.*{STAGED_SUFFIX}"


class UnusableTarget(Exception):
    """The shell will not write this file; str() says why in one line."""


def create_private_text(path: Path, purpose: str) -> TextIO:
    """A new, empty text file at `path` (mode 0600; UTF-8, `\\n` line ends), open for writing;
    an existing regular file of that name is replaced, not written through. UnusableTarget when
    `path` is a symlink, not a regular file, or cannot be made (`purpose` names the file in it)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise UnusableTarget(f"cannot write the {purpose} {path}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise UnusableTarget(f"the {purpose} {path} is a symbolic link; give a new file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnusableTarget(f"the {purpose} {path} is not a regular file")
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, staged = tempfile.mkstemp(prefix=f".{path.name}.", suffix=STAGED_SUFFIX, dir=directory)
    except OSError as exc:
        raise UnusableTarget(f"cannot write the {purpose} {path}: {exc.strerror or exc}") from None
    try:
        os.replace(staged, path)
    except OSError as exc:
        os.close(fd)
        Path(staged).unlink(missing_ok=True)
        raise UnusableTarget(f"cannot write the {purpose} {path}: {exc.strerror or exc}") from None
    return os.fdopen(fd, "w", encoding="utf-8", newline="\n")
