"""What the lab's shared machinery needs of the lab's root (``state_store.lab_root``), as one typed record.

Why: the lab store, its images and scenario templates, the journal and its file, and the lab file
checks serve the lab's root: the state that holds the HA kernel (``state.kernel``) and each
system's section, and the engine whose ``@journaled`` methods (and its sections' engines') are the
calls a journal records and replays. They reach it only through the ``LabModel`` the root package
exposes (``state_store.loader.lab_model``), typed here by Protocols, so they name no system and
mypy checks them against exactly what they use.

What needs much code (building a lab from a scenario, reading a scenario, rewriting a lab file
of an older schema) is a function that imports that code when first called: a shell that only
opens an existing lab never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from grammar.yaml_source import LocatedDict

    from .journal import CallRecord, WorkLog
    from .kernel import Kernel


class LabState(Protocol):
    """The whole lab in memory: the work log of the current command, the HA kernel, the lab
    clock, settings and bookkeeping, and its records by kind (the keys of ``LabModel.kinds``'s
    values)."""

    @property
    def work(self) -> WorkLog: ...
    @property
    def kernel(self) -> Kernel: ...
    @property
    def now_ms(self) -> int: ...
    @property
    def settings(self) -> Mapping[str, str]: ...
    @property
    def meta(self) -> Mapping[str, str]: ...
    @property
    def next_ids(self) -> Mapping[str, int]: ...
    def records(self, kind: str) -> dict[int, Any]: ...


class LabEngine(Protocol):
    """The facade every command drives; its ``@journaled`` methods are the recorded calls."""

    @property
    def state(self) -> LabState: ...
    def close(self) -> None: ...


class RecordSpec(Protocol):
    """How the codec sees one kind of record: its field names and a getter of their values."""

    @property
    def names(self) -> Sequence[str]: ...
    @property
    def get(self) -> Callable[[Any], tuple[Any, ...]]: ...


S = TypeVar("S", bound=LabState)
E = TypeVar("E", bound=LabEngine)


@dataclass(frozen=True)
class LabModel(Generic[S, E]):
    """The lab's root model, as the shared machinery uses it."""

    new_state: Callable[[], S]                    # an empty state (filled by a scenario or a snapshot)
    engine: Callable[[S], E]                      # the engine over a state
    kinds: Mapping[type, str]                     # record class -> kind, in persistence order (every system's)
    root_kinds: Mapping[type, str]                # the root's own record classes -> kind
    held_kinds: Callable[[S], Sequence[str]]      # the kinds of the root and of the sections a state holds
    bulk: Callable[[], AbstractContextManager[None]]  # pauses the garbage collector for bulk work
    # the lab file's JSON: documents, states, journaled calls
    specs: Mapping[str, RecordSpec]
    dumps: Callable[[Any], str]
    loads: Callable[[str | bytes], Any]
    state_text: Callable[[S], str]
    decode_state: Callable[[Any], S]
    encode_calls: Callable[[list[CallRecord]], list[Any]]
    decode_calls: Callable[[Any], list[CallRecord]]
    codec_error: type[Exception]                  # what decoding a damaged or foreign text raises
    # the bound journaled method a recorded call's name replays on, None for no such call
    resolve_call: Callable[[E, str], Callable[..., Any] | None]
    # scenarios (imported when first used)
    load_scenario: Callable[[Path], LocatedDict]
    build_lab: Callable[[S, LocatedDict], None]
    # lab files (imported when first used)
    legacy_versions: Callable[[], Sequence[str]]  # schema versions of older labs it can rewrite
    migrate: Callable[[Path, str], None]          # rewrite such a lab file in this schema
    unusable: Callable[[S], str | None]           # what makes a readable lab unusable, else None
