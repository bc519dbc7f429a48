"""The slice of the Lab API replay uses, as Protocols, plus the default lab factory.

Replay depends on exactly these members of `solace_shell.lab.Lab`, so it never reaches into
sessions or the store (and a test can wrap the real lab to watch what replay builds and closes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol


class OutcomeLike(Protocol):
    @property
    def text(self) -> str: ...              # output after the command line, no trailing newline
    @property
    def ok(self) -> bool: ...
    @property
    def node(self) -> str: ...              # grammar node id ("" when the line did not parse)
    @property
    def error_kind(self) -> str | None: ...


class LabLike(Protocol):
    def targets(self) -> list[str]: ...
    def prompt(self, target: str) -> str: ...
    def execute(self, target: str, line: str) -> OutcomeLike: ...
    def close(self) -> None: ...


LabFactory = Callable[[Path | None, dict[str, str]], LabLike]


def default_lab_factory(scenario: Path | None, settings: dict[str, str]) -> LabLike:
    """A fresh in-memory `solace_shell.lab.Lab` (imported late: parsing and matching transcripts
    needs neither the grammar nor the state store)."""
    from solace_shell.lab import Lab  # noqa: PLC0415

    return Lab.fresh(scenario=scenario, settings=settings)
