"""What a CLI sees of the lab it runs in: its store and its grammar, as Protocols.

Why a module of its own: the lab opens its CLIs, and the handler registry types a handler's
session by what it may ask of the lab, so both name these without importing the lab or the
execute loop (``personalities.base``, which runs the handlers and so imports their registry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from grammar import Grammar, Parser
    from state_store.lab_root.engine import RootEngine

T = TypeVar("T")


class EngineStore(Protocol):
    """What a CLI uses of the lab's store: one command's work in one transaction, over an engine
    that has at least the lab's neutral part (``state_store.lab_root.engine.RootEngine``; the router
    CLI, which drives the Solace section's engine, types its lab as ``Lab``)."""

    def run(self, work: Callable[[RootEngine], T], *, max_wait_s: float | None = None) -> T: ...


class LabHost(Protocol):
    """What a CLI uses of the lab it runs in (``solace_shell.lab.Lab`` is the one): its store, its
    grammar and the parser over it. Why a Protocol: the lab opens its CLIs, so a CLI that imported
    the lab would close an import circle."""

    @property
    def store(self) -> EngineStore: ...
    @property
    def grammar(self) -> Grammar: ...
    @property
    def parser(self) -> Parser: ...
