"""The slice of the Lab API replay uses, as Protocols, plus the default lab factory.

Replay depends on exactly these five members so the real `solace_shell.lab.Lab` and test doubles
(`fake_lab.FakeLab`) are interchangeable, and so replay never reaches into sessions or the store.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol


class OutcomeLike(Protocol):
    text: str                 # output after the command line, no trailing newline
    ok: bool
    node: str                 # grammar node id ("" when the line did not parse)
    error_kind: str | None


class LabLike(Protocol):
    def targets(self) -> list[str]: ...
    def prompt(self, target: str) -> str: ...
    def execute(self, target: str, line: str) -> OutcomeLike: ...
    def close(self) -> None: ...


LabFactory = Callable[[Path | None, dict[str, str]], LabLike]


def default_lab_factory(scenario: Path | None, settings: dict[str, str]) -> LabLike:
    """A fresh in-memory `solace_shell.lab.Lab` (imported late: the transcript layer must load
    without it, e.g. in tests that use the fake lab)."""
    from solace_shell.lab import Lab  # type: ignore[import-not-found]

    return Lab.fresh(scenario=scenario, settings=settings)
