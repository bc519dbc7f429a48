"""Real lab files with some of their bytes overwritten, and what opening one (then using it) gives.

Shared by tests/store/test_lab_corruption.py (a property test) and bench/bench_lab_corruption.py (the
same at volume). The files are real: the default lab as first written, the default lab after
commands (journal rows after the snapshot), and a lab of schema 5 (read and rewritten on open).
An outcome is clean when opening gives one LabFileError whose single line names the file, or the
lab opens and a read, a change and a console command each answer without an exception.
"""

from __future__ import annotations

import sqlite3
import traceback
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from solace_shell.lab import Lab
from state_store.errors import LabFileError
from state_store.lab_store import LabStore

KINDS = ("fresh", "used", "schema5")
COMMANDS = (("NY_Appliance1", "show message-vpn *"), ("lab", "fail site NY"), ("lab", "status"))


def _fresh(path: Path) -> None:
    LabStore.open(path).close()


def _used(path: Path) -> None:
    lab = Lab.open(path)
    try:
        for line in ("enable", "configure", "message-vpn Trading_VPN", "create queue corrupt_me", "exit", "exit",
                     "exit"):
            lab.execute("NY_Appliance1", line)
        lab.execute("lab", "publish Trading_VPN trading/orders/1 count 50")
        lab.execute("lab", "advance 1500")
    finally:
        lab.close()


def _schema5(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript((Path(__file__).resolve().parents[1] / "data" / "lab_schema5.sql").read_text(encoding="utf-8"))
    con.commit()
    con.close()


@cache
def lab_bytes(kind: str, workdir: Path) -> bytes:
    """The bytes of one real lab file of this kind (made once per work directory)."""
    path = workdir / f"real-{kind}.lab"
    {"fresh": _fresh, "used": _used, "schema5": _schema5}[kind](path)
    return path.read_bytes()


HEAD = 4096  # the first page: the header and the schema's CREATE statements


@dataclass(frozen=True)
class Damage:
    """Bytes to overwrite: each (where, value), `where` below HEAD an offset into the first page,
    else a place in the whole file in millionths of its length (HEAD..HEAD + 999,999)."""

    kind: str
    writes: tuple[tuple[int, int], ...]

    def apply(self, data: bytes) -> bytes:
        out = bytearray(data)
        for where, value in self.writes:
            out[where if where < HEAD else (where - HEAD) * len(out) // 1_000_000] = value
        return bytes(out)


def damages() -> st.SearchStrategy[Damage]:
    """One to eight overwritten bytes, in the first page (the schema) or anywhere, in one of the
    real lab files."""
    write = st.tuples(st.integers(0, HEAD + 999_999), st.integers(0, 255))
    return st.builds(Damage, st.sampled_from(KINDS), st.lists(write, min_size=1, max_size=8).map(tuple))


@dataclass(frozen=True)
class Outcome:
    clean: bool
    what: str  # "refused: <line>", "opened", or the exception and where it came from


def open_damaged(path: Path) -> Outcome:
    """Open the lab at `path` as the shell does and, if it opens, run a few commands on it."""
    try:
        lab = Lab.open(path)
    except LabFileError as exc:
        line = f"{exc.path}: {exc.problem}"
        clean = exc.path == str(path) and "\n" not in line and "\r" not in line and bool(exc.problem)
        return Outcome(clean, f"refused: {line}")
    except Exception as exc:
        return Outcome(False, _where(exc))
    outcome = Outcome(True, "opened")
    try:
        for target, command in COMMANDS:
            answer = lab.execute(target, command)
            if not answer.ok and answer.error_kind == "internal":
                outcome = Outcome(False, f"internal error on {command!r}: {answer.text}")
                break
    except Exception as exc:
        outcome = Outcome(False, _where(exc))
    try:
        lab.close()
    except Exception as exc:  # closing a damaged lab must not raise either
        outcome = Outcome(False, _where(exc))
    return outcome


def _where(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return f"{type(exc).__name__}{at}: {str(exc)[:120]}"
