"""Keep the parsed grammar between processes, the way Python keeps byte-code.

Parsing every YAML file with line tracking costs each one-shot command far more than the command
itself, yet the files only change when the project does. `cached()` stores the result as a pickle
in this package's own `__pycache__`, keyed by the Python version, the content of the data files it
was built from and the source of this package (a code change invalidates it too).

The trust model is the one of a `.pyc`: the file is only read from that directory, never from a
path a user gives, and only when it is a regular file owned by the current user (or root) that
nobody else may write. Anything wrong with it (missing, stale, corrupt, truncated, written by
another Python) means parsing again and rewriting it atomically; a directory that cannot be
written means just parsing, silently. `SOLACE_SHELL_NO_GRAMMAR_CACHE=1` turns it off.
"""

from __future__ import annotations

import os
import pickle
import stat
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib.util import source_hash
from pathlib import Path
from typing import TypeVar, cast

T = TypeVar("T")

PACKAGE_DIR = Path(__file__).parent
CACHE_DIR = PACKAGE_DIR / "__pycache__"
DISABLE_VARIABLE = "SOLACE_SHELL_NO_GRAMMAR_CACHE"
_TAG = sys.implementation.cache_tag or "python"


def cache_file(name: str) -> Path:
    """Where `name` is kept."""
    return CACHE_DIR / f"{name}.{_TAG}.pickle"


def _files(paths: Iterable[Path]) -> bytes:
    return b"".join(str(path).encode() + b"\0" + path.read_bytes() + b"\0" for path in paths)


@lru_cache(maxsize=1)
def _package_source() -> bytes:
    """This package's source, read once per process (the code that runs is the code first read)."""
    return _files(sorted(PACKAGE_DIR.glob("*.py")))


def _key(name: str, inputs: Iterable[Path]) -> bytes:
    """The hash of everything the stored value depends on: the hash Python's hash-based ``.pyc``
    files are checked with (no OpenSSL to load at every start)."""
    text = f"{sys.version}\0{name}\0".encode() + _files(sorted(inputs)) + _package_source()
    return source_hash(text).hex().encode() + b"\n"


def _trusted_bytes(path: Path) -> bytes | None:
    """The file's bytes when it may be trusted like a `.pyc`; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if (not stat.S_ISREG(info.st_mode) or info.st_uid not in (os.getuid(), 0)
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return None
        return handle.read()


def _write(path: Path, data: bytes) -> None:
    import tempfile  # only when writing: a start that finds its cache imports none of it

    try:
        path.parent.mkdir(exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o644)
            handle.write(data)
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass


def cached(name: str, inputs: list[Path], build: Callable[[], T]) -> T:
    """`build()`, or what it returned last time when none of `inputs` nor this package changed.
    Whatever `build()` raises is raised unchanged and nothing is stored."""
    if os.environ.get(DISABLE_VARIABLE):
        return build()
    try:
        key = _key(name, inputs)
    except OSError:
        return build()
    path = cache_file(name)
    stored = _trusted_bytes(path)
    if stored is not None and stored.startswith(key):
        try:
            return cast(T, pickle.loads(stored[len(key):]))
        except Exception:  # any damage to the file only means parsing again
            pass
    value = build()
    _write(path, key + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value
