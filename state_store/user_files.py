"""Reading a file a user named: the one way the lab reads scenarios, runbooks, transcripts, scripts.

Why one module: every such path comes from someone else (the command line, a `lab>` line, a
transcript handed in to be replayed or graded on a Spark cluster), so each read must hold the same
promises, and one place keeps them:

- Only a regular file is read. A FIFO would block for ever, a device (`/dev/zero`) never ends, a
  directory is no text: each is refused with one line before anything is opened for reading.
- At most the limit plus one byte is read, so a file over its limit is refused by its name and
  size and never read whole (a file that grows while it is read is cut at the limit plus one).
- While a transcript replays (`reading_for_transcript`), what it names is read only inside the
  directories that transcript may use (its own directory tree, and the ones its caller adds):
  symlinks are resolved first, and a path that leads out is refused.
- A refusal (`FileRefused`) names the path and the problem, never any of the file's content.

The limits are per kind of file, below; each says why it is that size.
"""

from __future__ import annotations

import contextvars
import functools
import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCENARIO_MAX_BYTES = 1_000_000
"""A scenario: the largest bundled one is a few kilobytes; a megabyte holds a classroom's worth of
users, queues and messages while keeping a YAML parse (and its checks) well under a second."""

RUNBOOK_MAX_BYTES = 256 * 1024
"""A runbook: a procedure of some dozens of steps is a few kilobytes; a quarter megabyte leaves room
for long rationales and still bounds what grading a class parses per file."""

TRANSCRIPT_MAX_BYTES = 10_000_000
"""A transcript: replay keeps a transcript's text in memory while it runs, and the Spark job holds a
partition's worth of them; ten megabytes is thousands of commands with their output, far beyond a
drill, and bounds what one handed-in file can cost a worker."""

SCRIPT_MAX_BYTES = 10_000_000
"""A CLI script (`-s FILE`, `source script`-like set-up files): the same bound as a transcript, whose
input lines a script is."""


class FileRefused(OSError):
    """A file that is not read. `path` as the user gave it (or as resolved), `problem` in words that
    quote none of the file; str() is `path: problem`, one line. An OSError (its `strerror` is the
    problem), so that code which reported a file it could not open reports this the same way."""

    def __init__(self, path: str | bytes | os.PathLike[str], problem: str, *, kind: str = "unreadable",
                 size: int | None = None) -> None:
        super().__init__(problem)
        self.path = os.fsdecode(path)
        self.problem = problem
        self.strerror = problem
        self.kind = kind          # unreadable | not-regular | too-large | outside | not-text
        self.size = size          # the file's size, for `too-large` (None: it grew while it was read)
        self.shown = _shown(self.path)  # the path as an error line may show it

    def __str__(self) -> str:
        return f"{self.shown}: {self.problem}"


@dataclass(frozen=True)
class Confinement:
    """Where the paths of the lines running now start (`base`) and the directories they may lead
    to (`roots`), as real paths; resolved when a line first names a file (most name none).

    `holder` is whose directory it is, in the refusals: a replaying transcript's, or the lab's for
    a user over SSH (who names files on the server's machine without being its user)."""

    directory: Path
    extra_roots: tuple[Path, ...] = ()
    holder: str = "transcript"

    @property
    def tree(self) -> str:
        return f"the {self.holder}'s directory tree"

    @property
    def relative_rule(self) -> str:
        if self.holder == "transcript":
            return "a transcript names files relative to its own directory"
        return f"files are named relative to the {self.holder}'s directory"

    @functools.cached_property
    def base(self) -> Path:
        return Path(os.path.realpath(self.directory))

    @functools.cached_property
    def roots(self) -> tuple[Path, ...]:
        return (self.base, *(Path(os.path.realpath(r)) for r in self.extra_roots))


_CONFINEMENT: contextvars.ContextVar[Confinement | None] = contextvars.ContextVar("transcript_files", default=None)


@contextmanager
def reading_for_transcript(base: Path, extra_roots: Sequence[Path] = (), holder: str = "transcript",
                           ) -> Iterator[Confinement]:
    """While the block runs, the paths its lines name resolve from `base` (the transcript's
    directory, or the lab's for an SSH user: `holder`) and may lead only into its tree or
    `extra_roots`. A context variable: it follows the block into the worker threads it starts
    with `asyncio.to_thread`."""
    confined = Confinement(base, tuple(extra_roots), holder)
    token = _CONFINEMENT.set(confined)
    try:
        yield confined
    finally:
        _CONFINEMENT.reset(token)


def confinement() -> Confinement | None:
    """The confinement of the lines running now (a replaying transcript's, an SSH user's), or None
    (a user's own shell or command on their own machine)."""
    return _CONFINEMENT.get()


def inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether the real path `path` lies in (or is) one of `roots` (real paths too)."""
    return any(path == root or root in path.parents for root in roots)


def confined_path(value: str, confined: Confinement) -> Path:
    """The real path that `value`, as a transcript wrote it, names: relative to the transcript's
    directory, symlinks resolved; FileRefused when it is absolute or leads out of the roots."""
    if os.path.isabs(value) or value.startswith("~"):
        raise FileRefused(value, f"an absolute path; {confined.relative_rule}", kind="outside")
    try:
        real = Path(os.path.realpath(confined.base / value))
    except (OSError, ValueError):
        raise FileRefused(value, "not a usable path", kind="unreadable") from None
    if not inside(real, confined.roots):
        raise FileRefused(value, f"leads outside {confined.tree}", kind="outside")
    return real


def read_bytes(path: str | bytes | os.PathLike[str], limit: int, *, within: Sequence[Path] | None = None) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; FileRefused otherwise.

    With `within` (real paths), the file's real path must lie in one of those directories. Nothing
    but a regular file is opened: its type and size are checked on the path first, then on the
    open descriptor (a file swapped in between is refused as well)."""
    shown = os.fspath(path)
    try:
        if within is not None and not inside(Path(os.path.realpath(os.fsdecode(shown))), within):
            raise FileRefused(shown, "leads outside the directories it may be read from", kind="outside")
        st = os.stat(shown)
        _check(shown, st, limit)
        fd = os.open(shown, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except FileRefused:
        raise
    except (OSError, ValueError) as exc:
        raise FileRefused(shown, _reason(exc)) from None
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
            raise FileRefused(shown, "changed while it was opened")
        _check(shown, opened, limit)
        return _read_at_most(shown, fd, opened.st_size, limit)
    except FileRefused:
        raise
    except OSError as exc:
        raise FileRefused(shown, _reason(exc)) from None
    finally:
        os.close(fd)


def read_utf8(path: str | bytes | os.PathLike[str], limit: int, *, within: Sequence[Path] | None = None) -> str:
    """`read_bytes` decoded as UTF-8 (a byte-order mark dropped); FileRefused naming the first line
    that is not UTF-8."""
    data = read_bytes(path, limit, within=within)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileRefused(path, f"not UTF-8 text (line {line})", kind="not-text") from None


def _check(shown: str | bytes, st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(shown, f"not a regular file ({_file_type(st.st_mode)})", kind="not-regular")
    if st.st_size > limit:
        raise FileRefused(shown, f"too large: {st.st_size:,} bytes (the limit is {limit:,})", kind="too-large",
                          size=st.st_size)


def _read_at_most(shown: str | bytes, fd: int, size: int, limit: int) -> bytes:
    """Up to `limit` bytes; one more means the file grew past the limit since its stat. The first
    read asks for the stat's size plus one (one system call for a file that did not change)."""
    first = os.read(fd, min(size, limit) + 1)
    if len(first) == size:
        return first
    chunks = [first]
    total = len(first)
    while first and total <= limit:
        first = os.read(fd, min(1 << 20, limit + 1 - total))
        chunks.append(first)
        total += len(first)
    if total > limit:
        raise FileRefused(shown, f"too large: more than {limit:,} bytes (it grew while it was read)",
                          kind="too-large")
    return b"".join(chunks)


def _file_type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return "not a usable path"  # a NUL byte in it


def _shown(path: str) -> str:
    """A path as an error shows it: at most 200 characters, control characters escaped, so that
    no line of the error comes from the path either."""
    text = path if len(path) <= 200 else path[:200] + "..."
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
